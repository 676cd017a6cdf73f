#!/usr/bin/python3
"""The layer check (cmake/layers.cmake) refuses an include of a library the includer does not
link, naming file, line and both layers, and passes a tree whose includes follow its links
(through another library too). Each case is a small CMake project in a temporary folder that
registers three folders with tc_layer() and builds the tc_layer_check target."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROJECT = f"""cmake_minimum_required(VERSION 3.22)
project(layers LANGUAGES C)
include({ROOT}/cmake/layers.cmake)
add_library(tc_low STATIC low/low.c)
tc_layer(tc_low DIR low)
add_library(tc_mid STATIC mid/mid.c)
target_link_libraries(tc_mid PRIVATE tc_low)
tc_layer(tc_mid DIR mid)
add_library(tc_high STATIC high/high.c)
tc_layer(tc_high DIR high)
target_link_libraries(tc_high PUBLIC tc_mid)
tc_layer_check()
"""


def build(files):
    """Writes the project and `files` ({path: text}), configures, builds tc_layer_check; returns
    (exit status, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp, "src")
        for path, text in {"CMakeLists.txt": PROJECT, **files}.items():
            (src / path).parent.mkdir(parents=True, exist_ok=True)
            (src / path).write_text(text)
        build_dir = pathlib.Path(tmp, "build")
        configure = subprocess.run(["cmake", "-S", src, "-B", build_dir, "-G", "Ninja"],
                                   capture_output=True, text=True)
        if configure.returncode != 0:
            raise AssertionError(configure.stdout + configure.stderr)
        run = subprocess.run(["cmake", "--build", build_dir, "--target", "tc_layer_check"],
                             capture_output=True, text=True)
        return run.returncode, run.stdout + run.stderr


CLEAN = {
    "low/low.h": "int low(void);\n",
    "low/low.c": '#include "low/low.h"\nint low(void) { return 1; }\n',
    "mid/mid.h": '#include "low/low.h"\nint mid(void);\n',
    "mid/mid.c": '#include "mid/mid.h"\nint mid(void) { return low(); }\n',
    "high/high.c": '#include "mid/mid.h"\n#include "low/low.h"\n#include <stdio.h>\n'
                   '#include "unregistered/x.h"\nint high(void) { return mid(); }\n',
}


class LayerCheck(unittest.TestCase):
    def test_includes_that_follow_the_links_pass(self):
        status, output = build(CLEAN)
        self.assertEqual(status, 0, output)

    def assert_refused(self, changes, message):
        status, output = build({**CLEAN, "high/high.h": "int high(void);\n", **changes})
        self.assertNotEqual(status, 0, output)
        self.assertIn(message, output)

    def test_an_upward_include_fails_naming_file_line_and_layers(self):
        self.assert_refused(
            {"low/low.c": '#include "low/low.h"\n\n#include "high/high.h"\nint low(void);\n'},
            "low/low.c:3: includes high/high.h: low (tc_low) does not link high (tc_high)")

    def test_a_header_of_a_library_not_linked_fails(self):
        self.assert_refused(
            {"mid/mid.h": '#include "high/high.h"\nint mid(void);\n'},
            "mid/mid.h:1: includes high/high.h: mid (tc_mid) does not link high (tc_high)")

if __name__ == "__main__":
    sys.exit(unittest.main())
