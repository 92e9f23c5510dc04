"""Libraries' online parts, left out of a grading process while those libraries load.

Two libraries the scan reads with import a network module only for a check done online, which the
scan never asks: detect-secrets' plugins import ``requests`` (to verify a secret with its vendor)
and python-stdnum's ``stdnum.util`` imports ``ssl`` (for the VIES and other SOAP services). The
real modules cost every grading process memory it never uses: ``requests`` with urllib3, idna and
charset-normalizer about 5 MiB and 40 ms; ``ssl`` maps OpenSSL's libraries, about 3 MiB. While
those libraries load, :func:`without` puts an empty stand-in in the network module's place.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
from collections.abc import Iterator

__all__ = ["without"]


@contextlib.contextmanager
def without(name: str, why: str) -> Iterator[None]:
    """While the block runs, an empty stand-in module ``name`` (its docstring: ``why``), when
    nothing has loaded the real one and this process runs one thread.

    Only with one thread (``proctor grade`` before its workers fork, a test's interpreter): where
    another thread may import ``name`` meanwhile, it must get the real module, so the block runs
    with it. A module loaded before stays. The stand-in leaves ``sys.modules`` when the block
    ends, so a later ``import name`` (an HTTPS client's) loads the real one; only the libraries
    imported inside the block hold the stand-in, in the attribute their online checks would use."""
    if name in sys.modules or threading.active_count() > 1:
        yield
        return
    stand_in = types.ModuleType(name, why)
    sys.modules[name] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
