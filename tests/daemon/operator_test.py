#!/usr/bin/python3
"""What an operator's deployment relies on, against a real daemon (issue 41):

- health_listen: with TLS on `listen`, a plaintext grpc.health.v1 client (what a kubelet's gRPC
  probe is) gets SERVING from the health port, and nothing from the TLS port;
- the memory budget: a daemon whose slots x worker_memory_mb exceed the cgroup's memory.max
  serves with its jobs at once capped to what the limit holds (ListNodes' capacity says so);
  one whose limit holds not one worker refuses to start (exit 2), naming both numbers;
- the metrics the alert rules (deploy/prometheus) read move: the queue wait histogram counts a
  job that ran, the store gauge says the store answers; every metric the rules name is
  exported; build_info's version is the VERSION file's, as both binaries' --version.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import yaml  # noqa: E402
from metrics_conventions_test import exported_names, metric_names  # noqa: E402
from real_daemon import RealDaemon, SOURCE, TRANSCODED  # noqa: E402

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]


def health(address):
    """`transcode health` in plaintext, as a kubelet gRPC probe asks: (exit code, output)."""
    done = subprocess.run([TRANSCODE, "health", "--server", address], capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def self_signed(directory):
    cert, key = os.path.join(directory, "tls.crt"), os.path.join(directory, "tls.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def fake_cgroup(directory, memory_max):
    path = os.path.join(directory, "cgroup")
    os.makedirs(path)
    with open(os.path.join(path, "memory.max"), "w", encoding="utf-8") as f:
        f.write(f"{memory_max}\n")
    return path


class HealthListenTest(unittest.TestCase):
    def test_probe_gets_serving_beside_tls(self):
        with tempfile.TemporaryDirectory(prefix="tc-op-tls-") as tmp:
            cert, key = self_signed(tmp)
            daemon = RealDaemon(extra_args=["--tls-cert", cert, "--tls-key", key,
                                            "--health-listen", "127.0.0.1:0"])
            try:
                self.assertIsNotNone(daemon.health_address)
                code, text = health(daemon.health_address)
                self.assertEqual(code, 0, text)
                self.assertIn("SERVING", text)
                # The TLS port itself refuses a plaintext probe: why the health port exists.
                code, text = health(daemon.address)
                self.assertNotEqual(code, 0, text)
            finally:
                daemon.stop()


class MemoryBudgetTest(unittest.TestCase):
    def start(self, memory_max, slots, nested=False):
        """The daemon on a fake cgroup tree: memory.max at its root, or (nested) on the pod's
        cgroup above the container's own ("max"), as /proc/self/cgroup places the daemon."""
        with tempfile.TemporaryDirectory(prefix="tc-op-mem-") as tmp:
            media = os.path.join(tmp, "media")
            os.makedirs(media)
            args = ["--cgroup-root", fake_cgroup(tmp, "max" if nested else memory_max)]
            if nested:
                pod = os.path.join(tmp, "cgroup", "kubepods", "pod1")
                os.makedirs(os.path.join(pod, "ctr"))
                for path, value in ((pod, memory_max), (os.path.join(pod, "ctr"), "max")):
                    with open(os.path.join(path, "memory.max"), "w", encoding="utf-8") as f:
                        f.write(f"{value}\n")
                os.makedirs(os.path.join(tmp, "proc", "self"))
                with open(os.path.join(tmp, "proc", "self", "cgroup"), "w",
                          encoding="utf-8") as f:
                    f.write("0::/kubepods/pod1/ctr\n")
                args += ["--proc-root", os.path.join(tmp, "proc")]
            return subprocess.run(
                [TRANSCODED, "--listen", "127.0.0.1:0", "--state-dir",
                 os.path.join(tmp, "state"), "--media-root", media, "--log-level", "warn",
                 "--slots", str(slots), "--worker-memory-mb", "8192", "--backend", "software"]
                + args, capture_output=True, text=True, timeout=60, input="")

    def test_reads_the_limit_of_an_ancestor(self):
        done = self.start(4 * 1024 ** 3, slots=4, nested=True)  # 8 GiB workers under 4 GiB
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("memory.max 4096 MiB", done.stderr)

    def test_refuses_a_limit_that_holds_not_one_worker(self):
        done = self.start(4 * 1024 ** 3, slots=1)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("worker_memory_mb 8192 MiB exceeds the cgroup's memory.max 4096 MiB",
                      done.stderr)
        self.assertNotIn("listening", done.stdout)

    def capacity(self, memory_max):
        """The jobs an idle daemon of 4 software slots x 8 GiB workers under memory_max would
        start now, as `transcode nodes --json` lists its device's capacity."""
        with tempfile.TemporaryDirectory(prefix="tc-op-fits-") as tmp:
            daemon = RealDaemon(extra_args=[
                "--slots", "4", "--worker-memory-mb", "8192", "--backend", "software",
                "--cgroup-root", fake_cgroup(tmp, memory_max)])
            try:
                done = subprocess.run([TRANSCODE, "nodes", "--json", "--server", daemon.address],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 0, done.stderr)
                nodes = json.loads(done.stdout)["nodes"]
                self.assertEqual(len(nodes), 1, done.stdout)
                devices = nodes[0]["devices"]
                self.assertEqual([d["name"] for d in devices], ["software"], done.stdout)
                return devices[0].get("capacity", 0)
            finally:
                daemon.stop()

    def test_caps_jobs_at_once_to_what_the_limit_holds(self):
        # 4 slots x 8 GiB = 32 GiB under 16 GiB: it serves, two jobs at once.
        self.assertEqual(self.capacity(16 * 1024 ** 3), 2)
        # Under 64 GiB the slots bound it: the memory cap takes nothing away.
        self.assertEqual(self.capacity(64 * 1024 ** 3), 4)


ALERTS = os.path.join(SOURCE, "deploy", "prometheus", "transcoded-alerts.yaml")


class AlertMetricsTest(unittest.TestCase):
    def test_alert_rules_name_only_exported_metrics(self):
        with tempfile.TemporaryDirectory(prefix="tc-op-alerts-") as tmp:
            secret = os.path.join(tmp, "webhook-secret")  # so that the webhook gauges exist
            with open(secret, "w") as f:
                f.write("whsec_c2VjcmV0\n")
            daemon = RealDaemon(metrics=True, extra_args=["--webhook-secret-file", secret])
            try:
                url = f"http://{daemon.metrics_address}/metrics"
                exported = exported_names(urllib.request.urlopen(url, timeout=30).read().decode())
            finally:
                daemon.stop()
        with open(ALERTS, encoding="utf-8") as f:
            rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
        self.assertEqual(len(rules), 8)
        for rule in rules:
            missing = metric_names(rule["expr"]) - exported - {"up"}  # up: Prometheus' own
            self.assertFalse(missing, f"{rule['alert']} reads {missing}, not exported")

    def test_queue_wait_and_store_gauges_move(self):
        daemon = RealDaemon(metrics=True)
        try:
            url = f"http://{daemon.metrics_address}/metrics"
            before = urllib.request.urlopen(url, timeout=30).read().decode()
            self.assertIn("transcoded_job_queue_wait_seconds_count 0\n", before)
            self.assertIn("transcoded_store_up 1\n", before)
            with daemon.client() as client:
                out = os.path.join(daemon.media, "out.mp4")
                job = client.submit(daemon.input, [client.output(out, width=160, height=120)])
                final = client.wait(job.id, timeout=240)
                self.assertEqual(final.state, client.pb.job_pb2.JOB_STATE_SUCCEEDED)
            after = urllib.request.urlopen(url, timeout=30).read().decode()
            # The image's tag and label, build_info and --version: all the VERSION file's.
            with open(os.path.join(SOURCE, "VERSION")) as f:
                version = f.read().strip()
            self.assertRegex(after, re.compile(
                r'^transcoded_build_info\{.*version="' + re.escape(version) + '"', re.M))
            for binary in (TRANSCODED, TRANSCODE):
                said = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                      timeout=30).stdout
                self.assertIn(f" {version} ", said)
            self.assertIn("transcoded_job_queue_wait_seconds_count 1\n", after)
            self.assertRegex(after, re.compile(
                r'^transcoded_job_queue_wait_seconds_bucket\{le="\+Inf"\} 1$', re.M))
        finally:
            daemon.stop()


if __name__ == "__main__":
    unittest.main()
