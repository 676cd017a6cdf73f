#!/usr/bin/python3
"""Slots from measured load (docs/metrics.md, Capacity), on a real daemon with `slots` unset: caps and
ListNodes show each device's capacity, load and one job's estimate; jobs that use little CPU
(the `slow` fault: a worker that sleeps between frames) run more than one at once on a node
whose fixed slots of old ran one (2 cores); the `slots` setting still caps them. What runs at
once is seen by polling ListJobs, never timed.
"""
import os
import subprocess
import sys
import time
import unittest

from real_daemon import RealDaemon, make_clip

CORES = os.cpu_count() or 1
SLOW = {"TC_TEST_FAULT": "slow:slow"}
TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")


class Daemon:
    """A daemon with its client and a slow clip (3 s, about 4 s of sleeping worker per job)."""

    def __init__(self, extra_args=()):
        self.daemon = RealDaemon(extra_args=list(extra_args), env=SLOW)
        try:
            self.client = self.daemon.client()
            self.slow_clip = os.path.join(self.daemon.media, "slow.mp4")
            make_clip(self.slow_clip, seconds=3, size="64x48")
        except BaseException:
            self.daemon.stop()
            raise
        self.pb = self.client.pb
        self.submitted = 0

    def close(self):
        self.client.close()
        self.daemon.stop()

    def submit_slow(self):
        self.submitted += 1
        out = os.path.join(self.daemon.media, f"out-{self.submitted}.mp4")
        return self.client.submit(self.slow_clip, [self.client.output(out, codec="h264")]).id

    def software(self):
        caps = self.client.capabilities()
        return next(d for d in caps.devices if d.backend == "software")

    def most_running_at_once(self, ids):
        """Polls ListJobs until every job in `ids` has ended; returns the most seen RUNNING at
        once, and the final jobs."""
        most, pending = 0, set(ids)
        while pending:
            running = self.client.list(state=self.pb.job_pb2.JOB_STATE_RUNNING, page_size=100)
            most = max(most, sum(1 for job in running.jobs if job.id in ids))
            for job_id in list(pending):
                if self.client.get(job_id).state in (self.pb.job_pb2.JOB_STATE_SUCCEEDED,
                                                     self.pb.job_pb2.JOB_STATE_FAILED,
                                                     self.pb.job_pb2.JOB_STATE_CANCELLED):
                    pending.discard(job_id)
            time.sleep(0.05)
        return most, [self.client.get(job_id) for job_id in ids]


class CapacityTest(unittest.TestCase):
    def assert_all_succeeded(self, jobs, pb):
        for job in jobs:
            self.assertEqual(job.state, pb.job_pb2.JOB_STATE_SUCCEEDED, job)

    def test_caps_and_nodes_show_capacity_load_and_estimate(self):
        node = Daemon()
        try:
            device = node.software()
            # slots unset: the cap is one job per core, above the old cores / 2.
            self.assertEqual(device.slots, CORES)
            self.assertEqual(device.running, 0)
            self.assertGreaterEqual(device.capacity, 1)  # idle: it takes a job
            self.assertEqual(device.load_percent, 0)
            # Nothing learned yet: a job is expected to take the share a fixed slot gave.
            self.assertAlmostEqual(device.job_cores, CORES / max(1, CORES // 2))
            self.assertEqual(device.job_engine_percent, 0)

            nodes = node.client._call(node.client._stub.ListNodes,
                                      node.pb.transcoder_pb2.ListNodesRequest()).nodes
            self.assertEqual(len(nodes), 1)
            listed = next(d for d in nodes[0].devices if d.name == "software")
            self.assertEqual(listed.capacity, device.capacity)
            self.assertAlmostEqual(listed.job_cores, device.job_cores)

            for command in ("caps", "nodes"):  # the CLI says it too
                text = subprocess.run([TRANSCODE, command, "--server", node.daemon.address],
                                      capture_output=True, text=True, check=True).stdout
                self.assertIn(f"capacity {device.capacity} more", text)
                self.assertIn(f"a job ~{device.job_cores:.2f} cores", text)
        finally:
            node.close()

    def test_jobs_that_use_little_cpu_run_more_than_one_at_once(self):
        node = Daemon()
        try:
            # One job alone first: the node learns how little such a job uses.
            first = node.submit_slow()
            most, jobs = node.most_running_at_once([first])
            self.assert_all_succeeded(jobs, node.pb)
            self.assertLess(node.software().job_cores, CORES / max(1, CORES // 2))

            ids = [node.submit_slow() for _ in range(4)]
            most, jobs = node.most_running_at_once(ids)
            self.assert_all_succeeded(jobs, node.pb)
            print(f"capacity: {most} slow jobs ran at once on {CORES} cores", file=sys.stderr)
            self.assertGreater(most, 1)
            self.assertLessEqual(most, CORES)  # the cap: one per core
        finally:
            node.close()

    def test_the_slots_setting_still_caps(self):
        node = Daemon(["--slots", "1"])
        try:
            self.assertEqual(node.software().slots, 1)
            ids = [node.submit_slow() for _ in range(3)]
            most, jobs = node.most_running_at_once(ids)
            self.assert_all_succeeded(jobs, node.pb)
            self.assertEqual(most, 1)
        finally:
            node.close()


if __name__ == "__main__":
    unittest.main()
