#!/usr/bin/python3
"""Tenants (issue 42) as their users see them: two tenants A and B on one daemon (SQLite) and
on two daemons sharing PostgreSQL, each with its own API key made by `transcode tenants
key-create` through the static token (the admin of tenant "default"):

- B cannot get, cancel, watch or read the logs of A's job, over gRPC and over HTTP: NOT_FOUND
  with the very text a random id gets (its existence is not told); A's job runs on untouched;
- B's ListJobs lacks A's jobs, ListNodes shows B the node but not A's running job; the admin
  sees both, each job naming its tenant;
- B's output (or input) in A's media root is refused naming the path; a request_id is per tenant;
- two keys of one tenant valid at once; a revoked key refused at once, on the other node too;
- a tenant's key cannot manage tenants (PERMISSION_DENIED); unknown and malformed keys are
  UNAUTHENTICATED saying which, never echoing the secret;
- the key `transcode tenants key-create` prints works with `transcode submit --token-file`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import visible_skips
from postgres_server import PostgresServer
from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon, make_clip

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]
ADMIN_TOKEN = "static-admin-token-42"
HOLD = {"TC_TEST_FAULT": "hold:held"}  # a job whose input names "held" runs until released
RANDOM_ID = "j-00000000deadbeef"
WAIT_S = 300  # a deadline against a hang on a loaded machine, not a figure


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def media_tree(root):
    """A media root with a directory per tenant, each holding clips."""
    for team in ("a", "b"):
        os.makedirs(os.path.join(root, team))
        make_clip(os.path.join(root, team, "in.mp4"))
        shutil.copy(os.path.join(root, team, "in.mp4"), os.path.join(root, team, "held.mp4"))


def wait_until(check, what):
    """check()'s first true value, polled until the deadline; fails naming `what`."""
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def without_id(message, job_id):
    return message.replace(job_id, "ID")


class Fleet:
    """The tenants, their keys and clients on one or two daemons sharing a media root."""

    def __init__(self, test, daemons, media, stubs):
        self.test = test
        self.daemons = daemons
        self.media = media
        self.stubs = stubs
        self.tmp = tempfile.mkdtemp(prefix="tc-tenants-")
        self.admin_file = write(os.path.join(self.tmp, "admin"), ADMIN_TOKEN + "\n")

    def transcode(self, *args, daemon=0, token_file=None):
        """`transcode ARGS --server ADDR --token-file FILE` (the admin's by default)."""
        done = subprocess.run([TRANSCODE, *args, "--server", self.daemons[daemon].address,
                               "--token-file", token_file or self.admin_file],
                              cwd=self.media, capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr

    def make_tenant(self, name, root):
        code, out, err = self.transcode("tenants", "create", name, "--media-root", root)
        self.test.assertEqual(code, 0, err)
        return self.new_key(name)

    def new_key(self, name, daemon=0):
        code, out, err = self.transcode("tenants", "key-create", name, daemon=daemon)
        self.test.assertEqual(code, 0, err)
        key = out.strip()
        self.test.assertRegex(key, r"^tck_[0-9a-f]+_[A-Za-z0-9_-]{43}$")
        return key

    def client(self, key, daemon=0):
        return transcoded_client.Client(self.daemons[daemon].address, token=key,
                                        stubs_dir=self.stubs)

    def http(self, method, path, key, body=None, daemon=0):
        """(status, JSON body) of an HTTP call with `key` as the bearer token."""
        request = urllib.request.Request(
            f"http://{self.daemons[daemon].http_address}{path}", method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return reply.status, json.loads(reply.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


class TenantCases:
    """The cases, run by the SQLite and PostgreSQL classes below. `fleet` holds keys a and b
    (tenants team-a, team-b), its daemons 0 and (with PostgreSQL) 1."""

    def submit(self, client, team, name="in.mp4", out=None, **fields):
        media = self.fleet.media
        return client.submit(os.path.join(media, team, name),
                             [os.path.join(media, team, out or f"out-{os.getpid()}-{name}.mkv")],
                             **fields)

    def wait_state(self, client, job_id, state):
        for event in client.watch(job_id, timeout=WAIT_S):
            if event.job.state == state:
                return event.job
        return client.get(job_id)

    def assert_not_found_like_random(self, call, job_id):
        """call(job_id) fails NOT_FOUND with the text call(RANDOM_ID) fails with."""
        with self.assertRaises(transcoded_client.TranscodedError) as theirs:
            call(job_id)
        with self.assertRaises(transcoded_client.TranscodedError) as random:
            call(RANDOM_ID)
        self.assertEqual(theirs.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertEqual(without_id(theirs.exception.message, job_id),
                         without_id(random.exception.message, RANDOM_ID))
        self.assertEqual(theirs.exception.reason, random.exception.reason)

    def other_node(self):
        return len(self.fleet.daemons) - 1  # B calls the other node where there is one

    def test_another_tenants_job_is_not_found_on_every_rpc(self):
        a = self.fleet.client(self.key_a)
        b = self.fleet.client(self.key_b, daemon=self.other_node())
        job = self.submit(a, "a", "held.mp4")
        try:
            self.wait_state(a, job.id, self.pb.job_pb2.JOB_STATE_RUNNING)
            self.assert_not_found_like_random(b.get, job.id)
            self.assert_not_found_like_random(b.cancel, job.id)
            self.assert_not_found_like_random(lambda i: list(b.watch(i, timeout=60)), job.id)
            logs = lambda i: b._call(b._stub.GetJobLogs,  # noqa: E731
                                     self.pb.transcoder_pb2.GetJobLogsRequest(id=i))
            self.assert_not_found_like_random(logs, job.id)
            # B's cancel did nothing: A's job runs on, and A may cancel it.
            self.assertEqual(a.get(job.id).state, self.pb.job_pb2.JOB_STATE_RUNNING)
        finally:
            a.cancel(job.id)
        self.assertEqual(self.wait_state(a, job.id, self.pb.job_pb2.JOB_STATE_CANCELLED).state,
                         self.pb.job_pb2.JOB_STATE_CANCELLED)

    def test_over_http_another_tenants_job_is_404_like_a_random_id(self):
        a = self.fleet.client(self.key_a)
        job = self.submit(a, "a")
        node = self.other_node()
        for path, method in ((f"/v1/jobs/{{}}", "GET"), (f"/v1/jobs/{{}}:cancel", "POST"),
                             (f"/v1/jobs/{{}}/logs", "GET")):
            body = {} if method == "POST" else None
            theirs = self.fleet.http(method, path.format(job.id), self.key_b, body, node)
            random = self.fleet.http(method, path.format(RANDOM_ID), self.key_b, body, node)
            self.assertEqual(theirs[0], 404, (path, theirs))
            self.assertEqual(without_id(theirs[1]["message"], job.id),
                             without_id(random[1]["message"], RANDOM_ID))
        status, listed = self.fleet.http("GET", "/v1/jobs?page_size=500", self.key_b, None, node)
        self.assertEqual(status, 200)
        self.assertNotIn(job.id, [j["id"] for j in listed.get("jobs", [])])
        status, mine = self.fleet.http("GET", f"/v1/jobs/{job.id}", self.key_a)
        self.assertEqual((status, mine["tenant"]), (200, "team-a"))
        status, refused = self.fleet.http("POST", "/v1/tenants", self.key_b, {"id": "team-z"})
        self.assertEqual(status, 403, refused)

    def test_list_jobs_holds_only_the_callers_jobs_and_the_admin_sees_all(self):
        a = self.fleet.client(self.key_a)
        b = self.fleet.client(self.key_b, daemon=self.other_node())
        job_a, job_b = self.submit(a, "a"), self.submit(b, "b")
        ids_b = [j.id for j in b.list(page_size=500).jobs]
        self.assertIn(job_b.id, ids_b)
        self.assertNotIn(job_a.id, ids_b)
        # Pages of one page_size hold only B's jobs, and follow each other.
        first = b.list(page_size=1)
        self.assertEqual([j.tenant for j in first.jobs], ["team-b"])
        if first.next_page_token:
            second = b.list(page_size=1, page_token=first.next_page_token)
            self.assertTrue(all(j.tenant == "team-b" for j in second.jobs))
        admin = self.fleet.client(ADMIN_TOKEN)
        by_id = {j.id: j.tenant for j in admin.list(page_size=500).jobs}
        self.assertEqual(by_id.get(job_a.id), "team-a")
        self.assertEqual(by_id.get(job_b.id), "team-b")
        self.assertEqual(admin.get(job_a.id).tenant, "team-a")  # the static token is the admin

    def test_list_nodes_shows_no_other_tenants_running_job(self):
        a = self.fleet.client(self.key_a)
        job = self.submit(a, "a", "held.mp4")

        def running(key):
            client = self.fleet.client(key)
            nodes = client._call(client._stub.ListNodes,
                                 self.pb.transcoder_pb2.ListNodesRequest()).nodes
            self.assertTrue(nodes)
            return [i for n in nodes for i in n.running_jobs]

        try:
            self.wait_state(a, job.id, self.pb.job_pb2.JOB_STATE_RUNNING)
            wait_until(lambda: job.id in running(ADMIN_TOKEN), "the node's beat to list the job")
            self.assertIn(job.id, running(self.key_a))
            self.assertNotIn(job.id, running(self.key_b))
        finally:
            a.cancel(job.id)

    def test_paths_outside_the_tenants_roots_are_refused_naming_the_path(self):
        b = self.fleet.client(self.key_b)
        into_a = os.path.join(self.fleet.media, "a", "from-b.mkv")
        with self.assertRaises(transcoded_client.TranscodedError) as out:
            b.submit(os.path.join(self.fleet.media, "b", "in.mp4"), [into_a])
        self.assertEqual(out.exception.code, grpc.StatusCode.PERMISSION_DENIED)
        self.assertEqual(out.exception.reason, "OUTSIDE_MEDIA_ROOT")
        self.assertIn(into_a, out.exception.message)
        with self.assertRaises(transcoded_client.TranscodedError) as source:
            self.submit(b, "a")
        self.assertEqual(source.exception.reason, "OUTSIDE_MEDIA_ROOT")
        self.assertFalse(os.path.exists(into_a))

    def test_a_request_id_is_per_tenant(self):
        a = self.fleet.client(self.key_a)
        b = self.fleet.client(self.key_b, daemon=self.other_node())
        request_id = f"nightly-{os.getpid()}-{self.id()}"
        job_a = self.submit(a, "a", request_id=request_id)
        job_b = self.submit(b, "b", request_id=request_id)
        self.assertNotEqual(job_a.id, job_b.id)
        self.assertEqual(self.submit(a, "a", request_id=request_id).id, job_a.id)

    def test_two_keys_at_once_and_a_revoked_key_is_refused_at_once_everywhere(self):
        old = self.fleet.new_key("team-a")
        new = self.fleet.new_key("team-a", daemon=self.other_node())
        for key in (old, new):
            for node in range(len(self.fleet.daemons)):
                self.fleet.client(key, node).list(page_size=1)  # both valid at once
        key_id = old.split("_")[1]
        code, out, err = self.fleet.transcode("tenants", "key-revoke", key_id)
        self.assertEqual(code, 0, err)
        for node in range(len(self.fleet.daemons)):
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                self.fleet.client(old, node).list()
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            self.assertIn("revoked", refused.exception.message)
            self.assertNotIn(old.split("_", 2)[2], refused.exception.message)
            self.fleet.client(new, node).list()  # the other key still works

    def test_unknown_and_malformed_keys_are_refused_saying_which(self):
        secret = "s3cr3t-never-echoed"
        for key, says in ((f"tck_0123456789abcdef_{secret}", "unknown API key"),
                          (f"tck_{secret}", "malformed API key")):
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                self.fleet.client(key).list()
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            self.assertIn(says, refused.exception.message)
            self.assertNotIn(secret, refused.exception.message)
        wrong = self.key_a.rsplit("_", 1)[0] + "_" + secret
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.fleet.client(wrong).list()
        self.assertIn("wrong secret", refused.exception.message)

    def test_a_tenant_cannot_manage_tenants(self):
        key_file = write(os.path.join(self.fleet.tmp, "key-b"), self.key_b + "\n")
        for args in (("tenants", "list"), ("tenants", "create", "team-z"),
                     ("tenants", "key-create", "team-a")):
            code, out, err = self.fleet.transcode(*args, token_file=key_file)
            self.assertEqual(code, 2, (args, out, err))
            self.assertIn("PERMISSION_DENIED", err)
        code, out, err = self.fleet.transcode("tenants", "list")
        self.assertEqual(code, 0, err)
        self.assertIn("team-a: tenant", out)
        self.assertIn("default: admin", out)

    def test_the_printed_key_works_with_transcode_submit(self):
        key_file = write(os.path.join(self.fleet.tmp, "key-a"), self.fleet.new_key("team-a"))
        output = os.path.join(self.fleet.media, "a", f"cli-{os.getpid()}.mkv")
        code, out, err = self.fleet.transcode(
            "submit", os.path.join(self.fleet.media, "a", "in.mp4"), "-o", output, "--wait",
            token_file=key_file)
        self.assertEqual(code, 0, err)
        self.assertTrue(os.path.getsize(output) > 0)
        admin = self.fleet.client(ADMIN_TOKEN)
        mine = [j for j in admin.list(page_size=500).jobs if j.config.outputs[0].path == output]
        self.assertEqual([j.tenant for j in mine], ["team-a"])


    # ---- Usage you can bill (docs/tenants.md, Usage).

    def tenant_jobs_ended(self, key):
        """Every job of the key's tenant, read by GetJob once none is queued or running."""
        client = self.fleet.client(key)
        ended = (self.pb.job_pb2.JOB_STATE_SUCCEEDED, self.pb.job_pb2.JOB_STATE_FAILED,
                 self.pb.job_pb2.JOB_STATE_CANCELLED)
        for job in client.list(page_size=500).jobs:
            if job.state not in ended:
                try:
                    client.cancel(job.id)
                except transcoded_client.TranscodedError:
                    pass  # it ended meanwhile
        wait_until(lambda: all(j.state in ended for j in client.list(page_size=500).jobs),
                   "every job of the tenant to end")
        return [client.get(j.id) for j in client.list(page_size=500).jobs]

    @staticmethod
    def summed(usages):
        """{resource: seconds} over Usage messages or their JSON ("cpu" for cpu_seconds)."""
        total = {}
        for usage in usages:
            if isinstance(usage, dict):
                cpu = usage.get("cpu_seconds", usage.get("cpuSeconds", 0))
                engines = usage.get("engine_seconds", usage.get("engineSeconds", {}))
            else:
                cpu, engines = usage.cpu_seconds, dict(usage.engine_seconds)
            total["cpu"] = total.get("cpu", 0) + float(cpu)
            for engine, seconds in engines.items():
                total[engine] = total.get(engine, 0) + float(seconds)
        return total

    def assert_same_use(self, got, want, what):
        self.assertEqual(sorted(got), sorted(want), what)
        for resource, seconds in want.items():
            self.assertAlmostEqual(got[resource], seconds, places=6, msg=f"{what}: {resource}")

    def metric_sums(self, tenant):
        """{resource: seconds} of the tenant's counters, summed over the fleet's /metrics."""
        total = {}
        for daemon in self.fleet.daemons:
            with urllib.request.urlopen(f"http://{daemon.metrics_address}/metrics",
                                        timeout=60) as reply:
                text = reply.read().decode()
            for line in text.splitlines():
                if f'tenant="{tenant}"' not in line or line.startswith("#"):
                    continue
                name, value = line.rsplit(" ", 1)
                if name.startswith("transcoded_tenant_cpu_seconds_total"):
                    resource = "cpu"
                elif name.startswith("transcoded_tenant_engine_seconds_total"):
                    resource = name.split('engine="', 1)[1].split('"', 1)[0]
                else:
                    continue
                total[resource] = total.get(resource, 0) + float(value)
        return total

    def test_usage_is_the_sum_of_each_tenants_jobs_and_its_own_alone(self):
        for key, team in ((self.key_a, "a"), (self.key_b, "b")):
            client = self.fleet.client(key)
            for i in range(2):
                job = self.submit(client, team, out=f"usage-{os.getpid()}-{i}.mkv")
                self.assertEqual(self.wait_state(client, job.id,
                                                 self.pb.job_pb2.JOB_STATE_SUCCEEDED).state,
                                 self.pb.job_pb2.JOB_STATE_SUCCEEDED)
                done = client.get(job.id)
                self.assertTrue(done.HasField("usage"), "an ended job carries its usage")
                self.assertTrue(all(a.HasField("usage") for a in done.attempts))
                # A 1 s clip ends well inside one sampling interval: its use is still measured
                # (the sampler's last read when the result arrives), never billed as nothing.
                self.assertGreater(done.usage.cpu_seconds, 0, "a short job's CPU is measured")
                self.assert_same_use(self.summed([done.usage]),
                                     self.summed([a.usage for a in done.attempts]),
                                     "a job's usage is its attempts'")
        for key, tenant, other in ((self.key_a, "team-a", "team-b"),
                                   (self.key_b, "team-b", "team-a")):
            want = self.summed([j.usage for j in self.tenant_jobs_ended(key)
                                if j.HasField("usage")])
            key_file = write(os.path.join(self.fleet.tmp, tenant), key + "\n")
            code, out, err = self.fleet.transcode("usage", "--json", "--since", "7d",
                                                  token_file=key_file)
            self.assertEqual(code, 0, err)
            entries = json.loads(out)["tenants"]
            self.assertEqual([e["tenant"] for e in entries], [tenant])
            self.assert_same_use(self.summed([entries[0]["usage"]]), want, "transcode usage")
            status, body = self.fleet.http("GET", "/v1/usage", key,
                                           daemon=self.other_node())
            self.assertEqual(status, 200, body)
            self.assert_same_use(self.summed([e["usage"] for e in body["tenants"]]), want,
                                 "GET /v1/usage")
            # Another tenant's usage is not found, as its jobs are.
            code, out, err = self.fleet.transcode("usage", "--tenant", other, token_file=key_file)
            self.assertEqual(code, 2, err)
            self.assertIn("NOT_FOUND", err + out)
            status, body = self.fleet.http("GET", f"/v1/usage?tenant={other}", key)
            self.assertEqual(status, 404, body)
            # The admin reads any tenant's, the same figures.
            code, out, err = self.fleet.transcode("usage", "--json", "--tenant", tenant)
            self.assertEqual(code, 0, err)
            self.assert_same_use(self.summed([json.loads(out)["tenants"][0]["usage"]]), want,
                                 "the admin's transcode usage --tenant")
            self.assert_same_use(self.metric_sums(tenant), want, "/metrics")
        code, out, err = self.fleet.transcode("usage", "--since", "yesterday")
        self.assertEqual(code, 2)
        self.assertIn("--since 'yesterday'", err)


class SqliteTenantsTest(TenantCases, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tc-tenants-sqlite-")
        try:
            cls.media = os.path.join(cls.tmp, "media")
            media_tree(cls.media)
            cls.daemon = RealDaemon(token=ADMIN_TOKEN, media=cls.media, env=HOLD, metrics=True,
                                    extra_args=["--http-listen", "127.0.0.1:0"])
            cls.stubs = os.path.join(cls.tmp, "stubs")
            transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
            cls.pb = transcoded_client.load(cls.stubs)
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.fleet = Fleet(self, [self.daemon], self.media, self.stubs)
        if not hasattr(SqliteTenantsTest, "keys"):
            SqliteTenantsTest.keys = (
                self.fleet.make_tenant("team-a", os.path.join(self.media, "a")),
                self.fleet.make_tenant("team-b", os.path.join(self.media, "b")))
        self.key_a, self.key_b = SqliteTenantsTest.keys


@unittest.skipIf(PostgresServer.unavailable(), PostgresServer.unavailable() or "")
class PostgresTenantsTest(TenantCases, unittest.TestCase):
    """The same cases on two daemons sharing one PostgreSQL database: keys made through one
    node work on the other, and B calls the node A did not."""

    @classmethod
    def setUpClass(cls):
        cls.server = PostgresServer()
        cls.tmp = tempfile.mkdtemp(prefix="tc-tenants-pg-")
        cls.daemons = []
        try:
            cls.media = os.path.join(cls.tmp, "media")
            media_tree(cls.media)
            url = cls.server.url(cls.server.create_database())
            for node in ("node-a", "node-b"):
                cls.daemons.append(RealDaemon(
                    token=ADMIN_TOKEN, media=cls.media, env=HOLD, node_id=node, metrics=True,
                    extra_args=["--store", url, "--http-listen", "127.0.0.1:0"]))
            cls.stubs = os.path.join(cls.tmp, "stubs")
            transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
            cls.pb = transcoded_client.load(cls.stubs)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for daemon in cls.daemons:
            daemon.stop()
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.fleet = Fleet(self, self.daemons, self.media, self.stubs)
        if not hasattr(PostgresTenantsTest, "keys"):
            PostgresTenantsTest.keys = (
                self.fleet.make_tenant("team-a", os.path.join(self.media, "a")),
                self.fleet.make_tenant("team-b", os.path.join(self.media, "b")))
        self.key_a, self.key_b = PostgresTenantsTest.keys


if __name__ == "__main__":
    visible_skips.main()
