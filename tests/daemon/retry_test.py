#!/usr/bin/python3
"""Retries with backoff and the attempt history (issue 40; docs/daemon.md, Retries), on a real
daemon whose backoff base is small (--retry-base 0.2): a worker that crashes on its first
attempt (the crash-first fault) is queued again and its job succeeds at attempt 2, GetJob,
`transcode get` and its JSON listing both attempts (1 crashed, 2 succeeded) and the output
decoding whole; an input error is not retried: FAILED at attempt 1, one attempt in the history.
Nothing here measures time: the backoff's length is the store_contract tests' to check.
"""
import json
import os
import subprocess
import unittest

from real_daemon import RealDaemon, make_clip

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]


def decoded_frames(path):
    """The video frames ffmpeg decodes from `path` (ffprobe -count_frames)."""
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                           "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path],
                          capture_output=True, text=True, timeout=60, check=True)
    return int(done.stdout.strip())


class RetryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon(env={"TC_TEST_FAULT": "crash-first:crashonce"},
                                extra_args=["--retry-base", "0.2", "--retry-cap", "1",
                                            "--max-attempts", "3"])
        cls.client = cls.daemon.client()
        cls.pb = cls.client.pb

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()

    def transcode(self, *args):
        done = subprocess.run([TRANSCODE, *args, "--server", self.daemon.address],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def submit(self, source, name):
        out = os.path.join(self.daemon.media, name)
        job = self.client.submit(source, [self.client.output(out, codec="h264")])
        final = self.client.wait(job.id, timeout=120)
        return self.client.get(job.id), out, final

    def test_a_crashed_attempt_is_retried_and_the_history_lists_both(self):
        source = os.path.join(self.daemon.media, "crashonce.mp4")
        make_clip(source, seconds=1, size="64x48")
        job, out, _ = self.submit(source, "retried.mp4")
        job_pb2 = self.pb.job_pb2
        self.assertEqual(job.state, job_pb2.JOB_STATE_SUCCEEDED, job)
        self.assertEqual(job.attempt, 2)
        self.assertEqual([a.number for a in job.attempts], [1, 2])
        first, second = job.attempts
        self.assertEqual(first.outcome, job_pb2.ATTEMPT_OUTCOME_CRASHED)
        self.assertEqual(first.error.code, job_pb2.ERROR_CODE_INTERNAL)
        self.assertIn("SIGSEGV", first.error.message)
        self.assertTrue(first.error.retryable)
        self.assertTrue(first.HasField("end_time"))
        self.assertEqual(second.outcome, job_pb2.ATTEMPT_OUTCOME_SUCCEEDED)
        self.assertFalse(second.HasField("error"))
        for attempt in job.attempts:
            self.assertEqual(attempt.device, "software")
            self.assertEqual(attempt.node, job.node)
        self.assertEqual(decoded_frames(out), 30)  # 1 s at 30 fps, whole

        lines = [line for line in self.transcode("get", job.id).splitlines()
                 if line.startswith("attempt ")]
        self.assertEqual(len(lines), 2, lines)
        self.assertTrue(lines[0].startswith("attempt  1 crashed"), lines[0])
        self.assertIn("SIGSEGV", lines[0])
        self.assertTrue(lines[1].startswith("attempt  2 succeeded"), lines[1])

        shown = json.loads(self.transcode("get", job.id, "--json"))
        self.assertEqual([(a["number"], a["outcome"]) for a in shown["attempts"]],
                         [(1, "ATTEMPT_OUTCOME_CRASHED"), (2, "ATTEMPT_OUTCOME_SUCCEEDED")])

    def test_an_input_error_is_not_retried(self):
        source = os.path.join(self.daemon.media, "not-media.mp4")
        with open(source, "w") as f:
            f.write("this is not a video\n")
        job, out, _ = self.submit(source, "never.mp4")
        job_pb2 = self.pb.job_pb2
        self.assertEqual(job.state, job_pb2.JOB_STATE_FAILED, job)
        self.assertEqual(job.error.code, job_pb2.ERROR_CODE_INPUT)
        self.assertFalse(job.error.retryable)
        self.assertEqual(job.attempt, 1)
        self.assertEqual(len(job.attempts), 1)
        self.assertEqual(job.attempts[0].outcome, job_pb2.ATTEMPT_OUTCOME_FAILED)
        self.assertEqual(job.attempts[0].error.code, job_pb2.ERROR_CODE_INPUT)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
