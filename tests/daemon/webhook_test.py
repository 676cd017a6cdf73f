#!/usr/bin/python3
"""Webhooks on a real daemon, POSTing to a real HTTP receiver on 127.0.0.1 (opened with
--webhook-allow 127.0.0.1/32): every state change of a job arrives once, in order, signed as
Standard Webhooks with both configured secrets (checked by docs/daemon.md's own verification example),
the body being the Job as GetJob returns it; a receiver that fails at first gets every change
after retries; a notice not delivered before a restart is delivered after it; bad URLs (and
credentials) and a daemon without a secret are refused; without the allow-list a loopback
receiver is never reached and the notice is given up with the reason."""
import base64
import http.server
import json
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402
from google.protobuf import json_format  # noqa: E402

# Rotation: the file's two lines both sign each delivery; a receiver knowing either verifies.
SECRET = "whsec_" + base64.b64encode(b"the new key of the webhook test").decode()
OLD_SECRET = "whsec-7f3a"
LOOPBACK_ONLY = ["--webhook-allow", "127.0.0.1/32"]
TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")
EXIT_USAGE = 2


class Receiver:
    """An HTTP server that records each POST; answers 500 while `failing` says so."""

    def __init__(self, failures=0, latch=None):
        self.failures = failures  # requests to answer 500 before answering 200
        self.delivered = []  # (headers, body) of the POSTs answered 200, in arrival order
        self.refused = []  # delivery ids answered 500
        # With a latch, each POST is answered only once it is set: `held` counts the POSTs that
        # waited, `dropped` those the daemon gave up on (closed) while they waited.
        self.latch = latch
        self.held = self.dropped = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.latch and not receiver.wait_for_latch(self.connection):
                    return
                with receiver.lock:
                    fail = receiver.failures > 0
                    if fail:
                        receiver.failures -= 1
                        receiver.refused.append(self.headers["webhook-id"])
                    else:
                        receiver.delivered.append((dict(self.headers), body))
                self.send_response(500 if fail else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/transcoded"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for_latch(self, connection):
        """False when the daemon closed the connection before the latch was set."""
        with self.lock:
            self.held += 1
        while not self.latch.wait(0.05):
            readable, _, _ = select.select([connection], [], [], 0)
            if readable and connection.recv(1, socket.MSG_PEEK) == b"":
                with self.lock:
                    self.dropped += 1
                return False
        return True

    def wait_for(self, count, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.delivered) >= count:
                    break
            time.sleep(0.1)
        time.sleep(1)  # anything beyond `count` (a duplicate) would arrive now
        with self.lock:
            return list(self.delivered)

    def close(self):
        if self.latch:
            self.latch.set()
        self.server.shutdown()
        self.server.server_close()


class WebhookTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stubs = tempfile.TemporaryDirectory(prefix="tc-wh-stubs-")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs.name)
        cls.secret_dir = tempfile.TemporaryDirectory(prefix="tc-wh-secret-")
        cls.secret_file = os.path.join(cls.secret_dir.name, "webhook-secret")
        with open(cls.secret_file, "w") as f:
            f.write(SECRET + "\n" + OLD_SECRET + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.stubs.cleanup()
        cls.secret_dir.cleanup()

    def setUp(self):
        self.daemon = RealDaemon(
            metrics=True, extra_args=["--webhook-secret-file", self.secret_file] + LOOPBACK_ONLY)
        self.client = transcoded_client.Client(self.daemon.address, stubs_dir=self.stubs.name)
        self.pb = self.client.pb
        self.receivers = []

    def tearDown(self):
        self.client.close()
        self.daemon.stop()
        for receiver in self.receivers:
            receiver.close()

    def receiver(self, failures=0, latch=None):
        receiver = Receiver(failures, latch)
        self.receivers.append(receiver)
        return receiver

    def run_job(self, url, name):
        out = os.path.join(self.daemon.media, name)
        job = self.client.submit(self.daemon.input,
                                 [self.client.output(out, codec="h264", width=160, height=120)],
                                 webhook_url=url)
        final = self.client.wait(job.id, timeout=240)
        self.assertEqual(final.state, self.pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
        return job.id

    def check_deliveries(self, deliveries, job_id):
        """Each delivery is signed, JSON of the job, once; returns the events in order."""
        events = []
        for headers, body in deliveries:
            headers = {name.lower(): value for name, value in headers.items()}
            self.assertTrue(verify(SECRET, headers, body))
            self.assertTrue(verify(OLD_SECRET, headers, body))
            self.assertFalse(verify("whsec_" + base64.b64encode(b"another").decode(), headers,
                                    body))
            # The id and the timestamp are signed: changed, the delivery no longer verifies.
            self.assertFalse(verify(SECRET, dict(headers, **{"webhook-id": "d-forged"}), body))
            forged = str(int(headers["webhook-timestamp"]) + 1)
            self.assertFalse(verify(SECRET, dict(headers, **{"webhook-timestamp": forged}), body))
            self.assertEqual(headers["content-type"], "application/json")
            job = json.loads(body)
            self.assertEqual(job["id"], job_id)
            events.append(job["state"].removeprefix("JOB_STATE_").lower())
        ids = [headers["webhook-id"] for headers, _ in deliveries]
        self.assertEqual(len(ids), len(set(ids)), ids)
        return events

    def test_every_state_change_arrives_once_in_order_signed_as_the_job_json(self):
        receiver = self.receiver()
        job_id = self.run_job(receiver.url, "once.mp4")
        deliveries = receiver.wait_for(3)
        self.assertEqual(self.check_deliveries(deliveries, job_id),
                         ["queued", "running", "succeeded"])
        # The last body is the Job GetJob returns now, field for field.
        final = json.loads(deliveries[-1][1])
        # The proto's own field names, as `transcode --json` and job files spell them.
        self.assertEqual(final, json_format.MessageToDict(self.client.get(job_id),
                                                          preserving_proto_field_name=True))
        self.assertEqual(final["webhook_url"], receiver.url)
        self.assertNotIn("webhookUrl", final)

    def tenant_deliveries(self, team, receiver, name, count):
        """Runs a job of `team` (a Client with a tenant's key) with a webhook; its notices."""
        out = os.path.join(self.daemon.media, name)
        job = team.submit(self.daemon.input, [team.output(out, codec="h264", width=160,
                                                          height=120)], webhook_url=receiver.url)
        final = team.wait(job.id, timeout=240)
        self.assertEqual(final.state, self.pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
        deliveries = receiver.wait_for(count)[count - 3:]
        self.assertEqual([json.loads(body)["id"] for _, body in deliveries], [job.id] * 3)
        return [({k.lower(): v for k, v in headers.items()}, body) for headers, body in deliveries]

    def test_a_tenants_notices_verify_with_its_own_secret_and_not_the_nodes(self):
        receiver = self.receiver()
        tenant = self.client.create_tenant("team-a", media_roots=[self.daemon.media])
        self.assertRegex(tenant.webhook_secret, r"^whsec_[A-Za-z0-9+/]{43}=$")
        self.assertNotIn(tenant.webhook_secret, [SECRET, OLD_SECRET])
        self.assertEqual({t.id: t.webhook_secret for t in self.client.list_tenants()}["team-a"],
                         "", "the secret is shown once")
        key = self.client.create_api_key("team-a")
        with transcoded_client.Client(self.daemon.address, token=key.key,
                                      stubs_dir=self.stubs.name) as team:
            for headers, body in self.tenant_deliveries(team, receiver, "team-a.mp4", 3):
                self.assertTrue(verify(tenant.webhook_secret, headers, body))
                self.assertFalse(verify(SECRET, headers, body))
                self.assertFalse(verify(OLD_SECRET, headers, body))
            # Rotated: the next notices verify with the new secret alone.
            rotated = self.client.rotate_webhook_secret("team-a")
            self.assertEqual(rotated.tenant, "team-a")
            self.assertNotEqual(rotated.secret, tenant.webhook_secret)
            for headers, body in self.tenant_deliveries(team, receiver, "team-a-2.mp4", 6):
                self.assertTrue(verify(rotated.secret, headers, body))
                self.assertFalse(verify(tenant.webhook_secret, headers, body))
                self.assertFalse(verify(SECRET, headers, body))
            # A tenant cannot rotate (its own or another's): an admin's call.
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                team.rotate_webhook_secret("team-a")
            self.assertEqual(refused.exception.code, grpc.StatusCode.PERMISSION_DENIED)
        # The default tenant's notices stay the node's (today's receivers keep verifying).
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.client.rotate_webhook_secret("default")
        self.assertEqual(refused.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        with self.assertRaises(transcoded_client.TranscodedError) as refused:
            self.client.rotate_webhook_secret("team-z")
        self.assertEqual(refused.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_the_cli_rotates_a_secret_and_prints_it_alone(self):
        self.client.create_tenant("team-cli")
        cli = subprocess.run([TRANSCODE, "tenants", "webhook-secret", "team-cli", "--server",
                              self.daemon.address], capture_output=True, text=True, timeout=60)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertRegex(cli.stdout, r"^whsec_[A-Za-z0-9+/]{43}=\n$")
        self.assertIn("shown once", cli.stderr)
        unknown = subprocess.run([TRANSCODE, "tenants", "webhook-secret", "team-none", "--server",
                                  self.daemon.address], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(unknown.returncode, 0)
        self.assertEqual(unknown.stdout, "")
        self.assertIn("team-none", unknown.stderr)

    def test_a_receiver_that_fails_at_first_gets_every_change_after_retries(self):
        receiver = self.receiver(failures=2)
        job_id = self.run_job(receiver.url, "retried.mp4")
        deliveries = receiver.wait_for(3)
        self.assertEqual(self.check_deliveries(deliveries, job_id),
                         ["queued", "running", "succeeded"])
        self.assertEqual(len(receiver.refused), 2)
        # The refused notice came again under its own id: the receiver can de-duplicate.
        self.assertEqual(receiver.refused[0], deliveries[0][0]["webhook-id"])

    def test_a_notice_undelivered_at_a_restart_is_delivered_after_it(self):
        receiver = self.receiver(failures=10**9)
        job_id = self.run_job(receiver.url, "restart.mp4")
        deadline = time.monotonic() + 30
        while not receiver.refused and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertTrue(receiver.refused, "the daemon never tried the receiver")
        self.client.close()
        self.daemon.restart()
        with receiver.lock:
            receiver.failures = 0
        self.client = transcoded_client.Client(self.daemon.address, stubs_dir=self.stubs.name)
        deliveries = receiver.wait_for(3)
        self.assertEqual(self.check_deliveries(deliveries, job_id),
                         ["queued", "running", "succeeded"])

    def test_a_receiver_that_does_not_answer_delays_no_other_receivers_notices(self):
        latch = threading.Event()
        slow, other = self.receiver(latch=latch), self.receiver()
        out = os.path.join(self.daemon.media, "slow.mp4")
        slow_job = self.client.submit(
            self.daemon.input, [self.client.output(out, codec="h264", width=160, height=120)],
            webhook_url=slow.url).id
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and slow.held == 0:
            time.sleep(0.05)
        self.assertGreater(slow.held, 0, "the slow receiver was never tried")
        other_job = self.run_job(other.url, "other.mp4")
        self.assertEqual(self.check_deliveries(other.wait_for(3), other_job),
                         ["queued", "running", "succeeded"])
        # Every change of the other job arrived while the slow receiver's first POST was still
        # open: nothing waited for it to be answered or given up.
        with slow.lock:
            self.assertEqual((slow.dropped, slow.delivered), (0, []))
        # The metrics show the held job's three notices waiting, then none.
        self.client.wait(slow_job, timeout=240)
        waiting = self.webhook_metrics_once(lambda m: m.get("transcoded_webhook_backlog") == 3)
        self.assertEqual(waiting["transcoded_webhook_backlog"], 3)
        self.assertGreater(waiting["transcoded_webhook_oldest_undelivered_age_seconds"], 0)
        latch.set()
        self.assertEqual(self.check_deliveries(slow.wait_for(3), slow_job),
                         ["queued", "running", "succeeded"])
        drained = self.webhook_metrics_once(lambda m: m.get("transcoded_webhook_backlog") == 0)
        self.assertEqual(drained, {"transcoded_webhook_backlog": 0,
                                   "transcoded_webhook_oldest_undelivered_age_seconds": 0})

    def webhook_metrics_once(self, predicate, timeout=60):
        """The daemon's transcoded_webhook_* samples once `predicate` holds (or at the timeout)."""
        url = f"http://{self.daemon.metrics_address}/metrics"
        deadline = time.monotonic() + timeout
        while True:
            text = urllib.request.urlopen(url, timeout=30).read().decode()
            values = {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
                      if line.startswith("transcoded_webhook_")}
            if predicate(values) or time.monotonic() > deadline:
                return values
            time.sleep(0.2)

    def test_bad_urls_are_invalid_argument_naming_the_field(self):
        out = os.path.join(self.daemon.media, "bad.mp4")
        for url in ["ftp://127.0.0.1/hook", "127.0.0.1:8080/hook", "file:///etc/passwd",
                    "http://" + "h" * 3000 + ".example/", "http://alice:s3cret@127.0.0.1/hook",
                    "http://127.0.0.1/ho\0ok", "http:///x"]:
            with self.assertRaises(transcoded_client.TranscodedError) as caught:
                self.client.submit(self.daemon.input, [out], webhook_url=url)
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT, url)
            self.assertEqual(caught.exception.field, "webhook_url")
            self.assertNotIn("s3cret", str(caught.exception))
        self.assertEqual(len(self.client.list().jobs), 0)
        # The command line's flag, the same check.
        cli = subprocess.run([TRANSCODE, "submit", self.daemon.input, out, "--webhook",
                              "gopher://127.0.0.1/", "--server", self.daemon.address],
                             capture_output=True, text=True)
        self.assertEqual(cli.returncode, EXIT_USAGE, cli.stderr)
        self.assertIn("webhook_url", cli.stderr)


def readme_verify():
    """docs/daemon.md's verification example (Webhooks), exactly as printed there."""
    with open(os.path.join(SOURCE, "docs", "daemon.md")) as f:
        readme = f.read()
    example = re.search(r"```python\n(# Verifying a transcoded webhook.*?)```", readme, re.S)
    assert example, "docs/daemon.md's webhook verification example is missing"
    scope = {}
    exec(example.group(1), scope)
    return scope["verify"]


verify = readme_verify()


class WithoutAllowListTest(unittest.TestCase):
    def test_a_loopback_receiver_is_not_reached_and_the_notice_is_given_up_saying_why(self):
        stubs = tempfile.TemporaryDirectory(prefix="tc-wh-stubs-")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), stubs.name)
        secret_dir = tempfile.TemporaryDirectory(prefix="tc-wh-secret-")
        secret_file = os.path.join(secret_dir.name, "webhook-secret")
        with open(secret_file, "w") as f:
            f.write(SECRET + "\n")
        receiver = Receiver()
        daemon = RealDaemon(extra_args=["--webhook-secret-file", secret_file])
        try:
            with transcoded_client.Client(daemon.address, stubs_dir=stubs.name) as client:
                out = os.path.join(daemon.media, "refused.mp4")
                job = client.submit(daemon.input, [client.output(out, codec="h264", width=160,
                                                                 height=120)],
                                    webhook_url=receiver.url)
                final = client.wait(job.id, timeout=240)
                self.assertEqual(final.state, client.pb.job_pb2.JOB_STATE_SUCCEEDED)
            notices = given_up_notices(daemon)
            self.assertEqual([event for event, _, _ in notices], ["queued", "running", "succeeded"])
            for _, status, error in notices:
                self.assertEqual(status, NOTICE_GIVEN_UP)
                self.assertIn("127.0.0.1 is loopback", error)
            with receiver.lock:
                self.assertEqual((receiver.delivered, receiver.refused), ([], []))
        finally:
            daemon.stop()
            receiver.close()
            stubs.cleanup()
            secret_dir.cleanup()


NOTICE_PENDING, NOTICE_GIVEN_UP = 0, 2


def given_up_notices(daemon):
    """The outbox's (event, status, last_error) rows once none is pending. The store is locked
    while the daemon runs, so it is read between a stop and a start of the same daemon, each
    start given a moment to deliver (a wait, not a bound: it loops until done)."""
    while True:
        time.sleep(1)
        daemon.process.send_signal(signal.SIGTERM)
        daemon.process.wait(timeout=60)
        db = sqlite3.connect(os.path.join(daemon.tmp, "state", "jobs.sqlite3"))
        try:
            rows = db.execute("SELECT event, status, last_error FROM notifications "
                              "ORDER BY id").fetchall()
        finally:
            db.close()  # the daemon takes the store for itself
        if all(status != NOTICE_PENDING for _, status, _ in rows):
            return rows
        daemon.restart()


class WithoutSecretTest(unittest.TestCase):
    def test_a_webhook_job_is_failed_precondition_without_a_secret(self):
        stubs = tempfile.TemporaryDirectory(prefix="tc-wh-stubs-")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), stubs.name)
        daemon = RealDaemon()
        try:
            with transcoded_client.Client(daemon.address, stubs_dir=stubs.name) as client:
                out = os.path.join(daemon.media, "nosecret.mp4")
                with self.assertRaises(transcoded_client.TranscodedError) as caught:
                    client.submit(daemon.input, [out], webhook_url="http://127.0.0.1:9/")
                self.assertEqual(caught.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
                self.assertIn("webhook_secret_file", str(caught.exception))
                self.assertEqual(len(client.list().jobs), 0)
        finally:
            daemon.stop()
            stubs.cleanup()


if __name__ == "__main__":
    unittest.main()
