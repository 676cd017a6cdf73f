#!/usr/bin/python3
"""Presets stored in the daemon (issue 41), against a real daemon started with a preset_dir
holding a team's preset:

- ListPresets over gRPC (`transcode presets --server`) and GET /v1/presets (curl) list it beside
  the built-ins, its options in the file's order;
- `transcode submit --preset team-x --server ...` runs a job with the daemon's preset: the output
  ffprobes with its size and codec; a local preset of the same name wins;
- a bad preset file, or a preset_dir that is not there, makes the daemon refuse to start, exit 2
  (configuration), naming the file or the directory.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from real_daemon import RealDaemon

TRANSCODE = os.environ["TC_DEFAULT_TRANSCODE"]
TRANSCODED = os.environ["TRANSCODED"]
EXIT_USAGE = 2

# Not in alphabetical order, so that an order-losing parse shows.
TEAM_X = """{"name": "team-x", "version": 2, "summary": "the team's small HEVC",
 "outputs": [{"size": "320x0", "codec": "hevc", "crf": 30, "audio": "none"}]}
"""
TEAM_X_OPTIONS = [{"name": "size", "value": "320x0"}, {"name": "codec", "value": "hevc"},
                  {"name": "crf", "value": "30"}, {"name": "audio", "value": "none"}]


def stream_of(path):
    """(codec, width, height) of the first video stream, by ffprobe; and whether audio is there."""
    done = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                           "stream=codec_type,codec_name,width,height", "-of", "json", path],
                          capture_output=True, text=True, check=True)
    streams = json.loads(done.stdout)["streams"]
    video = [s for s in streams if s["codec_type"] == "video"][0]
    has_audio = any(s["codec_type"] == "audio" for s in streams)
    return video["codec_name"], video["width"], video["height"], has_audio


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


class DaemonPresetsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tc-presets-")
        cls.preset_dir = os.path.join(cls.tmp, "team")
        os.makedirs(cls.preset_dir)
        cls.team_file = write(os.path.join(cls.preset_dir, "team-x.json"), TEAM_X)
        try:
            cls.daemon = RealDaemon(extra_args=["--preset-dir", cls.preset_dir,
                                                "--http-listen", "127.0.0.1:0"])
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def transcode(self, *args, env=None):
        """`transcode ARGS --server ADDR` run in the media root, with no local preset dir
        unless `env` names one: (exit code, stdout, stderr)."""
        environment = {k: v for k, v in os.environ.items() if k != "TRANSCODE_PRESETS_DIR"}
        environment.update(env or {})
        done = subprocess.run([TRANSCODE, *args, "--server", self.daemon.address],
                              cwd=self.daemon.media, env=environment, capture_output=True,
                              text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr

    def test_presets_server_lists_the_daemons_presets_over_grpc(self):
        code, out, err = self.transcode("presets")
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertIn(f"team-x\tv2\t{self.team_file}\tthe team's small HEVC", lines)
        for name in ("apple-hls", "web-1080p", "web-720p"):
            self.assertTrue(any(line.startswith(f"{name}\tv1\tbuilt-in\t") for line in lines), out)
        self.assertEqual([line.split("\t")[0] for line in lines],
                         ["apple-hls", "team-x", "web-1080p", "web-720p"])

    def test_get_v1_presets_gives_the_options_in_the_files_order(self):
        done = subprocess.run(["curl", "-sS", "--fail-with-body",
                               f"http://{self.daemon.http_address}/v1/presets"],
                              capture_output=True, text=True, timeout=60, check=True)
        presets = {p["name"]: p for p in json.loads(done.stdout)["presets"]}
        team = presets["team-x"]
        self.assertEqual(team["version"], 2)
        self.assertEqual(team["origin"], self.team_file)
        self.assertEqual([o.get("options") for o in team["outputs"]], [TEAM_X_OPTIONS])
        ladder = presets["apple-hls"]
        self.assertEqual(ladder["job"], [{"name": "package", "value": "hls"},
                                         {"name": "segment", "value": "6"}])
        self.assertEqual(ladder["outputs"][0], {
            "name": "234p-145k",
            "options": [{"name": "size", "value": "416x234"}, {"name": "codec", "value": "h264"},
                        {"name": "bitrate", "value": "145k"}]})

    def test_submit_runs_the_daemons_preset(self):
        code, out, err = self.transcode("submit", "in.mp4", "team.mp4", "--preset", "team-x",
                                        "--wait", "-q")
        self.assertEqual(code, 0, out + err)
        self.assertEqual(stream_of(os.path.join(self.daemon.media, "team.mp4")),
                         ("hevc", 320, 240, False))

    def test_a_local_preset_of_the_same_name_wins(self):
        local = os.path.join(self.tmp, "local")
        os.makedirs(local, exist_ok=True)
        write(os.path.join(local, "mine.json"), TEAM_X.replace("320x0", "160x0")
              .replace('"hevc"', '"h264"'))
        code, out, err = self.transcode("submit", "in.mp4", "local.mp4", "--preset", "team-x",
                                        "--wait", "-q", env={"TRANSCODE_PRESETS_DIR": local})
        self.assertEqual(code, 0, out + err)
        self.assertEqual(stream_of(os.path.join(self.daemon.media, "local.mp4")),
                         ("h264", 160, 120, False))

    def test_a_preset_neither_has_is_a_usage_error(self):
        code, out, err = self.transcode("submit", "in.mp4", "x.mp4", "--preset", "team-y")
        self.assertEqual(code, EXIT_USAGE, out + err)
        self.assertIn("unknown preset 'team-y'", err)

    def start_with_preset_dir(self, preset_dir):
        """transcoded with `preset_dir`, expected to refuse: its exit code and stderr (a daemon
        that starts instead is stopped, and the test fails)."""
        process = subprocess.Popen([TRANSCODED, "--listen", "127.0.0.1:0", "--state-dir",
                                    os.path.join(self.tmp, "bad-state"), "--media-root",
                                    self.daemon.media, "--preset-dir", preset_dir],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        self.assertNotIn("listening", out)
        return process.returncode, err

    def test_a_bad_preset_file_refuses_the_start_naming_it(self):
        bad_dir = os.path.join(self.tmp, "bad")
        os.makedirs(bad_dir, exist_ok=True)
        write(os.path.join(bad_dir, "a-good.json"), TEAM_X)
        bad = write(os.path.join(bad_dir, "typo.json"),
                    '{"name": "typo", "version": 1, "outputs": [{"size": "320x0", "crff": 20}]}')
        code, err = self.start_with_preset_dir(bad_dir)
        self.assertEqual(code, EXIT_USAGE, err)
        self.assertIn(f"preset_dir: preset {bad}: unknown key 'crff' in outputs[0]", err)

    def test_a_missing_preset_dir_refuses_the_start(self):
        missing = os.path.join(self.tmp, "no-such-dir")
        code, err = self.start_with_preset_dir(missing)
        self.assertEqual(code, EXIT_USAGE, err)
        self.assertIn(f"preset_dir: {missing} is not a directory", err)


if __name__ == "__main__":
    unittest.main()
