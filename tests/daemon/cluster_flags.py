"""The cluster flags of the transcoded under test, read from its --help: whether it claims from a
shared queue at all (it has a lease flag), and how it spells the lease and the backends a node
offers (`--lease-s S` or `--lease S`; `--backends a,b` or `--backend a --backend b`)."""
import re
import subprocess

from real_daemon import TRANSCODED


def _flags():
    text = subprocess.run([TRANSCODED, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"^\s+(--[a-z][a-z-]*)", text, re.M))


FLAGS = _flags()
LEASE_FLAG = next((flag for flag in ("--lease-s", "--lease") if flag in FLAGS), None)


def lease(seconds):
    return [LEASE_FLAG, str(seconds)]


def backends(*names):
    if "--backends" in FLAGS:
        return ["--backends", ",".join(names)]
    return [arg for name in names for arg in ("--backend", name)]
