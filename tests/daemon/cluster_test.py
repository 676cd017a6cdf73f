#!/usr/bin/python3
"""Cluster mode (issue 13) for real: three daemons on one machine share one PostgreSQL database
(postgres_server.py starts it) and one media root, as GPU nodes share a store and an NFS volume.

- 60 jobs submitted round-robin to the three all succeed, each run once, spread over the nodes;
- a node killed with kill -9 mid-run: its jobs finish on the others (attempt 2), no temp file is
  left, and the node restarted late publishes nothing over them;
- a node paused (SIGSTOP) past its lease, then resumed: the publish fence holds;
- cancel and watch through a node other than the one running the job;
- a job only one node can run (its backend offered there alone) runs there;
- PostgreSQL stopped for 10 s mid-run: NOT_SERVING and UNAVAILABLE meanwhile, then every job
  succeeds and a webhook receiver gets every state change once.

Outputs are checked with ffprobe against the source. Waits are deadlines on what a user can see
(a job's state, a node's heartbeat, a health answer), never assertions on time.
"""
import collections
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import cluster_flags
import visible_skips
from postgres_server import PostgresServer
from real_daemon import CLIENT_PACKAGE, SOURCE, TRANSCODED, RealDaemon, make_clip
from renames import Renames
from webhook_test import Receiver, verify

sys.path.insert(0, CLIENT_PACKAGE)
import grpc  # noqa: E402
import transcoded_client  # noqa: E402

TRANSCODE = os.environ.get("TC_TRANSCODE", "transcode")
NODES = ("node-a", "node-b", "node-c")
SHORT_LEASE_S = 4  # a dead or paused node loses its jobs this long after it fell silent
SLOW = {"TC_TEST_FAULT": "slow:slow.mp4"}  # this node's workers crawl through slow.mp4
SECRET = "cluster-whsec-41"
EXIT_DEVICE = 5
WAIT_S = 300  # a deadline against a hang on a loaded machine, not a figure


def cluster_unavailable():
    """None, or why this machine or build cannot run a cluster."""
    reason = PostgresServer.unavailable()
    if reason:
        return reason
    if not cluster_flags.LEASE_FLAG:
        return f"{TRANSCODED} has no lease flag: claiming and leases (issue 13) are not built in"
    return None


UNAVAILABLE = cluster_unavailable()


def wait_until(check, what, timeout=WAIT_S):
    """check()'s first true value, polled until the deadline; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def partial_files(root):
    """Temp files and directories of an unfinished publish (`.NAME.aN.partial`) under root."""
    return [os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files
            if n.endswith(".partial")]


def probe_video(path):
    """(codec, width, height, decoded frames) of the first video stream, by ffprobe."""
    done = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                           "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                           "-of", "json", path], capture_output=True, text=True)
    if done.returncode != 0:
        return (None, None, None, done.stderr.strip())
    stream = json.loads(done.stdout)["streams"][0]
    return (stream["codec_name"], stream["width"], stream["height"],
            int(stream["nb_read_frames"]))


def children(pid):
    """The live child processes of pid that are workers, from /proc: not its zygote, whose
    command line says --zygote (the workers it forks inherit that, but name themselves
    tc-worker)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline") as f:
                zygote = f.read().split("\0")[1:2] == ["--zygote"]
            with open(f"/proc/{entry}/comm") as f:
                zygote = zygote and f.read().strip() != "tc-worker"
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == pid and fields[0] != "Z" and not zygote:
            found.append(int(entry))
    return found


def waits_on_a_pipe(pid):
    """Whether a thread of pid is blocked reading a pipe: a worker that finished its outputs
    and waits for its daemon's answer to "may I publish?" (/proc/PID/task/*/wchan)."""
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/wchan") as f:
                if "pipe_read" in f.read():
                    return True
    except OSError:
        pass  # gone
    return False


def stopped(pid):
    """Whether pid is stopped by a signal (/proc/PID/stat state T)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False  # gone


def signal_all(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def heartbeat(node):
    """A node's last heartbeat (as `transcode nodes --json` prints it) as a datetime."""
    return datetime.datetime.fromisoformat(node["heartbeat_time"].replace("Z", "+00:00"))


def file_identity(path):
    """What a publish over the file would change: its inode and modification time."""
    info = os.stat(path)
    return (info.st_ino, info.st_mtime_ns)


class Cluster:
    """Daemons on one database and one media root, started and stopped one by one."""

    def __init__(self, server, stubs, media, common_args=()):
        self.server = server
        self.stubs = stubs
        self.media = media
        self.url = server.url(server.create_database())
        self.common_args = ["--store", self.url, *common_args]
        self.daemons = {}
        self.clients = {}

    def start(self, node, args=(), env=None):
        daemon = RealDaemon(extra_args=[*self.common_args, *args], media=self.media, env=env,
                            node_id=node)
        self.daemons[node] = daemon
        self.clients[node] = transcoded_client.Client(daemon.address, stubs_dir=self.stubs)
        return self.clients[node]

    def restart(self, node):
        self.clients[node].close()
        self.daemons[node].restart()
        self.clients[node] = transcoded_client.Client(self.daemons[node].address,
                                                      stubs_dir=self.stubs)
        return self.clients[node]

    def stop(self, node):
        self.clients.pop(node).close()
        self.daemons.pop(node).stop()

    def stop_all(self):
        for node in list(self.daemons):
            self.stop(node)

    def nodes(self, node):
        """ListNodes through `node`, as `transcode nodes --json` prints it: {id: node}."""
        done = subprocess.run([TRANSCODE, "nodes", "--json", "--server",
                               self.daemons[node].address],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise AssertionError(f"transcode nodes: {done.stderr}")
        return {n["id"]: n for n in json.loads(done.stdout).get("nodes", [])}

    def health(self, node):
        """`transcode health` through the node: SERVING, NOT_SERVING, ..."""
        done = subprocess.run([TRANSCODE, "health", "--server", self.daemons[node].address],
                              capture_output=True, text=True, timeout=60)
        return done.stdout.strip() or done.stderr.strip()


@unittest.skipIf(UNAVAILABLE, UNAVAILABLE)
class ClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = PostgresServer()
        cls.tmp = tempfile.TemporaryDirectory(prefix="tc-cluster-")
        cls.stubs = os.path.join(cls.tmp.name, "stubs")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs)
        cls.pb = transcoded_client.load(cls.stubs)
        cls.clips = os.path.join(cls.tmp.name, "clips")
        os.makedirs(cls.clips)
        cls.clip = os.path.join(cls.clips, "in.mp4")
        make_clip(cls.clip)
        # Long enough for a slowed worker (TC_TEST_FAULT=slow) to be mid-run when we act.
        cls.slow_clip = os.path.join(cls.clips, "slow.mp4")
        make_clip(cls.slow_clip, seconds=3)
        cls.frames = {clip: probe_video(clip)[3] for clip in (cls.clip, cls.slow_clip)}
        secret_file = os.path.join(cls.tmp.name, "webhook-secret")
        with open(secret_file, "w") as f:
            f.write(SECRET + "\n")
        cls.webhook_args = ["--webhook-secret-file", secret_file,
                            "--webhook-allow", "127.0.0.1/32"]

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.tmp.cleanup()

    def setUp(self):
        self.media = tempfile.mkdtemp(prefix="media-", dir=self.tmp.name)
        for clip in (self.clip, self.slow_clip):
            os.link(clip, os.path.join(self.media, os.path.basename(clip)))
        self.receivers = []

    def tearDown(self):
        if hasattr(self, "cluster"):
            self.cluster.stop_all()
        for receiver in self.receivers:
            receiver.close()

    def start_cluster(self, common_args=()):
        self.cluster = Cluster(self.server, self.stubs, self.media, common_args)
        return self.cluster

    # --- jobs and what they left ---------------------------------------------------------

    def submit(self, client, name, clip="in.mp4", **fields):
        out = os.path.join(self.media, name)
        return client.submit(os.path.join(self.media, clip),
                             [client.output(out, codec="h264", width=160, height=120)],
                             request_id=name, **fields)

    def job_in_state(self, client, job_id, *states):
        job = client.get(job_id)
        return job if job.state in states else None

    def final(self, client, job_id):
        Job = client.pb.job_pb2
        ends = (Job.JOB_STATE_SUCCEEDED, Job.JOB_STATE_FAILED, Job.JOB_STATE_CANCELLED)
        return wait_until(lambda: self.job_in_state(client, job_id, *ends), f"job {job_id} to end")

    def running_on(self, client, job_id, node):
        Job = client.pb.job_pb2
        job = wait_until(lambda: self.job_in_state(client, job_id, Job.JOB_STATE_RUNNING),
                         f"job {job_id} to run")
        self.assertEqual(job.node, node, f"job {job_id} runs elsewhere")
        return job

    def assert_succeeded(self, job, attempt, clip="in.mp4"):
        self.assertEqual(job.state, self.pb.job_pb2.JOB_STATE_SUCCEEDED,
                         f"{job.id}: {job.error.message}")
        self.assertEqual(job.attempt, attempt, job.id)
        self.assertIn(job.node, NODES, job.id)
        out = job.config.outputs[0].path
        self.assertEqual(probe_video(out),
                         ("h264", 160, 120, self.frames[os.path.join(self.clips, clip)]), out)

    # --- the tests -----------------------------------------------------------------------

    def test_sixty_jobs_round_robin_all_run_once_spread_over_the_nodes(self):
        cluster = self.start_cluster()
        clients = [cluster.start(node) for node in NODES]
        jobs = [self.submit(clients[i % 3], f"rr-{i}.mp4") for i in range(60)]
        finals = [self.final(clients[(i + 1) % 3], job.id) for i, job in enumerate(jobs)]
        for job in finals:
            self.assert_succeeded(job, attempt=1)
        ran = collections.Counter(job.node for job in finals)
        self.assertGreater(len(ran), 1, f"one node ran every job: {ran}")
        self.assertEqual(partial_files(self.media), [])
        print(f"cluster: 60 jobs ran on {dict(ran)}", file=sys.stderr)

    def test_a_killed_nodes_jobs_rerun_elsewhere_and_its_late_restart_publishes_nothing(self):
        cluster = self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        a = cluster.start("node-a", ["--slots", "2"], env=SLOW)
        jobs = [self.submit(a, f"killed-{i}.mp4", clip="slow.mp4") for i in range(2)]
        for job in jobs:
            self.running_on(a, job.id, "node-a")
        b = cluster.start("node-b")
        cluster.start("node-c")
        cluster.daemons["node-a"].kill()
        finals = [self.final(b, job.id) for job in jobs]
        for job in finals:
            self.assert_succeeded(job, attempt=2, clip="slow.mp4")
            self.assertNotEqual(job.node, "node-a")
        self.assertEqual(partial_files(self.media), [])
        published = {job.id: file_identity(job.config.outputs[0].path) for job in finals}

        # node-a alone again, late: it runs a job of its own, so it has done whatever its
        # start-up does about the jobs it held, and must have published nothing over them.
        cluster.stop("node-b")
        cluster.stop("node-c")
        a = cluster.restart("node-a")
        after = self.final(a, self.submit(a, "after-restart.mp4").id)
        self.assert_succeeded(after, attempt=1)
        self.assertEqual(after.node, "node-a")
        for job in finals:
            again = a.get(job.id)
            self.assertEqual((again.state, again.attempt, again.node),
                             (job.state, job.attempt, job.node))
            self.assertEqual(file_identity(job.config.outputs[0].path), published[job.id],
                             f"{job.id}: the output was replaced after the restart")
        self.assertEqual(partial_files(self.media), [])

    def test_a_node_paused_past_its_lease_does_not_publish_when_resumed(self):
        cluster = self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        # No warm workers: node-a's children are then the job's worker alone.
        a = cluster.start("node-a", ["--warm-workers", "0"], env=SLOW)
        job = self.submit(a, "paused.mp4", clip="slow.mp4")
        self.running_on(a, job.id, "node-a")
        b = cluster.start("node-b")
        cluster.start("node-c")
        # The whole node stops, its worker too. After attempt 2 has published, attempt 1's worker
        # resumes alone and finishes its outputs while its daemon is still stopped: the moment
        # it would publish over attempt 2 without the fence. Then the daemon resumes.
        daemon = cluster.daemons["node-a"].process.pid
        workers = children(daemon)
        self.assertTrue(workers, "node-a runs no worker")
        silent_since = heartbeat(cluster.nodes("node-b")["node-a"])
        signal_all([daemon, *workers], signal.SIGSTOP)
        try:
            done = self.final(b, job.id)
            self.assert_succeeded(done, attempt=2, clip="slow.mp4")
            self.assertNotEqual(done.node, "node-a")
            published = file_identity(done.config.outputs[0].path)
            signal_all(workers, signal.SIGCONT)
            wait_until(lambda: all(w not in children(daemon) or waits_on_a_pipe(w)
                                   for w in workers),
                       "node-a's worker of attempt 1 to finish its outputs")
        finally:
            signal_all([daemon, *workers], signal.SIGCONT)

        # Resumed: attempt 1's worker ends (refused the publish), and node-a heartbeats again
        # without the job.
        wait_until(lambda: not set(workers) & set(children(daemon)),
                   "node-a's worker of attempt 1 to end")

        def resumed():
            mine = cluster.nodes("node-b")["node-a"]
            return heartbeat(mine) > silent_since and job.id not in mine.get("running_jobs", [])

        wait_until(resumed, "node-a to heartbeat again without the job")
        self.assertEqual(cluster.health("node-a"), "SERVING")
        again = b.get(job.id)
        self.assertEqual((again.state, again.attempt, again.node),
                         (done.state, done.attempt, done.node))
        self.assertEqual(file_identity(done.config.outputs[0].path), published,
                         "the paused node published over attempt 2")
        self.assertEqual(partial_files(self.media), [])

    def test_cancel_and_watch_through_a_node_that_does_not_run_the_job(self):
        cluster = self.start_cluster()
        a = cluster.start("node-a", env=SLOW)
        job = self.submit(a, "cancelled.mp4", clip="slow.mp4")
        self.running_on(a, job.id, "node-a")
        b = cluster.start("node-b")
        c = cluster.start("node-c")
        Job = self.pb.job_pb2
        seen, failures = [], []

        def watch():
            try:
                seen.extend(event.job for event in b.watch(job.id, timeout=WAIT_S))
            except transcoded_client.TranscodedError as error:
                failures.append(error)

        watcher = threading.Thread(target=watch)
        watcher.start()
        wait_until(lambda: failures or any(j.state == Job.JOB_STATE_RUNNING
                                           and j.progress.frames_decoded > 0 for j in list(seen)),
                   "node-b's watch to show node-a's progress")
        c.cancel(job.id)
        watcher.join(timeout=WAIT_S)
        self.assertFalse(watcher.is_alive(), "node-b's watch did not end")
        self.assertEqual(failures, [])
        self.assertEqual(seen[-1].state, Job.JOB_STATE_CANCELLED)
        self.assertEqual(a.get(job.id).state, Job.JOB_STATE_CANCELLED)
        # node-a stopped the worker: the job leaves its running list, nothing is written.
        wait_until(lambda: job.id not in cluster.nodes("node-c")["node-a"].get("running_jobs", []),
                   "node-a to drop the cancelled job")
        self.assertFalse(os.path.exists(job.config.outputs[0].path))
        self.assertEqual(partial_files(self.media), [])

    def vulkan_unusable(self):
        """None, or why this machine cannot run the vulkan backend (Mesa lavapipe is enough)."""
        out = os.path.join(self.media, "vulkan-probe.mp4")
        ran = subprocess.run([TRANSCODE, "run", self.clip, "--backend", "vulkan", "-q", "-o", out,
                              "--size", "160x120"], capture_output=True, text=True)
        if ran.returncode == EXIT_DEVICE:
            return f"no vulkan device here: {ran.stderr.strip()}"
        self.assertEqual(ran.returncode, 0, ran.stderr)
        return None

    def test_a_job_only_one_node_can_run_runs_on_that_node(self):
        reason = self.vulkan_unusable()
        if reason:
            self.skipTest(reason)
        cluster = self.start_cluster()
        # node-c first: the others learn which backends other nodes offer at their start (then
        # at each heartbeat), and leave vulkan jobs to node-c.
        c = cluster.start("node-c", cluster_flags.backends("software", "vulkan"))
        caps = c.capabilities()
        self.assertIn("vulkan", caps.backends, f"node-c offers vulkan; notes: {list(caps.notes)}")
        a = cluster.start("node-a", cluster_flags.backends("software"))
        b = cluster.start("node-b", cluster_flags.backends("software"))
        jobs = [self.submit((a, b)[i % 2], f"vulkan-{i}.mp4", backend="vulkan") for i in range(4)]
        for job in jobs:
            done = self.final(a, job.id)
            self.assert_succeeded(done, attempt=1)
            self.assertEqual(done.node, "node-c")
            self.assertIn("vulkan", done.device)

    def test_postgresql_down_for_ten_seconds_loses_no_job_and_no_state_change(self):
        receiver = Receiver()
        self.receivers.append(receiver)
        cluster = self.start_cluster(self.webhook_args)
        clients = [cluster.start(node, env=SLOW) for node in NODES]
        Job = self.pb.job_pb2
        jobs = [self.submit(clients[i % 3], f"outage-{i}.mp4", clip="slow.mp4",
                            webhook_url=receiver.url) for i in range(6)]
        wait_until(lambda: sum(clients[0].get(j.id).state == Job.JOB_STATE_RUNNING
                               for j in jobs) >= 2, "jobs to run")
        self.server.halt()
        halted = time.monotonic()
        try:
            for node in NODES:
                wait_until(lambda: cluster.health(node) == "NOT_SERVING",
                           f"{node} to say NOT_SERVING")
            with self.assertRaises(transcoded_client.TranscodedError) as refused:
                self.submit(clients[0], "during-outage.mp4")
            self.assertEqual(refused.exception.code, grpc.StatusCode.UNAVAILABLE)
            self.assertEqual(refused.exception.reason, "STORE_UNAVAILABLE")
            time.sleep(max(0.0, halted + 10 - time.monotonic()))  # the outage lasts 10 s
        finally:
            self.server.start()
        for node in NODES:
            wait_until(lambda: cluster.health(node) == "SERVING", f"{node} to serve again")
        finals = [self.final(clients[(i + 1) % 3], job.id) for i, job in enumerate(jobs)]
        for job in finals:
            self.assert_succeeded(job, attempt=1, clip="slow.mp4")  # kept running meanwhile
        self.assertEqual(partial_files(self.media), [])
        self.assertFalse(os.path.exists(os.path.join(self.media, "during-outage.mp4")))
        events = self.webhook_events(receiver, 3 * len(jobs))
        for job in finals:
            self.assertEqual(events.get(job.id), ["queued", "running", "succeeded"], job.id)
        self.assertEqual(set(events), {job.id for job in finals})

    def renames(self):
        """Renames into the media root from now on (renames.py): publishes, counted."""
        counter = Renames(self.media)
        self.addCleanup(counter.close)
        return counter

    def test_an_outage_longer_than_the_lease_publishes_what_finished_during_it_once(self):
        cluster = self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        a = cluster.start("node-a", ["--warm-workers", "0"], env=SLOW)
        renames = self.renames()
        job = self.submit(a, "outlasted.mp4", clip="slow.mp4")
        self.running_on(a, job.id, "node-a")
        daemon = cluster.daemons["node-a"].process.pid
        workers = wait_until(lambda: children(daemon), "node-a to start the job's worker")
        self.server.halt()
        try:
            # The worker finishes its outputs during the outage and asks to publish; the store
            # stays away for twice the lease after that.
            wait_until(lambda: all(waits_on_a_pipe(w) for w in workers),
                       "the worker to finish its outputs and ask to publish")
            time.sleep(2 * SHORT_LEASE_S)
        finally:
            self.server.start()
        wait_until(lambda: cluster.health("node-a") == "SERVING", "node-a to serve again")
        done = self.final(a, job.id)
        self.assert_succeeded(done, attempt=1, clip="slow.mp4")
        self.assertEqual(done.node, "node-a")
        self.assertEqual(renames.counts(), {"outlasted.mp4": 1})
        self.assertEqual(partial_files(self.media), [])

    def test_a_cancel_of_a_killed_nodes_job_stays_cancelled_and_nothing_is_published(self):
        cluster = self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        a = cluster.start("node-a", env=SLOW)
        job = self.submit(a, "cancel-dead.mp4", clip="slow.mp4")
        self.running_on(a, job.id, "node-a")
        b = cluster.start("node-b")
        renames = self.renames()
        cluster.daemons["node-a"].kill()
        b.cancel(job.id)  # answered OK: accepted in the job's row
        done = self.final(b, job.id)
        Job = self.pb.job_pb2
        # Not run again: the cut-off attempt 1 is the last, and node-b published nothing.
        self.assertEqual((done.state, done.attempt), (Job.JOB_STATE_CANCELLED, 1))
        self.assertEqual(renames.counts(), {})
        self.assertFalse(os.path.exists(job.config.outputs[0].path))
        wait_until(lambda: partial_files(self.media) == [], "attempt 1's temp file to go")

    def test_a_node_killed_between_its_rename_and_its_record_is_published_once(self):
        cluster = self.start_cluster(cluster_flags.lease(SHORT_LEASE_S))
        # node-a's worker stops itself once its output is renamed into place, before it says
        # its result: its node is killed there, between the rename and the record.
        a = cluster.start("node-a", ["--warm-workers", "0"],
                          env={"TC_TEST_FAULT": "stop-published"})
        renames = self.renames()
        job = self.submit(a, "once.mp4")
        daemon = cluster.daemons["node-a"].process.pid
        wait_until(lambda: any(stopped(w) for w in children(daemon)),
                   "node-a's worker to stop after its rename")
        self.assertEqual(renames.counts(), {"once.mp4": 1})
        b = cluster.start("node-b")
        cluster.daemons["node-a"].kill()
        done = self.final(b, job.id)
        # node-b finishes attempt 1's publish: the job is not run, nor its output renamed, again.
        self.assert_succeeded(done, attempt=1)
        self.assertEqual(renames.counts(), {"once.mp4": 1})
        self.assertEqual(partial_files(self.media), [])

    def webhook_events(self, receiver, changes):
        """{job id: its events in order}, once `changes` distinct deliveries arrived, each
        signed. A delivery id seen again is a redelivery of the same notice (docs/daemon.md, Webhooks: a receiver
        may rarely see one twice and de-duplicates on it): counted, and it must say the same."""
        def distinct():
            with receiver.lock:
                deliveries = list(receiver.delivered)
            ids = {headers["webhook-id"] for headers, _ in deliveries}
            return deliveries if len(ids) >= changes else None

        deliveries = wait_until(distinct, f"{changes} webhook notices")
        events, first = collections.defaultdict(list), {}
        for headers, body in deliveries:
            self.assertTrue(verify(SECRET, {k.lower(): v for k, v in headers.items()}, body))
            job = json.loads(body)
            change = (job["id"], job["state"].removeprefix("JOB_STATE_").lower())
            delivery = headers["webhook-id"]
            if delivery in first:
                self.assertEqual(change, first[delivery], f"delivery {delivery} said otherwise")
                continue
            first[delivery] = change
            events[change[0]].append(change[1])
        print(f"cluster: {len(first)} webhook notices, {len(deliveries) - len(first)} "
              "redelivered", file=sys.stderr)
        return dict(events)


if __name__ == "__main__":
    visible_skips.main()  # a skipped case (no PostgreSQL, no vulkan device) is ctest's Skipped
