#!/usr/bin/python3
"""The daemon on a real PostgreSQL (postgres_server.py) when the database misbehaves (issue 40):

- a hung server (every PostgreSQL process stopped with SIGSTOP): an RPC that needs the store is
  answered UNAVAILABLE (STORE_UNAVAILABLE) well within the client's deadline, health says
  NOT_SERVING; after SIGCONT the node says SERVING again and nothing was lost;
- a wrong database password: the daemon exits with the configuration code (2), naming the
  authentication failure, not 7 (a store that may come back);
- a second daemon under a node id a live daemon uses exits with the configuration code, naming
  the id; the same node restarted after its old process died starts;
- a node killed with kill -9 is listed as gone (no free slot, no "up" time) once its heartbeat
  lapsed, and dropped node_forget after it;
- a node whose clock runs 90 s ahead (libfaketime) does not take the others for gone: a vulkan
  job sent to it runs on the node that offers vulkan.

Waits are deadlines on what a user sees (an RPC's answer, a health answer), never assertions on
time."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import cluster_flags
import visible_skips
from pg_store_test import start_and_stop
from postgres_server import PostgresServer
from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon, make_clip

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402

TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")
EXIT_CONFIG = 2
WAIT_S = 120  # a deadline against a hang, far above the store's own bounds (docs/cluster.md)
SHORT_LEASE_S = 4
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"  # Debian's faketime


def wait_until(check, what):
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


def health(daemon):
    """`transcode health` through the daemon: SERVING, NOT_SERVING, ..."""
    done = subprocess.run([TRANSCODE, "health", "--server", daemon.address],
                          capture_output=True, text=True, timeout=60)
    return done.stdout.strip() or done.stderr.strip()


def nodes(daemon, text=False):
    """`transcode nodes` through the daemon: {id: node} from --json, or the text."""
    done = subprocess.run([TRANSCODE, "nodes", *([] if text else ["--json"]), "--server",
                           daemon.address], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"transcode nodes: {done.stderr}")
    return done.stdout if text else {n["id"]: n for n in json.loads(done.stdout).get("nodes", [])}


@unittest.skipIf(PostgresServer.unavailable(), PostgresServer.unavailable())
class StoreFaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = PostgresServer()
        cls.stubs = tempfile.TemporaryDirectory(prefix="tc-faults-stubs-")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs.name)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.stubs.cleanup()

    def daemon(self, url, *args, node_id="node-a", media=None, env=None):
        daemon = RealDaemon(extra_args=["--store", url, *args], node_id=node_id, media=media,
                            env=env)
        self.addCleanup(daemon.stop)
        return daemon

    def client(self, daemon):
        client = transcoded_client.Client(daemon.address, stubs_dir=self.stubs.name,
                                          timeout=WAIT_S)
        self.addCleanup(client.close)
        return client

    def run_job(self, daemon, client, name):
        out = os.path.join(daemon.media, name)
        job = client.submit(daemon.input, [client.output(out, codec="h264", width=160,
                                                         height=120)])
        final = client.wait(job.id, timeout=240)
        self.assertEqual(final.state, client.pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
        return job.id

    def test_a_hung_database_is_answered_unavailable_then_serving_again(self):
        daemon = self.daemon(self.server.url(self.server.create_database()))
        client = self.client(daemon)
        before = self.run_job(daemon, client, "before.mp4")
        pids = self.server.processes()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                client.get(before)
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAVAILABLE,
                             refused.exception)
            self.assertEqual(refused.exception.reason, "STORE_UNAVAILABLE")
            wait_until(lambda: health(daemon) == "NOT_SERVING", "NOT_SERVING")
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        wait_until(lambda: health(daemon) == "SERVING", "SERVING again")
        self.assertEqual(client.get(before).state, client.pb.job_pb2.JOB_STATE_SUCCEEDED)
        self.run_job(daemon, client, "after.mp4")

    def test_a_wrong_password_exits_with_the_configuration_code(self):
        database = self.server.create_database()
        self.server.add_password_role("tc_pw", "right-pw-1")
        url = f"postgresql://tc_pw:wrong-pw-2@/{database}?host={self.server.dir}"
        code, err = start_and_stop(["--store", url])
        self.assertEqual(code, EXIT_CONFIG, err)
        self.assertIn("authentication failed", err)
        self.assertNotIn("wrong-pw-2", err)

    def test_a_second_daemon_under_a_live_node_id_exits_with_the_configuration_code(self):
        url = self.server.url(self.server.create_database())
        lease = cluster_flags.lease(SHORT_LEASE_S)
        first = self.daemon(url, *lease, node_id="twin")
        code, err = start_and_stop(["--store", url, "--node-id", "twin", *lease])
        self.assertEqual(code, EXIT_CONFIG, err)
        self.assertIn("node id 'twin' is in use by another live daemon", err)
        self.assertEqual(list(nodes(first)), ["twin"])  # the first one serves on
        first.kill()  # its row stays, its heartbeat stops: a restart of the node starts
        restarted = self.daemon(url, *lease, node_id="twin")
        self.assertEqual(list(nodes(restarted)), ["twin"])

    def test_a_killed_node_is_listed_as_gone(self):
        url = self.server.url(self.server.create_database())
        lease = cluster_flags.lease(SHORT_LEASE_S)
        a = self.daemon(url, *lease, "--node-forget", "12", node_id="node-a")
        b = self.daemon(url, *lease, node_id="node-b")
        self.assertFalse(nodes(a)["node-b"].get("gone", False))
        b.kill()
        wait_until(lambda: nodes(a)["node-b"].get("gone", False), "node-b to be listed as gone")
        self.assertEqual(nodes(a)["node-b"].get("free_slots", 0), 0)
        self.assertFalse(nodes(a)["node-a"].get("gone", False))
        lines = {line.split(":")[0]: line for line in nodes(a, text=True).splitlines()
                 if not line.startswith(" ")}
        self.assertTrue(lines["node-b"].startswith("node-b: gone (heartbeat "), lines["node-b"])
        self.assertNotIn("free slot", lines["node-b"])
        self.assertNotIn(" up ", lines["node-b"])
        # node_forget (12 s) after its last heartbeat, its row is dropped.
        wait_until(lambda: "node-b" not in nodes(a), "node-b to be dropped")
        self.assertEqual(list(nodes(a)), ["node-a"])

    def test_a_node_with_its_clock_ahead_leaves_vulkan_jobs_to_the_vulkan_node(self):
        if not os.path.exists(FAKETIME_LIB):
            self.skipTest(f"no {FAKETIME_LIB} (Debian's faketime: scripts/deps test)")
        media = tempfile.mkdtemp(prefix="tc-faults-media-")
        self.addCleanup(subprocess.run, ["rm", "-rf", media])
        clip = os.path.join(media, "in.mp4")
        make_clip(clip)
        probe = subprocess.run([TRANSCODE, "run", clip, "--backend", "vulkan", "-q", "-o",
                                os.path.join(media, "probe.mp4"), "--size", "160x120"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest(f"no vulkan device here: {probe.stderr.strip()}")
        url = self.server.url(self.server.create_database())
        c = self.daemon(url, *cluster_flags.backends("software", "vulkan"), node_id="node-c",
                        media=media)
        ahead = {"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": "+90s",
                 "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
        b = self.daemon(url, *cluster_flags.backends("software"), node_id="node-b", media=media,
                        env=ahead)
        client = self.client(b)
        self.assertFalse(nodes(b)["node-c"].get("gone", False))
        jobs = [client.submit(clip, [client.output(os.path.join(media, f"ahead-{i}.mp4"),
                                                   codec="h264", width=160, height=120)],
                              backend="vulkan") for i in range(4)]
        for job in jobs:
            final = client.wait(job.id, timeout=240)
            self.assertEqual(final.state, client.pb.job_pb2.JOB_STATE_SUCCEEDED,
                             final.error.message)
            self.assertEqual(final.node, "node-c")


if __name__ == "__main__":
    visible_skips.main()  # without PostgreSQL: ctest's Skipped, not Passed
