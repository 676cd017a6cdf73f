"""Renames into a directory, counted by name as the kernel reports them (inotify IN_MOVED_TO):
how a test proves an output was published once, however many attempts ran. Linux only; no
module beyond the standard library (ctypes)."""
import collections
import ctypes
import errno
import os
import struct

_IN_MOVED_TO = 0x00000080
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len; then the name


class Renames:
    """Watches `directory` from construction on; counts() reads what came since."""

    def __init__(self, directory):
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if self._libc.inotify_add_watch(self._fd, os.fsencode(directory), _IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {directory}")
        self._counts = collections.Counter()

    def counts(self):
        """{name: renames onto it so far}."""
        while True:
            try:
                data = os.read(self._fd, 65536)
            except OSError as error:
                if error.errno == errno.EAGAIN:
                    return dict(self._counts)
                raise
            offset = 0
            while offset < len(data):
                _, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size
                name = data[offset:offset + length].rstrip(b"\0").decode()
                offset += length
                if mask & _IN_MOVED_TO:
                    self._counts[name] += 1

    def close(self):
        os.close(self._fd)
