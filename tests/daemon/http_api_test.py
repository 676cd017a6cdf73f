#!/usr/bin/python3
"""The HTTP/JSON API (issue 41) with curl against a real daemon: every route of http.proto, the
gRPC API's token, request checks and error details as HTTP statuses and google.rpc.Status-shaped
bodies, server-sent events for watch, HTTPS with the daemon's certificate, and docs/openapi.json
as `transcoded --openapi` writes it."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_daemon import RealDaemon, SOURCE, TRANSCODED, make_clip  # noqa: E402


def curl(url, method="GET", body=None, token=None, extra=()):
    """(HTTP status, body text) of one curl call; status 0 when curl itself failed."""
    command = ["curl", "-sS", "-N", "--max-time", "120", "-X", method, "-o", "-", "-w",
               "\n%{http_code}"] + list(extra)
    if body is not None:
        command += ["-H", "Content-Type: application/json", "--data-binary", body]
    if token is not None:
        command += ["-H", f"Authorization: Bearer {token}"]
    done = subprocess.run(command + [url], capture_output=True, text=True, timeout=180)
    text, _, code = done.stdout.rpartition("\n")
    return int(code or 0), text


def events(text):
    """The JSON of each `data:` line of a server-sent-events body."""
    return [json.loads(line[len("data: "):]) for line in text.splitlines()
            if line.startswith("data: ")]


def ffprobe_video(path):
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=codec_name,width,height", "-of", "json", path],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["streams"][0]


class HttpApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon(extra_args=["--http-listen", "127.0.0.1:0"])
        cls.base = f"http://{cls.daemon.http_address}"

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def create(self, input_path, name, width=160):
        out = os.path.join(self.daemon.media, name)
        body = {"config": {"input": input_path,
                           "outputs": [{"path": out, "codec": "h264", "width": width,
                                        "height": width * 3 // 4}]}}
        code, text = curl(self.base + "/v1/jobs", "POST", json.dumps(body))
        self.assertEqual(code, 200, text)
        return json.loads(text), out

    def watch_to_end(self, job_id):
        code, text = curl(f"{self.base}/v1/jobs/{job_id}:watch")
        self.assertEqual(code, 200, text)
        stream = events(text)
        self.assertEqual(stream[0]["kind"], "KIND_SNAPSHOT")
        return stream

    def test_create_watch_get_list(self):
        job, out = self.create(self.daemon.input, "created.mp4")
        self.assertTrue(job["id"])
        stream = self.watch_to_end(job["id"])
        self.assertEqual(stream[-1]["job"]["state"], "JOB_STATE_SUCCEEDED", stream[-1])
        self.assertEqual(ffprobe_video(out), {"codec_name": "h264", "width": 160, "height": 120})
        code, text = curl(f"{self.base}/v1/jobs/{job['id']}")
        self.assertEqual(code, 200, text)
        self.assertEqual(json.loads(text)["state"], "JOB_STATE_SUCCEEDED")
        code, text = curl(f"{self.base}/v1/jobs?state=JOB_STATE_SUCCEEDED")
        self.assertEqual(code, 200, text)
        listed = json.loads(text)["jobs"]
        self.assertIn(job["id"], [j["id"] for j in listed])
        self.assertEqual({j["state"] for j in listed}, {"JOB_STATE_SUCCEEDED"})

    def test_cancel_and_pages(self):
        long_clip = os.path.join(self.daemon.media, "long.mp4")
        make_clip(long_clip, seconds=60, size="1280x720")
        job, _ = self.create(long_clip, "cancelled.mp4", width=1280)
        code, text = curl(f"{self.base}/v1/jobs/{job['id']}:cancel", "POST", "{}")
        self.assertEqual(code, 200, text)
        stream = self.watch_to_end(job["id"])
        self.assertEqual(stream[-1]["job"]["state"], "JOB_STATE_CANCELLED", stream[-1])
        code, text = curl(f"{self.base}/v1/jobs?state=JOB_STATE_CANCELLED")
        self.assertEqual([j["id"] for j in json.loads(text)["jobs"]], [job["id"]])
        # Every job, a page of one at a time, by page_token.
        seen, token = [], ""
        while True:
            code, text = curl(f"{self.base}/v1/jobs?page_size=1&page_token={token}")
            self.assertEqual(code, 200, text)
            page = json.loads(text)
            self.assertEqual(len(page["jobs"]), 1, page)
            seen.append(page["jobs"][0]["id"])
            token = page.get("nextPageToken", "")
            if not token:
                break
        code, text = curl(f"{self.base}/v1/jobs?page_size=500")
        self.assertEqual(seen, [j["id"] for j in json.loads(text)["jobs"]])
        self.assertIn(job["id"], seen)
        self.assertGreaterEqual(len(seen), 1)

    def test_cancel_of_an_ended_job_is_400_job_ended(self):
        job, _ = self.create(self.daemon.input, "ended.mp4")
        self.watch_to_end(job["id"])
        code, text = curl(f"{self.base}/v1/jobs/{job['id']}:cancel", "POST", "{}")
        self.assertEqual(code, 400, text)  # FAILED_PRECONDITION
        self.assertEqual(json.loads(text)["details"][0]["reason"], "JOB_ENDED")

    def test_capabilities_and_nodes(self):
        code, text = curl(self.base + "/v1/capabilities")
        self.assertEqual(code, 200, text)
        self.assertIn("software", json.loads(text)["backends"])
        code, text = curl(self.base + "/v1/nodes")
        self.assertEqual(code, 200, text)
        self.assertEqual(len(json.loads(text)["nodes"]), 1, text)

    def test_a_tenants_webhook_secret_is_made_and_rotated_over_http(self):
        code, text = curl(self.base + "/v1/tenants", "POST", json.dumps({"id": "team-http"}))
        self.assertEqual(code, 200, text)
        made = json.loads(text)["webhookSecret"]
        self.assertRegex(made, r"^whsec_[A-Za-z0-9+/]{43}=$")
        code, text = curl(self.base + "/v1/tenants/team-http/webhook-secret:rotate", "POST", "{}")
        self.assertEqual(code, 200, text)
        rotated = json.loads(text)
        self.assertEqual(rotated["tenant"], "team-http")
        self.assertRegex(rotated["secret"], r"^whsec_")
        self.assertNotEqual(rotated["secret"], made)
        for tenant, status in (("default", 400), ("team-none", 404)):
            code, text = curl(f"{self.base}/v1/tenants/{tenant}/webhook-secret:rotate", "POST",
                              "{}")
            self.assertEqual(code, status, text)
            self.assertEqual(json.loads(text)["details"][0]["field"], "tenant")

    def test_a_tenants_weight_and_quotas_are_updated_over_http(self):
        code, text = curl(self.base + "/v1/tenants", "POST",
                          json.dumps({"id": "team-upd", "maxQueued": "4"}))
        self.assertEqual(code, 200, text)
        code, text = curl(self.base + "/v1/tenants/team-upd:update", "POST",
                          json.dumps({"maxRunning": "2", "weight": 5}))
        self.assertEqual(code, 200, text)
        tenant = json.loads(text)
        self.assertEqual((tenant["id"], tenant["weight"], tenant["maxQueued"], tenant["maxRunning"]),
                         ("team-upd", 5, "4", "2"), "what is not given is kept")
        for tenant, body, status, field in (("team-upd", {"weight": 0}, 400, "weight"),
                                            ("team-upd", {"maxQueued": "-1"}, 400, "max_queued"),
                                            ("team-none", {"weight": 2}, 404, "tenant")):
            code, text = curl(f"{self.base}/v1/tenants/{tenant}:update", "POST", json.dumps(body))
            self.assertEqual(code, status, text)
            self.assertEqual(json.loads(text)["details"][0]["field"], field)

    def test_unknown_job_is_404_with_the_reason(self):
        for url in (f"{self.base}/v1/jobs/nosuchjob", f"{self.base}/v1/jobs/nosuchjob:watch"):
            code, text = curl(url)
            self.assertEqual(code, 404, text)
            status = json.loads(text)
            self.assertEqual(status["code"], 5)  # NOT_FOUND
            self.assertEqual(status["details"][0]["reason"], "JOB_NOT_FOUND")

    def test_nul_in_a_field_is_400_naming_it(self):
        body = {"config": {"input": "in\u0000.mp4", "outputs": [{"path": "/x/o.mp4"}]}}
        code, text = curl(self.base + "/v1/jobs", "POST", json.dumps(body))
        self.assertEqual(code, 400, text)
        detail = json.loads(text)["details"][0]
        self.assertEqual((detail["reason"], detail["field"]), ("INVALID_FIELD", "config.input"))

    def test_unknown_json_key_is_400(self):
        body = {"config": {"input": self.daemon.input, "outputs": [{"path": "/x/o.mp4"}]},
                "priorty": 3}
        code, text = curl(self.base + "/v1/jobs", "POST", json.dumps(body))
        self.assertEqual(code, 400, text)
        self.assertEqual(json.loads(text)["code"], 3)  # INVALID_ARGUMENT
        self.assertIn("priorty", json.loads(text)["message"])
        code, text = curl(self.base + "/v1/jobs?stat=JOB_STATE_QUEUED")
        self.assertEqual(code, 400, text)
        self.assertIn("stat", json.loads(text)["message"])

    def test_unknown_route_is_404_and_wrong_verb_405(self):
        code, text = curl(self.base + "/v1/nothing")
        self.assertEqual(code, 404, text)
        self.assertEqual(json.loads(text)["code"], 5)
        code, text = curl(self.base + "/v1/capabilities", "POST", "{}")
        self.assertEqual(code, 405, text)

    def test_a_body_over_the_grpc_message_bound_is_413(self):
        body = json.dumps({"requestId": "x" * (5 << 20)})
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write(body)
            f.flush()
            code, text = curl(self.base + "/v1/jobs", "POST", "@" + f.name)
        self.assertEqual(code, 413, text)
        self.assertEqual(json.loads(text)["code"], 8)  # RESOURCE_EXHAUSTED


class HttpTokenTest(unittest.TestCase):
    def test_missing_or_wrong_token_is_401(self):
        daemon = RealDaemon(token="s3cret", extra_args=["--http-listen", "127.0.0.1:0"])
        try:
            url = f"http://{daemon.http_address}/v1/capabilities"
            for token in (None, "wrong"):
                code, text = curl(url, token=token)
                self.assertEqual(code, 401, text)
                self.assertEqual(json.loads(text)["details"][0]["reason"], "UNAUTHENTICATED")
            code, text = curl(url, token="s3cret")
            self.assertEqual(code, 200, text)
        finally:
            daemon.stop()


class HttpsTest(unittest.TestCase):
    def test_https_with_the_daemons_certificate(self):
        with tempfile.TemporaryDirectory(prefix="tc-http-tls-") as tmp:
            cert, key = os.path.join(tmp, "tls.crt"), os.path.join(tmp, "tls.key")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                            "1", "-subj", "/CN=localhost", "-addext",
                            "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
                           check=True, capture_output=True)
            daemon = RealDaemon(extra_args=["--tls-cert", cert, "--tls-key", key,
                                            "--http-listen", "127.0.0.1:0"])
            try:
                address = daemon.http_address
                code, text = curl(f"https://{address}/v1/capabilities", extra=["--cacert", cert])
                self.assertEqual(code, 200, text)
                self.assertIn("software", json.loads(text)["backends"])
                code, _ = curl(f"http://{address}/v1/capabilities")
                self.assertNotEqual(code, 200)  # no plaintext beside TLS
            finally:
                daemon.stop()


class OpenApiTest(unittest.TestCase):
    def test_docs_openapi_json_is_what_the_binary_writes(self):
        written = subprocess.run([TRANSCODED, "--openapi"], capture_output=True, text=True,
                                 check=True).stdout
        with open(os.path.join(SOURCE, "docs", "openapi.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), written,
                             "docs/openapi.json is stale: transcoded --openapi > docs/openapi.json")
        document = json.loads(written)
        self.assertEqual(sorted(document["paths"]),
                         ["/v1/capabilities", "/v1/jobs", "/v1/jobs/{id}", "/v1/jobs/{id}/logs",
                          "/v1/jobs/{id}:cancel", "/v1/jobs/{id}:watch",
                          "/v1/keys/{key_id}:revoke", "/v1/nodes", "/v1/presets", "/v1/tenants",
                          "/v1/tenants/{tenant}/keys",
                          "/v1/tenants/{tenant}/webhook-secret:rotate",
                          "/v1/tenants/{tenant}:update", "/v1/usage"])
        self.assertEqual(sorted(document["paths"]["/v1/jobs"]), ["get", "post"])


if __name__ == "__main__":
    unittest.main()
