"""Puts this folder on sys.path, so every case's test imports the shared planted.py; and keeps
one Node host for every Workers platform a gate starts (its check, replays, regression tests, twin)."""

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session", autouse=True)
def _one_host_per_gate():
    """Within the session, a closed Workers platform keeps its host and the next loads its Worker into it
    (``eutaxy.cloudflare.reuse_hosts``: the same bytes as a new host, without Node's start each time).
    The AWS gates, which may run without the Workers package, start no host."""
    if importlib.util.find_spec("eutaxy.cloudflare") is None:
        yield
        return
    from eutaxy.cloudflare import reuse_hosts

    with reuse_hosts():
        yield
