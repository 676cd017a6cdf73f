#!/usr/bin/python3
"""Cluster mode under operational faults (issue 40), on the real PostgreSQL cluster_test.py uses:

- a webhook receiver slower than the outbox's hold: each notice reaches it once, though the
  notices wait in one daemon's pool longer than the hold while another daemon polls the outbox;
  the same with the other daemon's clock 90 s ahead (libfaketime): holds are on the database's
  clock;
- the only node offering a backend stopped: its queued jobs wait (QUEUED, saying for what) past
  the liveness window, and run when it comes back; with `capable_node_wait` small they fail,
  naming the backend;
- a node whose path to PostgreSQL drops everything (a TCP proxy the test controls stops
  forwarding, its sockets left open) while it runs a job: it says NOT_SERVING and answers
  UNAVAILABLE within the bounds docs/cluster.md states, another node takes the job over after the
  lease and publishes it once, and the node, its path restored, publishes nothing.

Waits are deadlines on what a user can see, never assertions on time.
"""
import collections
import http.server
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
import unittest

import cluster_flags
import visible_skips
from cluster_test import (SECRET, SLOW, UNAVAILABLE, ClusterTest, file_identity, partial_files,
                          wait_until)
from real_daemon import CLIENT_PACKAGE, RealDaemon
from webhook_test import verify

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402

# The outbox holds a notice for twice the longest POST (connect 5 s + total 10 s): 30 s. A
# receiver answering each "queued" notice in 6 s, two at a time per daemon, keeps the 11th and
# later of 16 waiting in one daemon's pool past that hold.
SLOW_ANSWER_S = 6
HOOKED_JOBS = 16
AHEAD_JOBS = 6
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"  # Debian's faketime
AHEAD = {"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": "+90s", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
WAIT_LEASE_S = 2  # a node is live while it beat within 3 leases
TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")
SHORT_LEASE_S = 4
# docs/cluster.md, Time limits: a store call gives up after 15 s, so NOT_SERVING comes within a
# beat (lease / 3) and two of those; the margin is for a loaded machine.
NOT_SERVING_WITHIN_S = SHORT_LEASE_S / 3 + 2 * 15 + 10


class BlackholeProxy:
    """Loopback TCP to the server's unix socket. blackhole() stops forwarding both ways: nothing
    is read or written and every socket stays open, as on a path that drops packets; restore()
    forwards again."""

    def __init__(self, socket_path):
        self.socket_path = socket_path
        self.flowing = threading.Event()
        self.flowing.set()
        self.sockets = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def blackhole(self):
        self.flowing.clear()

    def restore(self):
        self.flowing.set()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
                server = socket.socket(socket.AF_UNIX)
                server.connect(self.socket_path)
            except OSError:
                return
            self.sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while True:
                self.flowing.wait()
                if not select.select([source], [], [], 0.1)[0] or not self.flowing.is_set():
                    continue
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()
        for end in self.sockets:
            end.close()


class SlowReceiver:
    """Records every POST as it arrives (headers, body), then answers 200; a "queued" notice
    only after SLOW_ANSWER_S, within the sender's timeout, so each send succeeds."""

    def __init__(self):
        self.arrived = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.arrived.append((dict(self.headers), body))
                if json.loads(body)["state"] == "JOB_STATE_QUEUED":
                    time.sleep(SLOW_ANSWER_S)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/transcoded"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def deliveries(self):
        with self.lock:
            return list(self.arrived)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@unittest.skipIf(UNAVAILABLE, UNAVAILABLE)
class ClusterFaultsTest(ClusterTest):
    """cluster_test.py's fixture (server, clips, media, submit, final, assert_succeeded), with
    this file's cases alone (load_tests)."""

    def test_a_webhook_is_not_sent_again_while_it_waits_or_is_in_flight(self):
        receiver = SlowReceiver()
        self.addCleanup(receiver.close)
        a = self.start_cluster(self.webhook_args).start("node-a")
        jobs = [self.submit(a, f"hooked-{i}.mp4", webhook_url=receiver.url)
                for i in range(HOOKED_JOBS)]
        # node-a has claimed the "queued" notices; node-b polls the outbox from now on, and
        # would take any whose hold ran out while it waited in node-a's pool.
        self.cluster.start("node-b")
        self.assert_each_notice_sent_once(a, jobs, receiver)

    def test_a_node_whose_clock_runs_ahead_takes_no_held_webhook(self):
        if not os.path.exists(FAKETIME_LIB):
            self.skipTest(f"no {FAKETIME_LIB} (Debian's faketime: scripts/deps test)")
        receiver = SlowReceiver()
        self.addCleanup(receiver.close)
        a = self.start_cluster(self.webhook_args).start("node-a")
        jobs = [self.submit(a, f"ahead-{i}.mp4", webhook_url=receiver.url)
                for i in range(AHEAD_JOBS)]
        wait_until(receiver.deliveries, "node-a to send its first notice")
        # node-a holds the other "queued" notices in its pool for 30 s; node-b, 90 s ahead on its
        # own clock, would take every one of them for run out and send it again.
        self.cluster.start("node-b", env=AHEAD)
        self.assert_each_notice_sent_once(a, jobs, receiver)

    def assert_each_notice_sent_once(self, client, jobs, receiver):
        """Every job succeeds, and the receiver gets its queued, running and succeeded notices,
        in order, signed, each delivery id once."""
        for job in jobs:
            self.assert_succeeded(self.final(client, job.id), attempt=1)
        changes = 3 * len(jobs)  # queued, running, succeeded

        def all_arrived():
            seen = receiver.deliveries()
            return seen if len({h["webhook-id"] for h, _ in seen}) >= changes else None

        deliveries = wait_until(all_arrived, f"{changes} webhook notices")
        time.sleep(1)  # a duplicate of the last would arrive now
        deliveries = receiver.deliveries()
        events = collections.defaultdict(list)
        for headers, body in deliveries:
            self.assertTrue(verify(SECRET, {k.lower(): v for k, v in headers.items()}, body))
            job = json.loads(body)
            events[job["id"]].append(job["state"].removeprefix("JOB_STATE_").lower())
        sends = collections.Counter(headers["webhook-id"] for headers, _ in deliveries)
        repeated = {delivery: n for delivery, n in sends.items() if n > 1}
        print(f"cluster faults: {len(deliveries)} webhook POSTs of {len(sends)} notices",
              file=sys.stderr)
        self.assertEqual(repeated, {}, "notices sent more than once")
        for job in jobs:
            self.assertEqual(events[job.id], ["queued", "running", "succeeded"], job.id)

    # --- a job that only a stopped node can run ------------------------------------------

    def vulkan_cluster(self, *node_a_args):
        """node-c offering vulkan beside software, node-a software alone; node-c then stopped."""
        reason = self.vulkan_unusable()
        if reason:
            self.skipTest(reason)
        self.start_cluster(cluster_flags.lease(WAIT_LEASE_S))
        self.cluster.start("node-c", cluster_flags.backends("software", "vulkan"))
        a = self.cluster.start("node-a", [*cluster_flags.backends("software"), *node_a_args])
        self.cluster.stop("node-c")
        return a

    def waiting_or_over(self, client, job_id):
        """The job once it says it waits for a vulkan node, or once it left the queue."""
        job = client.get(job_id)
        waits = "vulkan" in job.waiting_reason
        return job if waits or job.state != self.pb.job_pb2.JOB_STATE_QUEUED else None

    def beats_of(self, node):
        """node's last heartbeat, as node-a lists it."""
        return self.cluster.nodes("node-a")[node]["heartbeat_time"]

    def test_a_job_waits_for_the_only_node_offering_its_backend_and_runs_when_it_is_back(self):
        a = self.vulkan_cluster()
        Job = self.pb.job_pb2
        job = self.submit(a, "waits.mp4", backend="vulkan")
        # node-c is no longer live (3 leases silent): until now the job would have been taken
        # by node-a's software slot and failed there.
        seen = wait_until(lambda: self.waiting_or_over(a, job.id), "the job to wait or end")
        self.assertEqual(seen.state, Job.JOB_STATE_QUEUED, seen.error.message)
        watched = next(iter(a.watch(job.id, timeout=60)))  # WatchJob's snapshot
        self.assertEqual(watched.job.state, Job.JOB_STATE_QUEUED)
        self.assertIn("waiting for a node that offers the vulkan backend",
                      watched.job.waiting_reason)
        # Two more beats of node-a: it has looked at the queue since, and left the job there.
        for _ in range(2):
            last = self.beats_of("node-a")
            wait_until(lambda: self.beats_of("node-a") != last, "node-a to beat")
        again = a.get(job.id)
        self.assertEqual((again.state, again.attempt, again.node), (Job.JOB_STATE_QUEUED, 0, ""))
        # Its own field (Job.waiting_reason): error is for FAILED and CANCELLED jobs alone.
        self.assertEqual(again.waiting_reason,
                         "waiting for a node that offers the vulkan backend: none is live; "
                         "it fails after 3600 s (capable_node_wait)")
        self.assertFalse(again.HasField("error"), again.error.message)
        listed = {j.id: j for j in a.list().jobs}[job.id]
        self.assertEqual(listed.waiting_reason, again.waiting_reason)
        self.assertFalse(listed.HasField("error"), listed.error.message)
        address = self.cluster.daemons["node-a"].address
        shown = subprocess.run([TRANSCODE, "get", job.id, "--server", address],
                               capture_output=True, text=True, timeout=60)
        self.assertIn("waiting  " + again.waiting_reason + "\n", shown.stdout)
        self.assertNotIn("error ", shown.stdout)
        table = subprocess.run([TRANSCODE, "jobs", "--server", address],
                               capture_output=True, text=True, timeout=60).stdout.splitlines()
        row = next(i for i, line in enumerate(table) if line.startswith(job.id))
        self.assertEqual(table[row + 1], " " * 21 + "waiting: " + again.waiting_reason)

        self.cluster.start("node-c", cluster_flags.backends("software", "vulkan"))
        done = self.final(a, job.id)
        self.assert_succeeded(done, attempt=1)
        self.assertEqual(done.node, "node-c")
        self.assertEqual(done.waiting_reason, "")
        self.assertIn("vulkan", done.device)
        self.assertEqual(partial_files(self.media), [])

    def test_a_job_that_waited_capable_node_wait_in_vain_fails_naming_its_backend(self):
        a = self.vulkan_cluster("--capable-node-wait", "2")
        job = self.submit(a, "waited.mp4", backend="vulkan")
        done = self.final(a, job.id)
        Job = self.pb.job_pb2
        self.assertEqual((done.state, done.attempt, done.node), (Job.JOB_STATE_FAILED, 0, ""),
                         done.error.message)
        self.assertEqual(done.error.code, self.pb.job_pb2.ERROR_CODE_DEVICE)
        self.assertIn("the vulkan backend", done.error.message)
        self.assertIn("capable_node_wait", done.error.message)
        self.assertFalse(os.path.exists(done.config.outputs[0].path))

    # --- a node whose path to the database drops everything ------------------------------

    def start_through(self, proxy, node, args=(), env=None):
        """Starts `node` on the cluster's database through `proxy` (TCP on loopback)."""
        database = self.cluster.url.split("@/", 1)[1].split("?", 1)[0]
        url = f"postgresql://postgres@127.0.0.1:{proxy.port}/{database}"
        daemon = RealDaemon(extra_args=["--store", url, *self.cluster.common_args[2:], *args],
                            media=self.media, env=env, node_id=node)
        self.cluster.daemons[node] = daemon
        self.cluster.clients[node] = transcoded_client.Client(daemon.address,
                                                              stubs_dir=self.stubs)
        return self.cluster.clients[node]

    def test_a_blackholed_node_stops_serving_and_its_job_is_published_once_elsewhere(self):
        self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        proxy = BlackholeProxy(os.path.join(self.server.dir, ".s.PGSQL.5432"))
        self.addCleanup(proxy.close)
        a = self.start_through(proxy, "node-a", ["--warm-workers", "0"], env=SLOW)
        renames = self.renames()
        job = self.submit(a, "blackholed.mp4", clip="slow.mp4")
        Job = self.pb.job_pb2
        self.running_on(a, job.id, "node-a")
        b = self.cluster.start("node-b")
        proxy.blackhole()
        try:
            wait_until(lambda: self.cluster.health("node-a") == "NOT_SERVING",
                       "node-a to say NOT_SERVING", timeout=NOT_SERVING_WITHIN_S)
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                a.get(job.id)
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAVAILABLE)
            done = self.final(b, job.id)
            self.assert_succeeded(done, attempt=2, clip="slow.mp4")
            self.assertEqual(done.node, "node-b")
            self.assertEqual(renames.counts(), {"blackholed.mp4": 1})
            published = file_identity(done.config.outputs[0].path)
        finally:
            proxy.restore()
        wait_until(lambda: self.cluster.health("node-a") == "SERVING", "node-a to serve again")

        def without_the_job():
            mine = self.cluster.nodes("node-b").get("node-a", {})
            return not mine.get("gone") and job.id not in mine.get("running_jobs", [])

        wait_until(without_the_job, "node-a to beat again without the job")
        wait_until(lambda: partial_files(self.media) == [], "attempt 1's temp file to go")
        again = a.get(job.id)
        self.assertEqual((again.state, again.attempt, again.node),
                         (Job.JOB_STATE_SUCCEEDED, 2, "node-b"))
        self.assertEqual(renames.counts(), {"blackholed.mp4": 1})
        self.assertEqual(file_identity(done.config.outputs[0].path), published,
                         "node-a published over attempt 2")


def load_tests(loader, tests, pattern):
    """This file's cases, not the ClusterTest ones its class inherits."""
    names = sorted(name for name in vars(ClusterFaultsTest) if name.startswith("test_"))
    return unittest.TestSuite(ClusterFaultsTest(name) for name in names)


if __name__ == "__main__":
    visible_skips.main()  # a skipped case (no PostgreSQL) is ctest's Skipped
