#!/usr/bin/python3
"""The Python client as a user installs it: the wheel built from a copy of clients/python and
proto/ (Debian's setuptools, protoc and grpc_python_plugin; no network), installed into a fresh
venv that sees Debian's grpcio and protobuf, and the example run from a directory outside the
checkout against a real daemon, with no stubs directory named anywhere."""
import glob
import os
import shutil
import subprocess
import unittest
import zipfile

from real_daemon import CLIENT_PACKAGE, SOURCE, RealDaemon

STUB_MODULE = "transcoded_client/_generated/transcode/v1/transcoder_pb2_grpc.py"


def clean_env():
    """The environment without any path back to the checkout's package."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "TRANSCODED_CLIENT_STUBS", "TRANSCODED_PROTO_DIR"):
        env.pop(name, None)
    return env


def run(args, cwd, timeout=240):
    return subprocess.run(args, cwd=cwd, env=clean_env(), capture_output=True, text=True,
                          timeout=timeout)


class PythonWheelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RealDaemon()
        cls.addClassCleanup(cls.daemon.stop)  # runs when setUpClass fails too
        cls.tmp = cls.daemon.tmp
        src = os.path.join(cls.tmp, "src")
        shutil.copytree(CLIENT_PACKAGE, os.path.join(src, "clients", "python"),
                        ignore=shutil.ignore_patterns("_generated", "build", "*.egg-info",
                                                      "__pycache__"))
        shutil.copytree(os.path.join(SOURCE, "proto"), os.path.join(src, "proto"))
        cls.wheels = os.path.join(cls.tmp, "wheels")
        cls.build = run(["/usr/bin/python3", "-m", "pip", "wheel", "--no-build-isolation",
                         "--no-deps", "--no-index", "-w", cls.wheels,
                         os.path.join(src, "clients", "python")], cwd=cls.tmp)
        cls.venv = os.path.join(cls.tmp, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", cls.venv],
                       check=True)
        cls.elsewhere = os.path.join(cls.tmp, "elsewhere")
        os.makedirs(cls.elsewhere)
        # The example beside nothing: it must import the installed package.
        shutil.copy(os.path.join(CLIENT_PACKAGE, "examples", "submit.py"), cls.elsewhere)

    def wheel(self):
        self.assertEqual(self.build.returncode, 0, self.build.stdout + self.build.stderr)
        found = glob.glob(os.path.join(self.wheels, "transcoded_client-*.whl"))
        self.assertEqual(len(found), 1, found)
        return found[0]

    def install(self):
        pip = os.path.join(self.venv, "bin", "pip")
        installed = run([pip, "install", "--no-index", self.wheel()], cwd=self.elsewhere)
        self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)
        return os.path.join(self.venv, "bin", "python")

    def test_the_wheel_carries_its_stubs(self):
        with zipfile.ZipFile(self.wheel()) as wheel:
            self.assertIn(STUB_MODULE, wheel.namelist())

    def test_the_installed_example_runs_a_job_from_outside_the_checkout(self):
        python = self.install()
        where = run([python, "-c", "import transcoded_client; print(transcoded_client.__file__)"],
                    cwd=self.elsewhere)
        self.assertTrue(where.stdout.startswith(self.venv), where.stdout + where.stderr)
        out = os.path.join(self.daemon.media, "wheel.mp4")
        job = run([python, "submit.py", "--server", self.daemon.address, "--size", "160x120",
                   self.daemon.input, out], cwd=self.elsewhere)
        self.assertEqual(job.returncode, 0, job.stderr)
        self.assertIn("JOB_STATE_SUCCEEDED", job.stdout)
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                                "-show_entries", "stream=width,height", "-of", "csv=p=0", out],
                               capture_output=True, text=True, check=True)
        self.assertEqual(probe.stdout.strip(), "160,120")
        refused = run([python, "submit.py", "--server", self.daemon.address, "/etc/hostname",
                       out], cwd=self.elsewhere, timeout=60)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("reason OUTSIDE_MEDIA_ROOT, field config.input", refused.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
