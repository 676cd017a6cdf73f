#!/usr/bin/python3
"""The daemon on the PostgreSQL store (--store postgresql://...), against a real server the test
starts (postgres_server.py): a job runs and its row is in the database, a second daemon on the
same database answers for it, the password never reaches the logs, an unreachable store and a
newer schema stop the daemon with their own exit codes."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

import visible_skips
from postgres_server import PostgresServer
from real_daemon import CLIENT_PACKAGE, SOURCE, TRANSCODED, RealDaemon

sys.path.insert(0, CLIENT_PACKAGE)
import transcoded_client  # noqa: E402

EXIT_USAGE = 2
EXIT_UNAVAILABLE = 7
SECRET = "Pg-s3cret-77"


def start_and_stop(args):
    """Runs transcoded until it listens (then SIGTERM) or exits; (exit code, stderr)."""
    with tempfile.TemporaryDirectory(prefix="tc-pgd-") as tmp:
        media = os.path.join(tmp, "media")  # apart from the state dir, as the daemon requires
        os.makedirs(media)
        process = subprocess.Popen(
            [TRANSCODED, "--listen", "127.0.0.1:0", "--state-dir", os.path.join(tmp, "state"),
             "--media-root", media, "--log-level", "info", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if process.stdout.readline().startswith("listening "):
            process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        return process.returncode, err


@unittest.skipIf(PostgresServer.unavailable(), PostgresServer.unavailable())
class PostgresStoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = PostgresServer()
        cls.stubs = tempfile.TemporaryDirectory(prefix="tc-pg-stubs-")
        transcoded_client.generate(os.path.join(SOURCE, "proto"), cls.stubs.name)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.stubs.cleanup()

    def daemon(self, database):
        return RealDaemon(extra_args=["--store", self.server.url(database)])

    def test_a_job_lives_in_the_database_and_another_daemon_answers_for_it(self):
        database = self.server.create_database()
        first = self.daemon(database)
        stubs = self.stubs.name
        try:
            with transcoded_client.Client(first.address, stubs_dir=stubs) as client:
                out = os.path.join(first.media, "pg.mp4")
                job = client.submit(first.input, [client.output(out, codec="h264", width=160,
                                                                height=120)],
                                    request_id="pg-1")
                final = client.wait(job.id, timeout=240)
                pb = client.pb
                self.assertEqual(final.state, pb.job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
                self.assertGreater(os.path.getsize(out), 0)
        finally:
            first.stop()
        rows = self.server.sql(database, f"SELECT state, attempt FROM jobs WHERE id = '{job.id}'")
        self.assertEqual(rows.strip(), "3|1")  # SUCCEEDED, run once
        second = self.daemon(database)
        try:
            with transcoded_client.Client(second.address, stubs_dir=stubs) as client:
                self.assertEqual(client.get(job.id).state, pb.job_pb2.JOB_STATE_SUCCEEDED)
                elsewhere = os.path.join(second.media, "pg.mp4")
                again = client.submit(second.input, [client.output(elsewhere, codec="h264")],
                                      request_id="pg-1")
                self.assertEqual(again.id, job.id)
        finally:
            second.stop()

    def nodes(self, daemon, *args):
        done = subprocess.run([os.environ["TC_TRANSCODE"], "nodes", "--json", "--server",
                               daemon.address, *args], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout).get("nodes", [])

    def test_every_daemon_lists_every_node(self):
        database = self.server.create_database()
        url = self.server.url(database)
        first = RealDaemon(extra_args=["--store", url, "--node-id", "node-a"])
        try:
            second = RealDaemon(extra_args=["--store", url, "--node-id", "node-b"])
            try:
                for daemon in (first, second):
                    nodes = self.nodes(daemon)
                    self.assertEqual([n["id"] for n in nodes], ["node-a", "node-b"])
                    for node in nodes:
                        self.assertIn("software", node["backends"])
                        self.assertGreater(node["free_slots"], 0)
                        self.assertEqual(node["devices"][0]["name"], "software")
                        self.assertIn("heartbeat_time", node)
            finally:
                second.stop()
        finally:
            first.stop()

    def test_the_password_never_reaches_the_log(self):
        database = self.server.create_database()
        code, err = start_and_stop(["--store", self.server.url(database, password=SECRET)])
        self.assertEqual(code, 0, err)
        self.assertIn("job store: postgresql://postgres:***@/", err)
        self.assertNotIn(SECRET, err)

    def test_the_password_file_is_read(self):
        database = self.server.create_database()
        with tempfile.NamedTemporaryFile("w", suffix=".pw") as password:
            password.write(SECRET + "\n")
            password.flush()
            code, err = start_and_stop(["--store", self.server.url(database),
                                        "--store-password-file", password.name])
        self.assertEqual(code, 0, err)
        self.assertNotIn(SECRET, err)

    def test_an_unreachable_store_exits_unavailable_without_the_password(self):
        url = f"postgresql://postgres:{SECRET}@/jobs?host=/nonexistent-tc-socket-dir"
        code, err = start_and_stop(["--store", url])
        self.assertEqual(code, EXIT_UNAVAILABLE, err)
        self.assertIn("cannot connect", err)
        self.assertNotIn(SECRET, err)

    def test_a_database_newer_than_the_daemon_is_refused(self):
        database = self.server.create_database()
        self.assertEqual(start_and_stop(["--store", self.server.url(database)])[0], 0)
        self.server.sql(database, "INSERT INTO schema_migrations (version) VALUES (999)")
        code, err = start_and_stop(["--store", self.server.url(database)])
        self.assertEqual(code, EXIT_USAGE, err)
        self.assertIn("schema version 999 is newer than this transcoded knows", err)

    def test_another_scheme_is_a_usage_error(self):
        code, err = start_and_stop(["--store", f"mysql://u:{SECRET}@db/jobs"])
        self.assertEqual(code, EXIT_USAGE, err)
        self.assertIn("is not a postgresql:// URL", err)
        self.assertNotIn(SECRET, err)


class SqliteNodeTest(unittest.TestCase):
    """Without a shared store the daemon is the one node, named after its host by default."""

    def test_the_one_node_is_this_daemon(self):
        daemon = RealDaemon(token="node-token")
        try:
            run = [os.environ["TC_TRANSCODE"], "nodes", "--json", "--server", daemon.address]
            refused = subprocess.run(run, capture_output=True, text=True, timeout=60)
            self.assertEqual(refused.returncode, EXIT_USAGE, refused.stderr)
            self.assertIn("UNAUTHENTICATED", refused.stderr)
            env = dict(os.environ, TC_TOKEN="node-token")
            done = subprocess.run(run, capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 0, done.stderr)
            nodes = json.loads(done.stdout)["nodes"]
            self.assertEqual([n["id"] for n in nodes], [socket.gethostname()])
            self.assertEqual(nodes[0]["backends"][0], "software")
        finally:
            daemon.stop()


if __name__ == "__main__":
    visible_skips.main()  # without PostgreSQL: ctest's Skipped, not Passed
