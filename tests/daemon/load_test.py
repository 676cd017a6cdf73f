#!/usr/bin/python3
"""Load, as a hostile or merely busy client makes it: many jobs submitted at once from many
threads, watchers on them (a third of the streams dropped mid-way), every tenth job cancelled
while others run. Every job must end in a state that says what happened, every watcher that
stayed must see the end the store has, nothing half-written may be left in the media root, and
the daemon must still be SERVING.

TC_LOAD_JOBS and TC_LOAD_WATCHERS scale it (the issue's campaign: 200 and 50); ctest runs a
smaller one. Figures are printed, never asserted on time.
"""
import concurrent.futures
import glob
import os
import random
import sys
import threading
import time
import unittest

from real_daemon import daemon_with_clip
import transcoded_client  # noqa: E402, on the path real_daemon sets

JOBS = int(os.environ.get("TC_LOAD_JOBS", "40"))
WATCHERS = int(os.environ.get("TC_LOAD_WATCHERS", "12"))


class LoadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon, cls.client, cls.input = daemon_with_clip(
            "short.mp4", 0.4, "160x120", extra_args=["--max-queue", str(JOBS + 10)])
        cls.pb = cls.client.pb

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()

    def output_of(self, n):
        return os.path.join(self.daemon.media, f"load-{n}.mp4")

    def submit(self, n):
        return self.client.submit(self.input, [self.client.output(self.output_of(n),
                                                                  codec="h264")],
                                  request_id=f"load-{n}").id

    def watch(self, job_id, drop_early, seen):
        final = None
        stream = self.client.watch(job_id, timeout=600)
        for event in stream:
            final = event.job
            if drop_early:
                stream.close()  # the client goes away mid-stream
                return
        seen[job_id] = final.state

    def test_many_jobs_watchers_and_cancels(self):
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            ids = list(pool.map(self.submit, range(JOBS)))
        self.assertEqual(len(set(ids)), JOBS)

        seen, errors = {}, []
        rng = random.Random(1130)
        watched = rng.sample(ids, min(WATCHERS, JOBS))

        def watcher(i, job_id):
            try:
                self.watch(job_id, drop_early=(i % 3 == 0), seen=seen)
            except Exception as error:  # noqa: BLE001: reported below
                errors.append(f"watch {job_id}: {error}")

        threads = [threading.Thread(target=watcher, args=(i, j)) for i, j in enumerate(watched)]
        for t in threads:
            t.start()
        cancelled = set(ids[::10])
        accepted, refused = set(), set()
        for job_id in cancelled:
            try:
                self.client.cancel(job_id)
                accepted.add(job_id)
            except transcoded_client.TranscodedError as error:
                # A 0.4 s clip can finish before its cancel arrives: refused, and said why.
                self.assertEqual(error.reason, "JOB_ENDED", str(error))
                refused.add(job_id)
        for t in threads:
            t.join(timeout=900)
        self.assertEqual(errors, [])

        finals = {job_id: self.client.wait(job_id, timeout=900).state for job_id in ids}
        wall = time.monotonic() - started
        Job = self.pb.job_pb2
        for job_id, state in finals.items():
            # A cancel answered OK wins: CANCELLED, with nothing published (below). One refused
            # (JOB_ENDED) came after the job began publishing: it succeeded.
            want = Job.JOB_STATE_CANCELLED if job_id in accepted else Job.JOB_STATE_SUCCEEDED
            self.assertEqual(Job.JobState.Name(state), Job.JobState.Name(want), job_id)
        for job_id, state in seen.items():
            self.assertEqual(state, finals[job_id], f"watcher of {job_id} saw another end")

        media = self.daemon.media
        self.assertEqual(glob.glob(os.path.join(media, ".*.partial")), [])
        succeeded = [j for j, s in finals.items() if s == Job.JOB_STATE_SUCCEEDED]
        written = sorted(glob.glob(os.path.join(media, "load-*.mp4")))
        self.assertEqual(written, sorted(self.output_of(n) for n, j in enumerate(ids)
                                         if j not in accepted))
        health = self.client.capabilities()  # answers: the daemon serves
        self.assertTrue(health.backends)
        print(f"load: {JOBS} jobs, {len(watched)} watchers ({len(watched[::3])} dropped early), "
              f"{len(cancelled)} cancels ({len(accepted)} accepted, {len(refused)} refused): "
              f"{len(succeeded)} succeeded, {JOBS - len(succeeded)} cancelled, {wall:.1f} s",
              file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
