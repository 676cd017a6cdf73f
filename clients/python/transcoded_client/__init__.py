"""Python client of the transcoded service (transcode.v1). An installed wheel carries its stubs;
from a checkout, generate them once with `python3 -m transcoded_client`. See README.md.

Client, TranscodedError and decode_error import grpc on first use, so the stub generator
(`python3 -m transcoded_client`, setup.py) runs where grpc is not installed."""
from .stubs import StubsError, generate, load

__all__ = ["Client", "TranscodedError", "decode_error", "StubsError", "generate", "load"]


def __getattr__(name):
    if name in ("Client", "TranscodedError", "decode_error"):
        from . import client
        return getattr(client, name)
    raise AttributeError(f"module 'transcoded_client' has no attribute {name!r}")
