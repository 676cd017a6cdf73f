#!/usr/bin/python3
"""Per-job logs (issue 41; docs/daemon.md, Job logs), on a real daemon with a token and the
HTTP API: a source whose H.264 packets were overwritten makes libav's decoder complain, and
`transcode logs ID` shows those lines as attempt 1's, each one line; a source named with a
newline and quotes that is not media fails, and its error line in the log has the newline
escaped; a job that logs 1500 lines (the chatty fault) keeps its first 500 and last 500 and
says it was truncated; GET /v1/jobs/{id}/logs answers the same lines with the token, 401
without it; an unknown id is NOT_FOUND (exit 2, HTTP 404). A job submitted with `transcode submit
--verbose` (or `verboseLog` in an HTTP request) has libav's info lines too (libx264's "profile
High, level ..."), over the CLI and GET .../logs; the next job without it, run by the same worker
(--worker-jobs), has none.
"""
import json
import os
import random
import re
import subprocess
import unittest

from real_daemon import RealDaemon, transcoded_client

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]
TOKEN = "logs-token"
# What libx264 says at info level as it opens: the profile and level of the stream it makes.
PROFILE_TEXT = re.compile(r"\[libx264 @ 0x[0-9a-f]+\] profile \w+, level [0-9.]+")
PROFILE_LINE = re.compile(r"attempt 1 \S+ info: " + PROFILE_TEXT.pattern)


def make_corrupt_ts(path):
    """Two seconds of H.264 in MPEG-TS with 40 packets' payloads overwritten by seeded noise
    a third of the way in: ffmpeg's own decode of it logs 'error while decoding MB'."""
    clean = path + ".clean.ts"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=320x240:rate=30", "-t", "2", "-c:v", "libx264", "-preset",
                    "ultrafast", "-g", "15", "-f", "mpegts", clean], check=True)
    data = bytearray(open(clean, "rb").read())
    noise = random.Random(7)
    first = len(data) // 188 // 3
    for packet in range(first, first + 40):
        for i in range(packet * 188 + 4, packet * 188 + 188):
            data[i] = noise.randrange(256)
    with open(path, "wb") as f:
        f.write(data)
    os.remove(clean)


class JobLogsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A worker runs up to 8 jobs: a job's log level must not be its previous job's.
        cls.daemon = RealDaemon(token=TOKEN, extra_args=["--http-listen", "127.0.0.1:0",
                                                         "--worker-jobs", "8"],
                                env={"TC_TEST_FAULT": "chatty:chatty"})
        cls.daemon.client().close()  # generates the stubs a client with the token loads
        cls.client = transcoded_client.Client(cls.daemon.address, token=TOKEN,
                                              stubs_dir=os.path.join(cls.daemon.tmp, "stubs"))
        cls.pb = cls.client.pb
        cls.token_file = os.path.join(cls.daemon.tmp, "token")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()

    def transcode(self, *args, code=0):
        done = subprocess.run([TRANSCODE, *args, "--server", self.daemon.address,
                               "--token-file", self.token_file],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, code, done.stderr)
        return done

    def run_job(self, source, name):
        out = os.path.join(self.daemon.media, name)
        job = self.client.submit(source, [self.client.output(out, codec="h264")])
        self.client.wait(job.id, timeout=120)
        return self.client.get(job.id)

    def curl(self, path, token=TOKEN, body=None):
        command = ["curl", "-sS", "--max-time", "60", "-o", "-", "-w", "\n%{http_code}"]
        if body is not None:
            command += ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                        json.dumps(body)]
        if token:
            command += ["-H", f"Authorization: Bearer {token}"]
        done = subprocess.run(command + [f"http://{self.daemon.http_address}{path}"],
                              capture_output=True, text=True, timeout=90)
        text, _, code = done.stdout.rpartition("\n")
        return int(code or 0), text

    def test_libavs_complaints_about_a_corrupt_source_are_the_jobs_log(self):
        source = os.path.join(self.daemon.media, "corrupt.ts")
        make_corrupt_ts(source)
        job = self.run_job(source, "corrupt-out.mp4")
        lines = self.transcode("logs", job.id).stdout.splitlines()
        decoding = [line for line in lines if "error while decoding MB" in line]
        self.assertTrue(decoding, lines)
        for line in lines:
            self.assertRegex(line, r"^attempt 1 \d\d:\d\d:\d\d\.\d\d\d (warning|error): ")
        self.assertRegex(decoding[0], r"^attempt 1 \S+ error: \[h264 @ 0x[0-9a-f]+\] error "
                                      r"while decoding MB \d+ \d+$")

        code, text = self.curl(f"/v1/jobs/{job.id}/logs")
        self.assertEqual(code, 200, text)
        reply = json.loads(text)
        self.assertEqual(len(reply["lines"]), len(lines))
        self.assertEqual(reply["lines"][0]["attempt"], 1)
        self.assertIn(reply["lines"][0]["level"], ("warning", "error"))
        self.assertNotIn("truncated", reply)  # false: proto3 JSON leaves it out
        code, text = self.curl(f"/v1/jobs/{job.id}/logs", token=None)
        self.assertEqual(code, 401, text)

    def test_a_verbose_job_keeps_libavs_info_lines(self):
        verbose = self.transcode("submit", "--verbose", self.daemon.input,
                                 os.path.join(self.daemon.media, "verbose-out.mp4"))
        verbose_id = verbose.stdout.strip()
        self.transcode("wait", verbose_id)
        # After it, so that a warm worker that ran it runs this one too: its level is the job's.
        plain_id = self.transcode("submit", self.daemon.input,
                                  os.path.join(self.daemon.media, "plain-out.mp4")).stdout.strip()
        self.transcode("wait", plain_id)

        lines = self.transcode("logs", verbose_id).stdout.splitlines()
        profile = [line for line in lines if PROFILE_LINE.match(line)]
        self.assertTrue(profile, lines)
        plain = self.transcode("logs", plain_id).stdout.splitlines()
        self.assertEqual([line for line in plain if " info: " in line], [])

        code, text = self.curl(f"/v1/jobs/{verbose_id}/logs")
        self.assertEqual(code, 200, text)
        texts = [line["text"] for line in json.loads(text).get("lines", [])
                 if line["level"] == "info"]
        self.assertIn(profile[0].split(" info: ", 1)[1], texts)

    def test_verbose_log_in_an_http_request_keeps_libavs_info_lines(self):
        out = os.path.join(self.daemon.media, "http-verbose-out.mp4")
        code, text = self.curl("/v1/jobs", body={"config": {
            "input": self.daemon.input, "outputs": [{"path": out}], "verboseLog": True}})
        self.assertEqual(code, 200, text)
        job_id = json.loads(text)["id"]
        self.transcode("wait", job_id)
        code, text = self.curl(f"/v1/jobs/{job_id}/logs")
        self.assertEqual(code, 200, text)
        lines = json.loads(text).get("lines", [])  # proto3 JSON leaves an empty list out
        self.assertTrue([line for line in lines if line["level"] == "info" and
                         PROFILE_TEXT.match(line["text"])], lines)

    def test_a_newline_in_a_sources_name_stays_inside_its_line(self):
        source = os.path.join(self.daemon.media, "bad\njob j-1: succeeded 'q\".ts")
        with open(source, "wb") as f:
            f.write(b"not media at all" * 64)
        job = self.run_job(source, "never.mp4")
        self.assertEqual(job.state, self.pb.job_pb2.JOB_STATE_FAILED)
        done = self.transcode("logs", job.id, "--attempt", "1")
        lines = done.stdout.splitlines()
        errors = [line for line in lines if " error: " in line]
        self.assertEqual(len(errors), 1, lines)  # the job's error, as the worker said it
        self.assertIn("bad\\njob j-1: succeeded", errors[0])
        for line in lines:
            self.assertTrue(line.startswith("attempt 1 "), lines)
        logs = json.loads(self.transcode("logs", job.id, "--json").stdout)
        for line in logs["lines"]:
            self.assertNotIn("\n", line["text"])

    def test_a_log_past_the_bound_keeps_its_first_and_last_lines(self):
        source = os.path.join(self.daemon.media, "chatty.mp4")
        os.link(self.daemon.input, source)
        job = self.run_job(source, "chatty-out.mp4")
        self.assertEqual(job.state, self.pb.job_pb2.JOB_STATE_SUCCEEDED)
        logs = json.loads(self.transcode("logs", job.id, "--json").stdout)
        texts = [line["text"] for line in logs["lines"]]
        self.assertTrue(logs["truncated"])
        self.assertEqual(len(texts), 1000)
        self.assertEqual(texts[0], "chatty line 0")
        self.assertEqual(texts[499], "chatty line 499")
        self.assertEqual(texts[500], "chatty line 1000")
        self.assertEqual(texts[999], "chatty line 1499")
        done = self.transcode("logs", job.id)
        self.assertIn("lines were dropped", done.stderr)

    def test_an_unknown_id_is_not_found(self):
        done = self.transcode("logs", "j-00000000000000ff", code=2)
        self.assertIn("not found", done.stderr)
        code, text = self.curl("/v1/jobs/j-00000000000000ff/logs")
        self.assertEqual(code, 404, text)


if __name__ == "__main__":
    unittest.main()
