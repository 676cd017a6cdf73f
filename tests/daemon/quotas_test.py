#!/usr/bin/python3
"""Quotas (issue 42, docs/tenants.md#quotas) as a tenant and its CLI see them, on a daemon whose
store is PostgreSQL, the quotas set as an operator does: `transcode tenants create/update` flags
(CreateTenant, UpdateTenant):

- `transcode submit` past max_queued exits 9 (refused by a limit) with a message naming
  max_queued; CreateJob over HTTP is 429; raising the limit lets the next submit pass;
- a tenant with max_running 1 and 3 jobs never runs 2 at once (read from ListJobs), and its queued
  jobs' waiting_reason names max_running;
- `transcode tenants update` sets what it is given and keeps the rest, `tenants list` (and --json)
  shows the weight and quotas ("-" for none); a bad number is exit 2 naming its flag before any
  call, and the daemon refuses one INVALID_ARGUMENT naming the field; a tenant's own key gets
  PERMISSION_DENIED; an unknown tenant NOT_FOUND.
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
import transcoded_client  # noqa: E402

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]
ADMIN_TOKEN = "static-admin-token-quotas"
HOLD = {"TC_TEST_FAULT": "hold:held"}  # a job whose input names "held" runs until released
WAIT_S = 300  # a deadline against a hang on a loaded machine, not a figure
EXIT_LIMIT = 9  # service/common/exit_codes.h kExitLimit


@unittest.skipIf(PostgresServer.unavailable(), PostgresServer.unavailable())
class QuotasTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = PostgresServer()
        cls.tmp = tempfile.mkdtemp(prefix="tc-quotas-")
        cls.daemon = None
        try:
            cls.media = os.path.join(cls.tmp, "media")
            os.makedirs(cls.media)
            make_clip(os.path.join(cls.media, "held.mp4"))
            cls.database = cls.server.create_database()
            cls.daemon = RealDaemon(
                token=ADMIN_TOKEN, media=cls.media, env=HOLD,
                extra_args=["--store", cls.server.url(cls.database), "--http-listen",
                            "127.0.0.1:0", "--slots", "3"])
            cls.stubs = os.path.join(cls.tmp, "stubs")
            transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
            cls.pb = transcoded_client.load(cls.stubs)
            cls.admin_file = os.path.join(cls.tmp, "admin")
            with open(cls.admin_file, "w") as f:
                f.write(ADMIN_TOKEN + "\n")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.daemon:
            open(os.path.join(cls.media, "held.mp4.release"), "w").close()
            cls.daemon.stop()
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def transcode(self, *args, token_file=None):
        done = subprocess.run([TRANSCODE, *args, "--server", self.daemon.address,
                               "--token-file", token_file or self.admin_file],
                              cwd=self.media, capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr

    def make_tenant(self, name, **limits):
        flags = [a for k, v in limits.items() for a in ("--" + k.replace("_", "-"), str(v))]
        code, _, err = self.transcode("tenants", "create", name, "--media-root", self.media,
                                      *flags)
        self.assertEqual(code, 0, err)
        code, out, err = self.transcode("tenants", "key-create", name)
        self.assertEqual(code, 0, err)
        key_file = os.path.join(self.tmp, name + ".key")
        with open(key_file, "w") as f:
            f.write(out.strip() + "\n")
        return out.strip(), key_file

    def submit_cli(self, key_file, n):
        return self.transcode("submit", os.path.join(self.media, "held.mp4"), "-o",
                              os.path.join(self.media, f"out-{n}.mkv"), token_file=key_file)

    def states(self, client):
        return [j.state for j in client.list(page_size=500).jobs]

    def wait_running(self, client, count):
        deadline = time.monotonic() + WAIT_S
        while self.states(client).count(self.pb.job_pb2.JOB_STATE_RUNNING) < count:
            self.assertLess(time.monotonic(), deadline, f"{count} running jobs")
            time.sleep(0.1)

    def cancel_all(self, client):
        live = (self.pb.job_pb2.JOB_STATE_QUEUED, self.pb.job_pb2.JOB_STATE_RUNNING)
        for job in client.list(page_size=500).jobs:
            if job.state in live:
                client.cancel(job.id)

    def test_past_max_queued_submit_exits_9_http_429_and_a_raised_limit_lets_it_pass(self):
        key, key_file = self.make_tenant("team-q", max_queued=1, max_running=1)
        client = transcoded_client.Client(self.daemon.address, token=key, stubs_dir=self.stubs)
        try:
            code, _, err = self.submit_cli(key_file, "q1")  # runs (its one running place)
            self.assertEqual(code, 0, err)
            self.wait_running(client, 1)
            code, _, err = self.submit_cli(key_file, "q2")  # queued: its one queued place
            self.assertEqual(code, 0, err)
            code, _, err = self.submit_cli(key_file, "q3")
            self.assertEqual(code, EXIT_LIMIT, err)
            self.assertIn("max_queued", err)
            self.assertIn("when one of them starts or is cancelled", err)
            body = {"config": {"input": os.path.join(self.media, "held.mp4"),
                               "outputs": [{"path": os.path.join(self.media, "out-h.mkv"),
                                            "codec": "h264"}]}}
            request = urllib.request.Request(
                f"http://{self.daemon.http_address}/v1/jobs", method="POST",
                data=json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=60)
            self.assertEqual(refused.exception.code, 429)
            self.assertIn("max_queued", refused.exception.read().decode())
            code, out, err = self.transcode("tenants", "update", "team-q", "--max-queued", "5")
            self.assertEqual(code, 0, err)
            self.assertIn("max queued 5, max running 1", out)
            code, _, err = self.submit_cli(key_file, "q4")
            self.assertEqual(code, 0, err)
        finally:
            self.cancel_all(client)

    def test_max_running_1_never_runs_two_and_the_queued_say_why(self):
        key, key_file = self.make_tenant("team-r", max_running=1)
        client = transcoded_client.Client(self.daemon.address, token=key, stubs_dir=self.stubs)
        try:
            for n in range(3):
                code, _, err = self.submit_cli(key_file, f"r{n}")
                self.assertEqual(code, 0, err)
            self.wait_running(client, 1)
            # The node has 3 slots and nothing else to run; the quota keeps it at one.
            for _ in range(20):
                running = self.states(client).count(self.pb.job_pb2.JOB_STATE_RUNNING)
                self.assertLessEqual(running, 1)
                time.sleep(0.1)
            queued = [j for j in client.list(page_size=500).jobs
                      if j.state == self.pb.job_pb2.JOB_STATE_QUEUED]
            self.assertEqual(len(queued), 2)
            for job in queued:
                self.assertIn("tenant team-r runs 1 job, its max_running is 1",
                              client.get(job.id).waiting_reason)
        finally:
            self.cancel_all(client)

    def tenant_line(self, name):
        code, out, err = self.transcode("tenants", "list")
        self.assertEqual(code, 0, err)
        lines = [line for line in out.splitlines() if line.startswith(name + ": ")]
        self.assertEqual(len(lines), 1, out)
        return lines[0]

    def test_update_sets_what_it_is_given_and_list_shows_weight_and_quotas(self):
        self.make_tenant("team-m", weight=3, max_queued=4)
        self.assertIn("weight 3, max queued 4, max running -, engine-seconds per day -",
                      self.tenant_line("team-m"))
        code, out, err = self.transcode("tenants", "update", "team-m", "--max-running", "2",
                                        "--engine-seconds-per-day", "1000000000000")
        self.assertEqual(code, 0, err)
        expected = "weight 3, max queued 4, max running 2, engine-seconds per day 1000000000000"
        self.assertIn(expected, out)
        self.assertIn(expected, self.tenant_line("team-m"))
        code, out, err = self.transcode("tenants", "update", "team-m", "--max-queued", "0")
        self.assertEqual(code, 0, err)
        self.assertIn("max queued -, max running 2", self.tenant_line("team-m"), "0: none")
        code, out, err = self.transcode("tenants", "list", "--json")
        self.assertEqual(code, 0, err)
        listed = {t["id"]: t for t in json.loads(out)["tenants"]}
        self.assertEqual(listed["team-m"]["weight"], 3)
        self.assertEqual(int(listed["team-m"].get("max_queued", 0)), 0)
        self.assertEqual(int(listed["team-m"]["max_running"]), 2)
        self.assertEqual(int(listed["team-m"]["engine_seconds_per_day"]), 10**12)

    def test_bad_limits_are_refused_naming_the_flag_or_field(self):
        self.make_tenant("team-bad")
        before = self.tenant_line("team-bad")
        for flag, value in (("--weight", "0"), ("--weight", "1001"), ("--max-queued", "-1"),
                            ("--max-running", "junk"), ("--max-queued", "1000000001"),
                            ("--engine-seconds-per-day", "1000000000001"),
                            ("--max-running", "99999999999999999999999")):
            for command in ("update", "create"):
                name = "team-bad" if command == "update" else "team-bad2"
                code, _, err = self.transcode("tenants", command, name, flag, value)
                self.assertEqual(code, 2, f"{command} {flag} {value}: {err}")
                self.assertIn(flag, err)
        code, _, err = self.transcode("tenants", "update", "team-bad")
        self.assertEqual(code, 2, err)
        self.assertIn("at least one of --weight", err)
        self.assertEqual(self.tenant_line("team-bad"), before, "nothing was changed")
        code, _, err = self.transcode("tenants", "update", "team-none", "--weight", "2")
        self.assertEqual(code, 2, err)
        self.assertIn("not found", err)
        # The daemon's own bounds, for a client that is not the CLI.
        with transcoded_client.Client(self.daemon.address, token=ADMIN_TOKEN,
                                      stubs_dir=self.stubs) as admin:
            self.daemon_refuses(admin)
        self.assertEqual(self.tenant_line("team-bad"), before, "nothing was changed")

    def daemon_refuses(self, admin):
        for field, value in (("weight", 1001), ("max_queued", 10**9 + 1), ("max_running", -1),
                             ("engine_seconds_per_day", 10**12 + 1)):
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                admin.update_tenant("team-bad", **{field: value})
            self.assertEqual(refused.exception.code.name, "INVALID_ARGUMENT", field)
            self.assertEqual(refused.exception.field, field)
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                admin.create_tenant("team-bad2", **{field: value})
            self.assertEqual(refused.exception.field, field)
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            admin.update_tenant("team-none", weight=2)
        self.assertEqual(refused.exception.code.name, "NOT_FOUND")

    def test_a_tenants_own_key_cannot_change_its_limits(self):
        key, key_file = self.make_tenant("team-own", max_running=1)
        code, _, err = self.transcode("tenants", "update", "team-own", "--max-running", "0",
                                      token_file=key_file)
        self.assertEqual(code, 2, err)
        self.assertIn("not an admin", err)
        with transcoded_client.Client(self.daemon.address, token=key,
                                      stubs_dir=self.stubs) as team:
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                team.update_tenant("team-own", max_running=0)
        self.assertEqual(refused.exception.code.name, "PERMISSION_DENIED")
        self.assertIn("max running 1", self.tenant_line("team-own"))


if __name__ == "__main__":
    visible_skips.main()
