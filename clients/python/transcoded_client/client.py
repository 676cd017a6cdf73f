"""A thin client of the transcoded daemon: the Transcoder RPCs with keyword arguments, and
failures as TranscodedError with the reason and field the daemon sends in the status details."""
import grpc

from . import stubs as _stubs

DETAILS_KEY = "grpc-status-details-bin"


class TranscodedError(Exception):
    """A failed RPC. `code` is the grpc.StatusCode; `reason` the transcode.v1.Reason name
    ("OUTSIDE_MEDIA_ROOT", ...; "" when the status carries no detail); `field` the request field
    at fault ("config.outputs[0].codec"; "" when no one field is)."""

    def __init__(self, code, message, reason="", field=""):
        text = f"{code.name}: {message}"
        if reason:
            text += f" [{reason}" + (f" {field}" if field else "") + "]"
        super().__init__(text)
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field


def decode_error(error, pb):
    """The TranscodedError of a grpc.RpcError: its code, message and ErrorDetail."""
    reason, field = "", ""
    for key, value in error.trailing_metadata() or ():
        if key != DETAILS_KEY:
            continue
        status = pb.error_details_pb2.Status.FromString(value)
        for any_detail in status.details:
            detail = pb.error_details_pb2.ErrorDetail()
            if any_detail.Unpack(detail):
                reason = pb.error_details_pb2.Reason.Name(detail.reason)
                field = detail.field
    return TranscodedError(error.code(), error.details(), reason, field)


class Client:
    """Client("127.0.0.1:50051") or Client("unix:///run/transcoded.sock", token="..."); use as a
    context manager or call close()."""

    def __init__(self, address, token=None, stubs_dir=None, timeout=30, credentials=None):
        self.pb = _stubs.load(stubs_dir)
        if credentials is not None:
            self._channel = grpc.secure_channel(address, credentials)
        else:
            self._channel = grpc.insecure_channel(address)
        self._stub = self.pb.transcoder_pb2_grpc.TranscoderStub(self._channel)
        self._metadata = [("authorization", f"Bearer {token}")] if token else []
        self.timeout = timeout

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._channel.close()

    def _call(self, method, request, timeout=None):
        try:
            return method(request, timeout=timeout or self.timeout, metadata=self._metadata)
        except grpc.RpcError as error:
            raise decode_error(error, self.pb) from None

    def output(self, path, **fields):
        """An OutputConfig: output("/media/out.mp4", codec="hevc", width=1280, height=720)."""
        return self.pb.job_pb2.OutputConfig(path=path, **fields)

    def submit(self, input, outputs, priority=0, labels=None, request_id="", webhook_url="",
               **config):
        """Creates a job: `outputs` are OutputConfigs or paths; `config` the other JobConfig
        fields (backend, start_s, duration_s, device); `webhook_url` gets each state change.
        Returns the Job."""
        outputs = [self.output(o) if isinstance(o, str) else o for o in outputs]
        request = self.pb.transcoder_pb2.CreateJobRequest(
            config=self.pb.job_pb2.JobConfig(input=input, outputs=outputs, **config),
            priority=priority, labels=labels or {}, request_id=request_id,
            webhook_url=webhook_url)
        return self._call(self._stub.CreateJob, request)

    def get(self, job_id):
        return self._call(self._stub.GetJob, self.pb.transcoder_pb2.GetJobRequest(id=job_id))

    def cancel(self, job_id):
        return self._call(self._stub.CancelJob,
                          self.pb.transcoder_pb2.CancelJobRequest(id=job_id))

    def list(self, state=0, page_size=0, page_token=""):
        request = self.pb.transcoder_pb2.ListJobsRequest(state=state, page_size=page_size,
                                                         page_token=page_token)
        return self._call(self._stub.ListJobs, request)

    def capabilities(self):
        return self._call(self._stub.GetCapabilities,
                          self.pb.transcoder_pb2.GetCapabilitiesRequest())

    # Tenants and their API keys (docs/tenants.md): an admin's calls; a tenant's key gets
    # PERMISSION_DENIED.
    def create_tenant(self, id, media_roots=None, admin=False, weight=0, max_queued=0,
                      max_running=0, engine_seconds_per_day=0):
        """Makes tenant `id` (a-z, 0-9, -; 1 to 63) whose jobs may use `media_roots` (each one of
        the node's or inside one), with its weight (0: 1) and quotas (0: none). Returns the
        Tenant; its webhook_secret is shown here alone."""
        request = self.pb.transcoder_pb2.CreateTenantRequest(
            id=id, media_roots=media_roots or [], admin=admin, weight=weight,
            max_queued=max_queued, max_running=max_running,
            engine_seconds_per_day=engine_seconds_per_day)
        return self._call(self._stub.CreateTenant, request)

    def update_tenant(self, tenant, weight=None, max_queued=None, max_running=None,
                      engine_seconds_per_day=None):
        """Sets `tenant`'s weight (1..1000) and quotas (0: none) given; those left None are
        kept. Returns the Tenant as it now is. INVALID_ARGUMENT names a value out of bounds;
        NOT_FOUND for an unknown tenant."""
        given = {name: value for name, value in (
            ("weight", weight), ("max_queued", max_queued), ("max_running", max_running),
            ("engine_seconds_per_day", engine_seconds_per_day)) if value is not None}
        request = self.pb.transcoder_pb2.UpdateTenantRequest(tenant=tenant, **given)
        return self._call(self._stub.UpdateTenant, request)

    def list_tenants(self):
        """Every tenant, by id, "default" among them: a list of Tenant."""
        reply = self._call(self._stub.ListTenants, self.pb.transcoder_pb2.ListTenantsRequest())
        return list(reply.tenants)

    def create_api_key(self, tenant):
        """A new key of `tenant`: the ApiKey, whose `key` (the bearer token, for
        Client(token=...)) is shown here alone."""
        return self._call(self._stub.CreateApiKey,
                          self.pb.transcoder_pb2.CreateApiKeyRequest(tenant=tenant))

    def revoke_api_key(self, key_id):
        """Revokes key `key_id` (the part of the key after tck_): refused from the next call on,
        on every node. Returns the ApiKey with its revoke_time."""
        return self._call(self._stub.RevokeApiKey,
                          self.pb.transcoder_pb2.RevokeApiKeyRequest(key_id=key_id))

    def rotate_webhook_secret(self, tenant):
        """A new webhook signing secret of `tenant` (whsec_...), shown here alone: the notices
        of its jobs are signed with it from the next one on. Returns the WebhookSecret."""
        return self._call(self._stub.RotateWebhookSecret,
                          self.pb.transcoder_pb2.RotateWebhookSecretRequest(tenant=tenant))

    def watch(self, job_id, timeout=None):
        """The job's JobEvents: a snapshot, then state changes and progress, to its end."""
        events = self._stub.WatchJob(self.pb.transcoder_pb2.WatchJobRequest(id=job_id),
                                     timeout=timeout, metadata=self._metadata)
        try:
            yield from events
        except grpc.RpcError as error:
            raise decode_error(error, self.pb) from None

    def wait(self, job_id, timeout=None, on_event=None):
        """Watches the job to its end and returns the final Job."""
        final = None
        for event in self.watch(job_id, timeout):
            if on_event:
                on_event(event)
            final = event.job
        return final
