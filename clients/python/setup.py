"""Builds the wheel with its transcode.v1 stubs: build_py runs protoc (Debian's protoc and
grpc_python_plugin) over the checkout's proto/ into the build tree, so the installed package
never needs proto/ or a generator. The proto directory is $TRANSCODED_PROTO_DIR, else the
checkout's ../../proto; a build without either stops with the reason."""
import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _stubs_module():
    # stubs.py by path: importing the package would import grpc, which a build needs not have.
    spec = importlib.util.spec_from_file_location(
        "_transcoded_stubs", os.path.join(HERE, "transcoded_client", "stubs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithStubs(build_py):
    def run(self):
        super().run()
        stubs = _stubs_module()
        proto_dir = os.environ.get("TRANSCODED_PROTO_DIR") or os.path.join(HERE, "..", "..",
                                                                           "proto")
        out = os.path.join(self.build_lib, "transcoded_client", "_generated")
        try:
            stubs.generate(os.path.normpath(proto_dir), out)
        except stubs.StubsError as error:
            raise SystemExit(f"transcoded-client: cannot generate the stubs: {error}; build "
                             "from the checkout or set TRANSCODED_PROTO_DIR") from None


setup(cmdclass={"build_py": BuildWithStubs})
