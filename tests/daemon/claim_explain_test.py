#!/usr/bin/python3
"""bench/claim-explain's statement is the daemon's: `--print-sql` prints what the claim_sql
program (tests/daemon/claim_sql.cc, from lease_sql.h) prints, the claim the PostgreSQL engine
sends, never a text the bench rebuilt from the sources. Needs CLAIM_SQL (set by ctest)."""
import os
import subprocess
import sys
import unittest

REPO = os.environ.get("TC_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BENCH = os.path.join(REPO, "bench", "claim-explain")


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise AssertionError(f"{command} exited {done.returncode}: {done.stderr}")
    return done.stdout


class ClaimExplainSql(unittest.TestCase):
    def test_the_bench_explains_the_statement_the_engine_sends(self):
        engine = run([os.environ["CLAIM_SQL"], "2"])
        bench = run([sys.executable, BENCH, "--print-sql"])
        self.assertEqual(bench.strip(), engine.strip())
        # It is the claim, for two backends and the window, with PostgreSQL's lock.
        self.assertIn("WHERE jobs.state = 1 AND jobs.backend IN ($1, $2)", engine)
        self.assertIn("end_ms > (SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT) "
                      "- $3", engine)
        self.assertTrue(engine.strip().endswith("FOR UPDATE OF jobs SKIP LOCKED"), engine)
        self.assertIn("SELECT jobs.seq, jobs.id, jobs.request_id,", engine)
        self.assertIn("jobs.not_before_ms, jobs.tenant_id FROM jobs", engine)

    def test_claim_sql_refuses_a_bad_count_naming_it(self):
        done = subprocess.run([os.environ["CLAIM_SQL"], "two"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("BACKENDS 'two' is not a count of 1..64", done.stderr)


if __name__ == "__main__":
    unittest.main()
