"""The transcode.v1 stubs, generated from proto/ with Debian's protoc and grpc_python_plugin.

Debian 12 has no `python3 -m grpc_tools.protoc` that reads proto3 `optional` (its
python3-grpc-tools bundles protoc 3.5.1), so this runs `protoc --python_out` with
protobuf-compiler-grpc's plugin. Generated code is never committed: the wheel (setup.py) carries
the stubs it generated at build time; from a checkout, run

    python3 -m transcoded_client --proto-dir PATH/TO/proto

once (it writes transcoded_client/_generated/), or pass `stubs_dir` to Client.
"""
import argparse
import glob
import importlib
import os
import shutil
import subprocess
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(PACKAGE_DIR, "_generated")
# The checkout's proto/ when the package is used from the source tree.
SOURCE_PROTO_DIR = os.path.normpath(os.path.join(PACKAGE_DIR, "..", "..", "..", "proto"))
PLUGIN_NAMES = ("grpc_python_plugin", "protoc-gen-grpc_python")


class StubsError(RuntimeError):
    pass


def _tool(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise StubsError(f"{names[0]} not found on PATH (Debian: protobuf-compiler-grpc)")


def generate(proto_dir=SOURCE_PROTO_DIR, out_dir=DEFAULT_OUT):
    """Writes the Python modules of every proto under proto_dir/transcode/v1 into out_dir."""
    protos = sorted(glob.glob(os.path.join(proto_dir, "transcode", "v1", "*.proto")))
    if not protos:
        raise StubsError(f"no transcode/v1/*.proto under {proto_dir}")
    protoc = _tool(("protoc",))
    plugin = _tool(PLUGIN_NAMES)
    os.makedirs(out_dir, exist_ok=True)
    command = [protoc, "-I", proto_dir, "-I", "/usr/include", "--python_out", out_dir,
               "--grpc_python_out", out_dir, f"--plugin=protoc-gen-grpc_python={plugin}"]
    result = subprocess.run(command + protos, capture_output=True, text=True)
    if result.returncode != 0:
        raise StubsError(f"protoc failed: {result.stderr.strip()}")
    return out_dir


class Stubs:
    """The generated modules: job_pb2, transcoder_pb2, transcoder_pb2_grpc, error_details_pb2,
    field_behavior_pb2."""

    def __init__(self, stubs_dir):
        if not os.path.isdir(os.path.join(stubs_dir, "transcode", "v1")):
            raise StubsError(f"no stubs in {stubs_dir}: install the wheel built from the "
                             "checkout (pip install clients/python), or in the checkout run "
                             "python3 -m transcoded_client")
        # The generated modules import each other as transcode.v1.*.
        if stubs_dir not in sys.path:
            sys.path.insert(0, stubs_dir)
        for name in ("job_pb2", "transcoder_pb2", "transcoder_pb2_grpc", "error_details_pb2",
                     "field_behavior_pb2"):
            setattr(self, name, importlib.import_module(f"transcode.v1.{name}"))


def load(stubs_dir=None):
    """The stubs in stubs_dir, else $TRANSCODED_CLIENT_STUBS, else transcoded_client/_generated."""
    return Stubs(stubs_dir or os.environ.get("TRANSCODED_CLIENT_STUBS") or DEFAULT_OUT)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m transcoded_client",
                                     description="Generate the transcode.v1 Python stubs.")
    parser.add_argument("--proto-dir", default=SOURCE_PROTO_DIR,
                        help="the repository's proto/ directory (default: %(default)s)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="where to write (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        print(generate(args.proto_dir, args.out))
    except StubsError as error:
        print(f"transcoded_client: {error}", file=sys.stderr)
        return 1
    return 0
