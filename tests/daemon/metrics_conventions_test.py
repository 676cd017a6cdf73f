#!/usr/bin/python3
"""The Prometheus endpoint of a real daemon, after a job has run, against the conventions
operators' tools expect: `promtool check metrics` (Debian's prometheus package) finds nothing to
say, and every expression of the Grafana dashboard (deploy/grafana/) names only metrics the
daemon exports.

  metrics_conventions_test.py -k promtool    # the lint
  metrics_conventions_test.py -k dashboard   # the dashboard
"""
import json
import os
import re
import subprocess
import tempfile
import unittest
import urllib.request

from real_daemon import SOURCE, RealDaemon

DASHBOARD = os.path.join(SOURCE, "deploy", "grafana", "transcoded-dashboard.json")

# PromQL words that are not metric names when they stand alone.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
            "and", "or", "unless", "inf", "nan"}


def exported_names(text):
    """The series names a scrape can hold: every sample's name, and for each family in a
    `# TYPE` line its name and, for histograms and summaries, the suffixed series, so that a
    family with no sample yet (no job running) still counts."""
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()[:4]
            names.add(name)
            if kind == "histogram":
                names |= {name + "_bucket", name + "_sum", name + "_count"}
            elif kind == "summary":
                names |= {name + "_sum", name + "_count"}
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


def metric_names(expr):
    """The metric names a PromQL expression reads: what is left after strings, label
    matchers, ranges, grouping clauses, Grafana variables, numbers, function calls and
    keywords are taken out."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)  # strings, before braces can hide in them
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # ranges and subqueries
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    expr = re.sub(r"\$\{?\w+\}?", " ", expr)  # Grafana variables
    names = set()
    for match in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr):
        word = match.group(0)
        if re.match(r"\s*\(", expr[match.end():]) or word.lower() in KEYWORDS:
            continue  # a function or an aggregation, or a keyword
        if re.match(r"[0-9.eE+-]", expr[match.start() - 1:match.start()] or " "):
            continue  # the exponent of a number: 1e3
        names.add(word)
    return names


def dashboard_expressions(dashboard):
    """Every query of the dashboard: panel targets (rows' nested panels too) and the templating
    queries (label_values(metric, label))."""
    exprs = []
    panels = list(dashboard["panels"])
    while panels:
        panel = panels.pop()
        panels.extend(panel.get("panels", []))
        exprs += [(panel["title"], t["expr"]) for t in panel.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]
            query = query["query"] if isinstance(query, dict) else query
            match = re.match(r"label_values\((.*),\s*\w+\)$", query)
            exprs.append((variable["name"], match.group(1) if match else query))
    return exprs


class MetricsConventionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # With a webhook secret, so that the webhook metrics are exported and linted too.
        cls.secret_dir = tempfile.TemporaryDirectory(prefix="tc-metrics-secret-")
        secret = os.path.join(cls.secret_dir.name, "webhook-secret")
        with open(secret, "w") as f:
            f.write("whsec_c2VjcmV0\n")
        cls.daemon = RealDaemon(metrics=True, extra_args=["--webhook-secret-file", secret])
        try:
            with cls.daemon.client() as client:
                out = os.path.join(cls.daemon.media, "out.mp4")
                job = client.submit(cls.daemon.input,
                                    [client.output(out, width=160, height=120)])
                final = client.wait(job.id, timeout=240)
                assert final.state == client.pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message
            url = f"http://{cls.daemon.metrics_address}/metrics"
            cls.text = urllib.request.urlopen(url, timeout=30).read().decode()
        except BaseException:
            cls.daemon.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        cls.secret_dir.cleanup()

    def test_promtool_check_metrics_is_clean(self):
        self.assertIn("transcoded_frames_decoded_total", self.text)  # the job counted
        lint = subprocess.run(["promtool", "check", "metrics"], input=self.text,
                              capture_output=True, text=True)
        self.assertEqual(lint.stdout + lint.stderr, "")
        self.assertEqual(lint.returncode, 0)

    def test_promtool_catches_a_bad_name(self):
        # The lint above could pass by saying nothing at all: this proves it speaks.
        bad = "# HELP x_percent x\n# TYPE x_percent counter\nx_percent 1\n"
        lint = subprocess.run(["promtool", "check", "metrics"], input=bad,
                              capture_output=True, text=True)
        self.assertNotEqual(lint.stdout + lint.stderr, "")

    def test_promtool_sees_the_standard_names(self):
        names = exported_names(self.text)
        for name in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                     "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                     "process_start_time_seconds", "transcoded_device_engine_busy_ratio",
                     "transcoded_webhook_backlog",
                     "transcoded_webhook_oldest_undelivered_age_seconds",
                     "transcoded_job_engine_busy_ratio"):
            self.assertIn(name, names)
        self.assertFalse([n for n in names if n.endswith("_percent")])
        self.assertRegex(self.text, r'\ntranscoded_build_info\{version="[^"]+",ffmpeg="[^"]+"\} 1\n')

    def test_dashboard_names_only_exported_metrics(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        self.assertGreaterEqual(dashboard["schemaVersion"], 36)
        self.assertIn("datasource", [v["name"] for v in dashboard["templating"]["list"]])
        exported = exported_names(self.text)
        exprs = dashboard_expressions(dashboard)
        self.assertGreater(len(exprs), 10)
        used = set()
        for title, expr in exprs:
            names = metric_names(expr)
            self.assertTrue(names, f"{title}: no metric in {expr}")
            self.assertEqual(names - exported, set(), f"{title}: {expr}")
            used |= names
        # The panels the operators need: busy per device and class, queue, states, fps, durations.
        for name in ("transcoded_device_engine_busy_ratio", "transcoded_queue_depth",
                     "transcoded_jobs", "transcoded_frames_decoded_total",
                     "transcoded_job_duration_seconds_bucket", "transcoded_running_jobs",
                     "transcoded_device_slots", "process_cpu_seconds_total"):
            self.assertIn(name, used)

    def test_dashboard_check_reads_promql(self):
        self.assertEqual(metric_names(
            'histogram_quantile(0.95, sum by (le, state) (rate(a_bucket{x=~"$i",y="{b}"}'
            '[$__rate_interval]))) / on (state) group_left b_total * 1e3'), {"a_bucket", "b_total"})
        self.assertEqual(metric_names("time() - process_start_time_seconds{instance=~\"$i\"}"),
                         {"process_start_time_seconds"})
        self.assertEqual(metric_names("sum without (job) (c) and bool d offset 5m"), {"c", "d"})
        self.assertIn("transcoded_bogus_total",
                      metric_names("rate(transcoded_bogus_total[5m])") - exported_names(self.text))


if __name__ == "__main__":
    unittest.main(verbosity=2)
