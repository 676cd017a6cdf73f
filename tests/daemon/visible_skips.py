"""unittest.main for the tests ctest runs as one script: a skip becomes ctest's Skipped, not Passed.

unittest exits 0 where cases were skipped (a missing PostgreSQL, no Vulkan device), and ctest
would report the script Passed. main() exits 1 where any case failed, else SKIPPED_EXIT (the
test's SKIP_RETURN_CODE in tests/daemon/CMakeLists.txt) where any case or class was skipped,
naming each skip, else 0."""
import sys
import unittest

SKIPPED_EXIT = 77


def main():
    program = unittest.main(verbosity=2, exit=False)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.skipped:
        for case, reason in result.skipped:
            print(f"skipped: {case.id()}: {reason}")
        sys.exit(SKIPPED_EXIT)
    sys.exit(0)
