#!/usr/bin/python3
"""Webhooks on a real daemon, POSTing to a real HTTP receiver on 127.0.0.1: every state change of
a job arrives once, in order, signed with the secret (HMAC-SHA256 over the exact body), the
body being the Job as GetJob returns it; a receiver that fails at first gets every change after
retries; a notice not delivered before a restart is delivered after it; bad URLs and a daemon
without a secret are refused."""
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402
from google.protobuf import json_format  # noqa: E402

SECRET = "whsec-7f3a"
TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")
EXIT_USAGE = 2


class Receiver:
    """An HTTP server that records each POST; answers 500 while `failing` says so."""

    def __init__(self, failures=0):
        self.failures = failures  # requests to answer 500 before answering 200
        self.delivered = []  # (headers, body) of the POSTs answered 200, in arrival order
        self.refused = []  # delivery ids answered 500
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    fail = receiver.failures > 0
                    if fail:
                        receiver.failures -= 1
                        receiver.refused.append(self.headers["X-Transcoded-Delivery"])
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
            f.write(SECRET + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.stubs.cleanup()
        cls.secret_dir.cleanup()

    def setUp(self):
        self.daemon = RealDaemon(extra_args=["--webhook-secret-file", self.secret_file])
        self.client = transcoded_client.Client(self.daemon.address, stubs_dir=self.stubs.name)
        self.pb = self.client.pb
        self.receivers = []

    def tearDown(self):
        self.client.close()
        self.daemon.stop()
        for receiver in self.receivers:
            receiver.close()

    def receiver(self, failures=0):
        receiver = Receiver(failures)
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
            expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
            self.assertTrue(hmac.compare_digest(headers["X-Transcoded-Signature"], expected))
            self.assertEqual(headers["Content-Type"], "application/json")
            job = json.loads(body)
            self.assertEqual(job["id"], job_id)
            self.assertEqual(headers["X-Transcoded-Event"],
                             job["state"].removeprefix("JOB_STATE_").lower())
            events.append(headers["X-Transcoded-Event"])
        ids = [headers["X-Transcoded-Delivery"] for headers, _ in deliveries]
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
        self.assertEqual(final, json_format.MessageToDict(self.client.get(job_id)))
        self.assertEqual(final["webhookUrl"], receiver.url)

    def test_a_receiver_that_fails_at_first_gets_every_change_after_retries(self):
        receiver = self.receiver(failures=2)
        job_id = self.run_job(receiver.url, "retried.mp4")
        deliveries = receiver.wait_for(3)
        self.assertEqual(self.check_deliveries(deliveries, job_id),
                         ["queued", "running", "succeeded"])
        self.assertEqual(len(receiver.refused), 2)
        # The refused notice came again under its own id: the receiver can de-duplicate.
        self.assertEqual(receiver.refused[0], deliveries[0][0]["X-Transcoded-Delivery"])

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

    def test_bad_urls_are_invalid_argument_naming_the_field(self):
        out = os.path.join(self.daemon.media, "bad.mp4")
        for url in ["ftp://127.0.0.1/hook", "127.0.0.1:8080/hook", "file:///etc/passwd",
                    "http://" + "h" * 3000 + ".example/"]:
            with self.assertRaises(transcoded_client.TranscodedError) as caught:
                self.client.submit(self.daemon.input, [out], webhook_url=url)
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT, url)
            self.assertEqual(caught.exception.field, "webhook_url")
        # The command line's flag, the same check.
        cli = subprocess.run([TRANSCODE, "submit", self.daemon.input, out, "--webhook",
                              "gopher://127.0.0.1/", "--server", self.daemon.address],
                             capture_output=True, text=True)
        self.assertEqual(cli.returncode, EXIT_USAGE, cli.stderr)
        self.assertIn("webhook_url", cli.stderr)


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
