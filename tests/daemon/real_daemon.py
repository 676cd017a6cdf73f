"""A real transcoded for the Python tests: a temp media root with a clip made by ffmpeg (or a
media root the caller shares between daemons), the daemon on loopback (port 0), its gRPC and
metrics addresses read from its stdout."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SOURCE = os.environ["TC_SOURCE_DIR"]
TRANSCODED = os.environ["TRANSCODED"]
CLIENT_PACKAGE = os.path.join(SOURCE, "clients", "python")
sys.path.insert(0, CLIENT_PACKAGE)
import transcoded_client  # noqa: E402


def make_clip(path, seconds=1, size="320x240"):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size={size}:rate=30", "-f", "lavfi", "-i", "sine", "-t",
                    str(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", path],
                   check=True)


def daemon_with_clip(name, seconds, size, **daemon_args):
    """A RealDaemon (daemon_args as its own), its client, and the path of a clip made in its
    media root; the daemon is stopped again if any of it fails."""
    daemon = RealDaemon(**daemon_args)
    try:
        client = daemon.client()
        clip = os.path.join(daemon.media, name)
        make_clip(clip, seconds=seconds, size=size)
    except BaseException:
        daemon.stop()
        raise
    return daemon, client, clip


class RealDaemon:
    """`media`: a media root the caller owns and may share with other daemons (its files are the
    caller's: none is made, none removed); by default a temp one with the clip `in.mp4`.
    `env`: variables added to the daemon's environment (TC_TEST_FAULT is removed otherwise).
    `node_id`: its --node-id."""

    def __init__(self, metrics=False, token=None, extra_args=(), media=None, env=None,
                 node_id=None):
        self.token = token
        self.extra_args = list(extra_args) + (["--node-id", node_id] if node_id else [])
        self.node_id = node_id
        self.extra_env = dict(env or {})
        self.tmp = tempfile.mkdtemp(prefix="tcd-py-")
        try:
            self.media = media or os.path.join(self.tmp, "media")
            self.input = os.path.join(self.media, "in.mp4")
            if media is None:
                os.makedirs(self.media)
                make_clip(self.input)
            self._start(metrics)
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def _start(self, metrics):
        env = dict(os.environ)
        env.pop("TC_TEST_FAULT", None)
        env.update(self.extra_env)
        args = [TRANSCODED, "--listen", "127.0.0.1:0", "--state-dir",
                os.path.join(self.tmp, "state"), "--media-root", self.media, "--log-level", "warn"]
        if metrics:
            args += ["--metrics-listen", "127.0.0.1:0"]
        args += self.extra_args
        if self.token:
            token_file = os.path.join(self.tmp, "token")
            with open(token_file, "w") as f:
                f.write(self.token + "\n")
            args += ["--auth-token-file", token_file]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, env=env)
        self.metrics_address = None
        self.health_address = None  # with --health-listen
        self.http_address = None  # with --http-listen
        line = self.process.stdout.readline().decode().strip()
        while line.startswith(("metrics ", "health ", "http ")):
            if line.startswith("metrics "):
                self.metrics_address = line.split(" ", 1)[1]
            elif line.startswith("http "):
                self.http_address = line.split(" ", 1)[1]
            else:
                self.health_address = line.split(" ", 1)[1]
            line = self.process.stdout.readline().decode().strip()
        assert line.startswith("listening "), line
        self.address = line.split(" ", 1)[1]

    def restart(self, metrics=False):
        """Stops the daemon (SIGTERM; nothing to stop after kill()) and starts it again on the
        same state, media and node id."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.process.stdout.close()
        self._start(metrics)

    def kill(self):
        """kill -9, as a power cut: no shutdown of any kind (its workers die with it)."""
        self.process.kill()
        self.process.wait(timeout=60)

    def client(self):
        """A clients/python Client of this daemon, its stubs generated under the daemon's tmp."""
        stubs = os.path.join(self.tmp, "stubs")
        if not os.path.isdir(stubs):
            transcoded_client.generate(os.path.join(SOURCE, "proto"), stubs)
        return transcoded_client.Client(self.address, stubs_dir=stubs)

    def stop(self):
        self.process.send_signal(signal.SIGCONT)  # a paused daemon could not act on SIGTERM
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.process.stdout.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
