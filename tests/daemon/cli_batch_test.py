#!/usr/bin/python3
"""The CLI for scripts and programs (issue 41), `transcode` against a real daemon:

- one `transcode submit` of many inputs with an output name template: a job each, an id a line,
  every output written (ffprobe); a template that maps two inputs to one output is refused
  before anything is submitted;
- `--jobs FILE` (JSON Lines): a bad line is refused naming its line number, nothing submitted;
  `-` reads stdin;
- `transcode wait` on three jobs, one failing: a line per job, the failed job's exit code;
- `--progress json` of `watch` and `run`: a JSON object a line, percent rising to 100 (from the
  daemon's Progress.percent for watch), then the job or the report as the last line.
"""
import json
import os
import subprocess
import unittest

from real_daemon import RealDaemon, make_clip

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]
SLOW = {"TC_TEST_FAULT": "slow:slow"}  # the worker sleeps between frames of inputs named slow
EXIT_USAGE, EXIT_INPUT = 2, 3


def width_of(path):
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=width", "-of", "csv=p=0", path], capture_output=True,
                          text=True, check=True)
    return int(done.stdout.strip())


class CliBatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon(env=SLOW)
        cls.media = cls.daemon.media
        os.makedirs(os.path.join(cls.media, "in"))
        os.makedirs(os.path.join(cls.media, "out"))
        for name in ("a", "b", "c"):
            make_clip(os.path.join(cls.media, "in", f"{name}.mp4"))
        make_clip(os.path.join(cls.media, "in", "slow.mp4"), seconds=3, size="64x48")
        with open(os.path.join(cls.media, "in", "notmedia.mp4"), "w", encoding="utf-8") as f:
            f.write("not media\n")

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def transcode(self, *args, stdin=None):
        """`transcode ARGS --server ADDR` run in the media root: (exit code, stdout, stderr)."""
        command = [TRANSCODE, *args]
        if args[0] != "run":
            command += ["--server", self.daemon.address]
        done = subprocess.run(command, cwd=self.media, input=stdin, capture_output=True,
                              text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr

    def job_count(self):
        code, out, err = self.transcode("jobs", "--json", "--limit", "1000")
        self.assertEqual(code, 0, err)
        return len(json.loads(out).get("jobs", []))

    def test_submit_many_inputs_with_a_template_then_wait(self):
        code, out, err = self.transcode("submit", "in/a.mp4", "in/b.mp4", "in/c.mp4", "-o",
                                        "out/t-{stem}.mkv", "--size", "160x120")
        self.assertEqual(code, 0, err)
        ids = out.split()
        self.assertEqual(len(ids), 3, out)
        code, out, err = self.transcode("wait", *ids)
        self.assertEqual(code, 0, out + err)
        self.assertEqual(sorted(out.splitlines()), sorted(f"{i} succeeded" for i in ids))
        for name in ("a", "b", "c"):
            self.assertEqual(width_of(os.path.join(self.media, "out", f"t-{name}.mkv")), 160)

    def test_submit_json_prints_an_array(self):
        code, out, err = self.transcode("submit", "in/a.mp4", "in/b.mp4", "-o",
                                        "out/j-{n}-{name}.mkv", "--json")
        self.assertEqual(code, 0, err)
        jobs = json.loads(out)
        self.assertEqual([job["config"]["input"] for job in jobs],
                         [os.path.join(self.media, "in", n) for n in ("a.mp4", "b.mp4")])
        self.assertEqual(jobs[1]["config"]["outputs"][0]["path"],
                         os.path.join(self.media, "out", "j-2-b.mp4.mkv"))
        self.assertEqual(self.transcode("wait", *(job["id"] for job in jobs))[0], 0)

    def test_a_template_that_maps_two_inputs_to_one_output_submits_nothing(self):
        before = self.job_count()
        code, out, err = self.transcode("submit", "in/a.mp4", "in/b.mp4", "-o", "out/same.mp4")
        self.assertEqual(code, EXIT_USAGE, out + err)
        self.assertIn("'in/a.mp4' and 'in/b.mp4' would both write", err)
        self.assertEqual(out, "")
        self.assertEqual(self.job_count(), before)

    def test_a_jobs_file_with_a_bad_line_submits_nothing(self):
        good = {"input": "in/a.mp4", "outputs": [{"path": "out/l1.mkv"}]}
        bad = {"input": "in/b.mp4", "outputs": [{"path": "out/l3.mkv", "widht": 320}]}
        path = os.path.join(self.media, "jobs.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")
        before = self.job_count()
        code, out, err = self.transcode("submit", "--jobs", path)
        self.assertEqual(code, EXIT_USAGE, out + err)
        self.assertIn(f"--jobs {path}:3: ", err)
        self.assertIn("widht", err)
        self.assertEqual(self.job_count(), before)

        lines = "\n".join(json.dumps({"input": f"in/{n}.mp4", "outputs": [
            {"path": f"out/stdin-{n}.mkv", "width": 160, "height": 120}]}) for n in ("a", "b"))
        code, out, err = self.transcode("submit", "--jobs", "-", stdin=lines + "\n")
        self.assertEqual(code, 0, err)
        ids = out.split()
        self.assertEqual(len(ids), 2, out)
        self.assertEqual(self.transcode("wait", *ids)[0], 0)
        self.assertEqual(width_of(os.path.join(self.media, "out", "stdin-b.mkv")), 160)

    def test_wait_on_three_with_one_failing_exits_with_its_code(self):
        code, out, err = self.transcode("submit", "in/a.mp4", "in/notmedia.mp4", "in/c.mp4",
                                        "-o", "out/w-{stem}.mkv")
        self.assertEqual(code, 0, err)
        ids = out.split()
        code, out, err = self.transcode("wait", *ids)
        self.assertEqual(code, EXIT_INPUT, out + err)
        lines = sorted(out.splitlines())
        self.assertEqual(len(lines), 3, out)
        self.assertIn(f"{ids[0]} succeeded", lines)
        self.assertIn(f"{ids[2]} succeeded", lines)
        failed = [line for line in lines if line.startswith(ids[1] + " ")]
        self.assertEqual(len(failed), 1, out)
        self.assertTrue(failed[0].startswith(f"{ids[1]} failed (exit {EXIT_INPUT}): "), failed)

    def check_progress_lines(self, lines):
        """Progress lines then a last line: percent never falls, the running ones lie strictly
        between 0 and 100 with an ETA (at least one), and the last progress line says 100."""
        progress = [json.loads(line) for line in lines[:-1]]
        running = [p for p in progress if p["state"] == "running" and p["percent"] is not None]
        self.assertTrue(any(0 < p["percent"] < 100 and p["eta_s"] is not None for p in running),
                        lines)
        percents = [p["percent"] for p in progress if p["percent"] is not None]
        self.assertEqual(percents, sorted(percents), lines)
        self.assertEqual(progress[-1]["state"], "succeeded")
        self.assertEqual(progress[-1]["percent"], 100)
        self.assertEqual(progress[-1]["eta_s"], 0)
        for p in progress:
            self.assertEqual(set(p), {"state", "frames", "fps", "media_time_s", "percent",
                                      "eta_s"})
        return json.loads(lines[-1])

    def test_watch_progress_json_reads_the_daemons_percent(self):
        code, out, err = self.transcode("submit", "in/slow.mp4", "out/watched.mkv")
        self.assertEqual(code, 0, err)
        code, out, err = self.transcode("watch", out.strip(), "--progress", "json")
        self.assertEqual(code, 0, err)
        job = self.check_progress_lines(out.splitlines())
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED")
        self.assertEqual(job["result"]["outputs"][0]["width"], 64)

    def test_run_progress_json(self):
        clip = os.path.join(self.media, "in", "long.mp4")
        make_clip(clip, seconds=6, size="640x360")
        code, out, err = self.transcode("run", clip, os.path.join(self.media, "out", "run.mp4"),
                                        "--size", "1280x720", "--progress", "json")
        self.assertEqual(code, 0, err)
        report = self.check_progress_lines(out.splitlines())
        self.assertEqual(report["outputs"][0]["width"], 1280)


if __name__ == "__main__":
    unittest.main()
