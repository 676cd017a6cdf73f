#!/usr/bin/python3
"""Cancels raced against the ends of jobs (issue 36: "Cancel answered OK, then the job published
anyway"). Each job gets its cancel at another moment of its run, from its start to past its end,
so that some land just before its outputs are published and some just after. Whatever the
moment, the answer and the end agree: a cancel answered OK ends the job CANCELLED with no output
file; one refused says JOB_ENDED, and the job SUCCEEDED with its output.

TC_CANCEL_RACES scales it (default 30 jobs). Figures are printed, never asserted on time.
"""
import os
import sys
import time
import unittest

from real_daemon import daemon_with_clip
import transcoded_client  # noqa: E402, on the path real_daemon sets

RACES = int(os.environ.get("TC_CANCEL_RACES", "30"))


class CancelRaceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon, cls.client, cls.input = daemon_with_clip("short.mp4", 0.4, "160x120")
        cls.Job = cls.client.pb.job_pb2

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()

    def output(self, name):
        return os.path.join(self.daemon.media, name + ".mp4")

    def submit(self, name):
        return self.client.submit(self.input, [self.client.output(self.output(name),
                                                                  codec="h264")]).id

    def run_once(self, name, cancel_after_s):
        """The job's end and what its cancel got: (state name, accepted, refusal reason)."""
        job_id = self.submit(name)
        time.sleep(cancel_after_s)
        accepted, reason = True, ""
        try:
            self.client.cancel(job_id)
        except transcoded_client.TranscodedError as error:
            accepted, reason = False, error.reason
        state = self.client.wait(job_id, timeout=300).state
        return self.Job.JobState.Name(state), accepted, reason

    def test_an_accepted_cancel_wins_and_a_refused_one_lets_the_job_succeed(self):
        started = time.monotonic()  # no cancel: how long a job takes, submitted to ended
        state = self.client.wait(self.submit("probe"), timeout=300).state
        job_s = time.monotonic() - started
        self.assertEqual(self.Job.JobState.Name(state), "JOB_STATE_SUCCEEDED")
        counts = {"accepted": 0, "refused": 0}
        for i in range(RACES):
            name = f"race-{i}"
            # From the start to a fifth past the probe's end: the publish lies in between.
            state, accepted, reason = self.run_once(name, job_s * 1.2 * i / max(RACES - 1, 1))
            published = os.path.exists(self.output(name))
            counts["accepted" if accepted else "refused"] += 1
            if accepted:
                self.assertEqual(state, "JOB_STATE_CANCELLED", f"{name}: cancel answered OK")
                self.assertFalse(published, f"{name}: cancelled, yet its output was published")
            else:
                self.assertEqual(reason, "JOB_ENDED", name)
                self.assertEqual(state, "JOB_STATE_SUCCEEDED", f"{name}: cancel refused")
                self.assertTrue(published, f"{name}: succeeded without its output")
        partials = [f for f in os.listdir(self.daemon.media) if f.endswith(".partial")]
        self.assertEqual(partials, [])
        print(f"cancel races: {RACES} jobs of about {job_s:.2f} s: {counts['accepted']} cancels "
              f"accepted, {counts['refused']} refused", file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
