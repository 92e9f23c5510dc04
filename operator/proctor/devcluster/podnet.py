"""Pod networking for Python containers on the node stand-in: a wildcard bind takes the pod IP.

In a cluster each pod has a network namespace, so a server binding ``0.0.0.0:8080`` listens on
its own pod's address and two pods can both do it. The stand-in's pods share the host's network,
where such a bind would take port 8080 on every pod address at once and the second pod would get
``Address already in use``. The stand-in puts this file on ``PYTHONPATH`` as ``sitecustomize``
(with the pod's address in ``PROCTOR_NODE_POD_IP``), and every Python process of the pod then
binds IPv4 wildcard addresses (``0.0.0.0``, ``""``) to its pod IP instead. Other addresses, IPv6
and non-Python processes are left alone.

Standard library only: it runs inside whatever interpreter the container starts, before that
interpreter's own ``sitecustomize`` (which it then runs, if there is one).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

POD_IP_ENV = "PROCTOR_NODE_POD_IP"
_WILDCARDS = ("", "0.0.0.0")


def install(pod_ip: str) -> None:
    """Make IPv4 wildcard binds of this process bind ``pod_ip``."""
    original = socket.socket.bind
    if getattr(original, "_proctor_pod_ip", None) is not None:
        return

    def bind(self: socket.socket, address: Any, /) -> None:
        if self.family == socket.AF_INET and isinstance(address, tuple) and address[0] in _WILDCARDS:
            address = (pod_ip, *address[1:])
        original(self, address)

    bind._proctor_pod_ip = pod_ip  # type: ignore[attr-defined]
    socket.socket.bind = bind  # type: ignore[method-assign,assignment]


def _chain() -> None:
    """Run the interpreter's own ``sitecustomize``, which this module shadows."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if __name__ == "sitecustomize":  # pragma: no cover - runs in the pod's processes
    if ip := os.environ.get(POD_IP_ENV):
        install(ip)
    _chain()
