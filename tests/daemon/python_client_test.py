#!/usr/bin/python3
"""A client in another language: the clients/python package (Debian's python3-grpcio, stubs
generated from proto/ at test time by the package's own helper) against a real daemon. Runs one
job end to end, the example script, refused requests with their reason and field, the field
behaviour of every field, and health and reflection.
"""
import json
import os
import subprocess
import sys
import unittest

from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, CLIENT_PACKAGE)
import transcoded_client  # noqa: E402


def generate_std_stubs(out):
    """gRPC's own health and reflection protos, which are not part of the package: health from
    the test's copy, reflection from the one the daemon serves (proto/), as a top-level module
    `reflection_pb2` (a `grpc/...` path would shadow the grpc package itself)."""
    def protoc(include, files):
        subprocess.run(["protoc", "-I", include, "--python_out", out, "--grpc_python_out", out,
                        "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"] +
                       [os.path.join(include, f) for f in files], check=True)
    protoc(os.path.join(HERE, "protos"), ["grpc_std/health.proto"])
    protoc(os.path.join(SOURCE, "proto", "grpc", "reflection", "v1alpha"), ["reflection.proto"])


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon()
        try:
            cls.stubs = os.path.join(cls.daemon.tmp, "stubs")
            transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
            generate_std_stubs(cls.stubs)
            cls.client = transcoded_client.Client(cls.daemon.address, stubs_dir=cls.stubs)
        except BaseException:
            cls.daemon.stop()  # tearDownClass does not run
            raise
        cls.media, cls.input = cls.daemon.media, cls.daemon.input
        cls.pb = cls.client.pb

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()

    def test_health_is_serving(self):
        from grpc_std import health_pb2, health_pb2_grpc
        stub = health_pb2_grpc.HealthStub(self.client._channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=30)
        self.assertEqual(reply.status, health_pb2.HealthCheckResponse.SERVING)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="transcode.v1.Transcoder"),
                           timeout=30)
        self.assertEqual(reply.status, health_pb2.HealthCheckResponse.SERVING)

    def test_reflection_lists_the_services(self):
        import reflection_pb2, reflection_pb2_grpc
        stub = reflection_pb2_grpc.ServerReflectionStub(self.client._channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = list(stub.ServerReflectionInfo(iter([request]), timeout=30))
        names = {s.name for s in replies[0].list_services_response.service}
        self.assertIn("transcode.v1.Transcoder", names)
        self.assertIn("grpc.health.v1.Health", names)

    def test_reflection_describes_the_api(self):
        """What grpcurl asks first: the file holding the service, with every file it imports."""
        from google.protobuf import descriptor_pb2
        import reflection_pb2, reflection_pb2_grpc
        stub = reflection_pb2_grpc.ServerReflectionStub(self.client._channel)
        requests = [reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="transcode.v1.Transcoder"),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="no.such.Symbol")]
        found, missing = list(stub.ServerReflectionInfo(iter(requests), timeout=30))
        files = {}
        for blob in found.file_descriptor_response.file_descriptor_proto:
            proto = descriptor_pb2.FileDescriptorProto.FromString(blob)
            files[proto.name] = proto
        self.assertIn("transcode/v1/transcoder.proto", files)
        self.assertIn("transcode/v1/job.proto", files)  # imported by transcoder.proto
        service = files["transcode/v1/transcoder.proto"].service[0]
        self.assertIn("CreateJob", [m.name for m in service.method])
        self.assertEqual(missing.error_response.error_code, 5)  # NOT_FOUND
        self.assertIn("no.such.Symbol", missing.error_response.error_message)

    def test_one_job_end_to_end(self):
        out = os.path.join(self.media, "py.mp4")
        outputs = [self.client.output(out, codec="h264", width=160, height=120)]
        job = self.client.submit(self.input, outputs, request_id="py-1")
        self.assertTrue(job.id)
        kinds = []
        final = self.client.wait(job.id, timeout=240, on_event=lambda e: kinds.append(e.kind))
        self.assertEqual(kinds[0], self.pb.transcoder_pb2.JobEvent.KIND_SNAPSHOT)
        self.assertEqual(final.state, self.pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
        self.assertEqual(final.result.outputs[0].width, 160)
        self.assertGreater(final.result.frames_decoded, 0)
        report = json.loads(final.result.report_json)
        self.assertEqual(report["outputs"][0]["path"], out)
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                                "-show_entries", "stream=width,height", "-of", "csv=p=0", out],
                               capture_output=True, text=True, check=True)
        self.assertEqual(probe.stdout.strip(), "160,120")
        # A retried create with the same request id is the same job.
        again = self.client.submit(self.input, outputs, request_id="py-1")
        self.assertEqual(again.id, job.id)
        self.assertEqual(self.client.get(job.id).state, self.pb.job_pb2.JOB_STATE_SUCCEEDED)

    def test_example_submits_and_reports(self):
        out = os.path.join(self.media, "example.mp4")
        example = os.path.join(CLIENT_PACKAGE, "examples", "submit.py")
        run = subprocess.run([sys.executable, example, "--server", self.daemon.address,
                              "--stubs", self.stubs, "--size", "160x120", self.input, out],
                             capture_output=True, text=True, timeout=240)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("JOB_STATE_SUCCEEDED", run.stdout)
        self.assertIn("160x120", run.stdout)
        self.assertTrue(os.path.getsize(out) > 0)
        refused = subprocess.run([sys.executable, example, "--server", self.daemon.address,
                                  "--stubs", self.stubs, "/etc/hostname", out],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("reason OUTSIDE_MEDIA_ROOT, field config.input", refused.stderr)

    def assert_refused(self, call, code, reason, field):
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            call()
        self.assertEqual(refused.exception.code.name, code, str(refused.exception))
        self.assertEqual(refused.exception.reason, reason, str(refused.exception))
        self.assertEqual(refused.exception.field, field, str(refused.exception))

    def test_refused_requests_carry_reason_and_field(self):
        out = os.path.join(self.media, "refused.mp4")
        self.assert_refused(lambda: self.client.submit("/etc/hostname", [out]),
                            "PERMISSION_DENIED", "OUTSIDE_MEDIA_ROOT", "config.input")
        self.assert_refused(lambda: self.client.submit(self.input, ["/tmp/out.mp4"]),
                            "PERMISSION_DENIED", "OUTSIDE_MEDIA_ROOT", "config.outputs[0].path")
        self.assert_refused(
            lambda: self.client.submit(self.input, [self.client.output(out, codec="h266")]),
            "INVALID_ARGUMENT", "INVALID_FIELD", "config.outputs[0].codec")
        self.assert_refused(lambda: self.client.get("j-nope"), "NOT_FOUND", "JOB_NOT_FOUND", "")

    def test_every_field_states_its_behaviour(self):
        behaviour = self.pb.field_behavior_pb2.field_behavior
        unspecified = self.pb.field_behavior_pb2.FIELD_BEHAVIOR_UNSPECIFIED
        modules = [self.pb.job_pb2, self.pb.transcoder_pb2, self.pb.error_details_pb2]
        pending = [m for module in modules for m in module.DESCRIPTOR.message_types_by_name.values()]
        fields = 0
        while pending:
            message = pending.pop()
            if message.GetOptions().map_entry:
                continue
            pending.extend(message.nested_types)
            for field in message.fields:
                values = list(field.GetOptions().Extensions[behaviour])
                self.assertTrue(values, field.full_name)
                self.assertNotIn(unspecified, values, field.full_name)
                fields += 1
        self.assertGreater(fields, 100)


class TokenDaemonTest(unittest.TestCase):
    """With a token set, nothing but health answers without it: reflection wants the token, or a
    tenant's valid key, as the Transcoder service does."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon(token="s3cret")
        try:
            cls.stubs = os.path.join(cls.daemon.tmp, "stubs")
            transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
            generate_std_stubs(cls.stubs)
            sys.path.insert(0, cls.stubs)
            cls.admin = transcoded_client.Client(cls.daemon.address, token="s3cret",
                                                 stubs_dir=cls.stubs)
        except BaseException:
            cls.daemon.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.admin.close()
        cls.daemon.stop()

    def tenant_client(self, name):
        """A new tenant `name` made by the admin, and a Client acting with a key of it."""
        self.admin.create_tenant(name, media_roots=[self.daemon.media])
        key = self.admin.create_api_key(name)
        client = transcoded_client.Client(self.daemon.address, token=key.key, stubs_dir=self.stubs)
        self.addCleanup(client.close)
        return client, key

    def list_services(self, token):
        import grpc
        import reflection_pb2, reflection_pb2_grpc
        with grpc.insecure_channel(self.daemon.address) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            replies = list(stub.ServerReflectionInfo(
                iter([request]), timeout=30, metadata=[("authorization", f"Bearer {token}")]))
            return {s.name for s in replies[0].list_services_response.service}

    def test_the_client_manages_tenants_and_keys(self):
        import grpc
        tenant = self.admin.create_tenant("team-py", media_roots=[self.daemon.media], weight=2)
        self.assertEqual((tenant.id, tenant.role, tenant.weight), ("team-py", "tenant", 2))
        self.assertEqual(list(tenant.media_roots), [self.daemon.media])
        listed = {t.id: t for t in self.admin.list_tenants()}
        self.assertIn("default", listed)
        self.assertEqual(listed["team-py"].weight, 2)
        updated = self.admin.update_tenant("team-py", max_running=3)
        self.assertEqual((updated.weight, updated.max_running, updated.max_queued), (2, 3, 0),
                         "what is not given is kept")
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.admin.update_tenant("team-py", weight=0)
        self.assertEqual(refused.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(refused.exception.field, "weight")
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.admin.update_tenant("team-none", weight=3)
        self.assertEqual(refused.exception.code, grpc.StatusCode.NOT_FOUND)
        key = self.admin.create_api_key("team-py")
        self.assertEqual(key.tenant, "team-py")
        self.assertTrue(key.key.startswith(f"tck_{key.key_id}_"), key.key)
        with transcoded_client.Client(self.daemon.address, token=key.key,
                                      stubs_dir=self.stubs) as team:
            self.assertEqual(list(team.list().jobs), [])
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                team.list_tenants()
            self.assertEqual(refused.exception.code, grpc.StatusCode.PERMISSION_DENIED)
            revoked = self.admin.revoke_api_key(key.key_id)
            self.assertEqual(revoked.key_id, key.key_id)
            self.assertGreater(revoked.revoke_time.seconds, 0)
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                team.list()
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAUTHENTICATED)
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.admin.create_tenant("Team Py")
        self.assertEqual(refused.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(refused.exception.field, "id")

    def test_reflection_answers_a_tenants_key_and_not_a_revoked_one(self):
        import grpc
        _, key = self.tenant_client("team-reflect")
        self.assertIn("transcode.v1.Transcoder", self.list_services(key.key))
        self.admin.revoke_api_key(key.key_id)
        with self.assertRaises(grpc.RpcError) as refused:
            self.list_services(key.key)
        self.assertEqual(refused.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def test_reflection_does_not_answer_without_the_token(self):
        import grpc
        import reflection_pb2, reflection_pb2_grpc
        with grpc.insecure_channel(self.daemon.address) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            with self.assertRaises(grpc.RpcError) as refused:
                list(stub.ServerReflectionInfo(iter([request]), timeout=30))
            self.assertEqual(refused.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def test_reflection_answers_with_the_token(self):
        import grpc
        import reflection_pb2, reflection_pb2_grpc
        with grpc.insecure_channel(self.daemon.address) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            replies = list(stub.ServerReflectionInfo(
                iter([request]), timeout=30, metadata=[("authorization", "Bearer s3cret")]))
            names = {s.name for s in replies[0].list_services_response.service}
            self.assertIn("transcode.v1.Transcoder", names)

    def test_health_still_answers(self):
        import grpc
        from grpc_std import health_pb2, health_pb2_grpc
        with grpc.insecure_channel(self.daemon.address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=30)
            self.assertEqual(reply.status, health_pb2.HealthCheckResponse.SERVING)


if __name__ == "__main__":
    unittest.main(verbosity=2)
