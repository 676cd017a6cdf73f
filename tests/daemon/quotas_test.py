#!/usr/bin/python3
"""Quotas (issue 42, docs/tenants.md#quotas) as a tenant and its CLI see them, on a daemon whose
store is PostgreSQL (the quotas are set on the tenants table with SQL, as an operator does until
UpdateTenant exists):

- `transcode submit` past max_queued exits 9 (refused by a limit) with a message naming
  max_queued; CreateJob over HTTP is 429; raising the limit lets the next submit pass;
- a tenant with max_running 1 and 3 jobs never runs 2 at once (read from ListJobs), and its queued
  jobs' waiting_reason names max_running.
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

    def make_tenant(self, name, **quotas):
        code, _, err = self.transcode("tenants", "create", name, "--media-root", self.media)
        self.assertEqual(code, 0, err)
        sets = ", ".join(f"{k} = {v}" for k, v in quotas.items())
        self.server.sql(self.database, f"UPDATE tenants SET {sets} WHERE id = '{name}'")
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
            self.server.sql(self.database, "UPDATE tenants SET max_queued = 5 WHERE id = 'team-q'")
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


if __name__ == "__main__":
    visible_skips.main()
