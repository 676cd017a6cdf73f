"""Python client of the transcoded service (transcode.v1). Generate the stubs once with
`python3 -m transcoded_client --proto-dir PATH/TO/proto`; see clients/python/README.md."""
from .client import Client, TranscodedError, decode_error
from .stubs import StubsError, generate, load

__all__ = ["Client", "TranscodedError", "decode_error", "StubsError", "generate", "load"]
