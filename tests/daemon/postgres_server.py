"""A real PostgreSQL server for the Python daemon tests, as tests/support/postgres_server.h makes
one for C++: Debian's postgresql package, initdb and pg_ctl as the `postgres` user (the tests run
as root, which PostgreSQL refuses) in a temp directory that user owns, the unix socket there and
no TCP; stopped and removed on exit. `PostgresServer.unavailable()` says why not, where the
package is missing."""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time


def _bin_dir():
    # TC_TEST_POSTGRESQL_DIR (default Debian's /usr/lib/postgresql) pointed elsewhere hides the
    # server, to see the tests skip visibly without it.
    root = os.environ.get("TC_TEST_POSTGRESQL_DIR", "/usr/lib/postgresql")
    found = [d for d in glob.glob(os.path.join(root, "*/bin"))
             if os.path.exists(os.path.join(d, "initdb")) and os.path.exists(os.path.join(d, "pg_ctl"))]
    return max(found, key=lambda d: int(os.path.basename(os.path.dirname(d))), default=None)


class PostgresServer:
    @staticmethod
    def unavailable():
        """None, or why the server cannot be had."""
        if _bin_dir() is None:
            return "PostgreSQL is not installed (Debian's postgresql package: scripts/deps test)"
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                return "no postgres user"
        return None

    def __init__(self):
        self.bin = _bin_dir()
        self.dir = tempfile.mkdtemp(prefix="tc-pg-")
        self.databases = 0
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.dir, account.pw_uid, account.pw_gid)
        try:
            self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-N", "-E",
                      "UTF8", "--locale=C")
            self.start()
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def start(self):
        """Starts the server on its data (again, after halt())."""
        self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                  f"-k {self.dir} -c listen_addresses= -F", "start")

    def halt(self):
        """Stops the server as an operator's restart does (fast: connections are cut), keeping
        its data for start()."""
        self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    @property
    def data(self):
        return os.path.join(self.dir, "data")

    @property
    def log(self):
        return os.path.join(self.dir, "log")

    def _run(self, tool, *args):
        argv = [os.path.join(self.bin, tool), *args]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            log = open(self.log).read() if os.path.exists(self.log) else ""
            raise RuntimeError(f"{tool} failed: {done.stdout}{done.stderr}{log}")
        return done.stdout

    def url(self, database, password=None):
        user = "postgres" if password is None else f"postgres:{password}"
        return f"postgresql://{user}@/{database}?host={self.dir}"

    def create_database(self):
        self.databases += 1
        name = f"tc_py_{os.getpid()}_{self.databases}"
        self._run("createdb", "-h", self.dir, "-U", "postgres", name)
        return name

    def sql(self, database, statement):
        """Runs one statement with psql; its rows as text (unaligned, tuples only)."""
        return self._run("psql", "-h", self.dir, "-U", "postgres", "-d", database, "-At", "-c",
                         statement)

    def add_password_role(self, name, password):
        """A superuser `name` that must give `password` (scram-sha-256) on the socket; every
        other role stays trusted. Returns once the server asks it for the password."""
        self.sql("postgres", f"CREATE ROLE {name} LOGIN SUPERUSER PASSWORD '{password}'")
        hba = os.path.join(self.data, "pg_hba.conf")
        with open(hba) as f:
            rules = f.read()
        with open(hba, "w") as f:
            f.write(f"local all {name} scram-sha-256\n" + rules)
        self._run("pg_ctl", "-D", self.data, "reload")
        probe = [os.path.join(self.bin, "psql"), "-h", self.dir, "-U", name, "-d", "postgres",
                 "-w", "-c", "SELECT 1"]
        for _ in range(100):  # the reload is a signal the server acts on when it may
            if subprocess.run(probe, capture_output=True, env=dict(os.environ, PGPASSWORD="x"),
                              ).returncode != 0:
                return
            time.sleep(0.1)
        raise RuntimeError("pg_hba.conf reload not taken")

    def processes(self):
        """The server's process ids: the postmaster (postmaster.pid) and its children."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        found = [postmaster]
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == postmaster:
                found.append(int(entry))
        return found

    def stop(self):
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
