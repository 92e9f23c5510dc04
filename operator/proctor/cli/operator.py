"""``proctor operator``: the operator (Kopf) with Proctor's settings.

Out of a cluster every endpoint listens on loopback unless told otherwise (in a pod: every address,
and the chart sets them). Before anything starts, each port it will listen on is tried: a port that
is taken is a one-line error naming it and the flag or variable that moves it (exit 2), never a
traceback from deep inside Kopf.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from dataclasses import dataclass
from types import ModuleType
from urllib.parse import urlsplit

from proctor.k8s.kube import default_listen_host

#: The liveness endpoint's port unless ``--liveness`` says otherwise: not 8080, which agents (the
#: example's included) and many local tools take.
DEFAULT_LIVENESS_PORT = 8180


#: Installed packages the operator would import and never use, kept out of its process: structlog
#: imports rich (with pygments and markdown-it, 2 MiB) whenever rich is installed, for tracebacks
#: the operator formats itself (:mod:`proctor.observability.logging`). A development environment
#: has rich (import-linter needs it); the image does not.
KEPT_OUT = ("rich", "click", "pygments")


def load_controllers() -> ModuleType:
    """Kopf and the handlers (importing them registers the handlers), without :data:`KEPT_OUT`."""
    for name in KEPT_OUT:
        if name not in sys.modules:
            sys.modules[name] = None  # type: ignore[assignment]  # `import rich` raises ImportError
    from proctor.controllers import operator

    return operator


#: Moves the liveness endpoint without a flag (``--liveness`` wins when both are given).
LIVENESS_ENV = "PROCTOR_LIVENESS"


def default_liveness() -> str:
    return os.environ.get(LIVENESS_ENV) or f"http://{default_listen_host()}:{DEFAULT_LIVENESS_PORT}/healthz"


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--namespace", action="append", help="watch only this namespace (repeatable)")
    p.add_argument(
        "--liveness",
        default=None,
        metavar="URL",
        help=f"liveness/readiness endpoint URL (default ${LIVENESS_ENV}, else "
        f"http://127.0.0.1:{DEFAULT_LIVENESS_PORT}/healthz; in a pod, every address)",
    )
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=main)


@dataclass(frozen=True)
class Listener:
    """One endpoint the operator serves, and how a user moves it."""

    what: str
    host: str
    port: int
    how: str


class UsageError(Exception):
    """A flag or setting that cannot work: the message says which and what to do."""


def listeners(liveness: str, env: dict[str, str]) -> list[Listener]:
    """The endpoints ``proctor operator`` will listen on, from its flag and environment."""
    url = urlsplit(liveness)
    try:
        live_port = url.port
    except ValueError:
        live_port = None
    if url.scheme != "http" or not url.hostname or live_port is None:
        example = default_liveness()
        raise UsageError(
            f"--liveness must be an http URL with a host and port, e.g. {example}, not {liveness!r}"
        )
    out = [Listener("the liveness endpoint", url.hostname, live_port, "--liveness http://HOST:PORT/healthz")]
    for what, port_var, addr_var, default_port, zero in (
        ("/metrics", "PROCTOR_METRICS_PORT", "PROCTOR_METRICS_ADDR", "9090", "off"),
        ("the admission webhook", "PROCTOR_WEBHOOK_PORT", "PROCTOR_WEBHOOK_ADDR", "0", "any free port"),
    ):
        text = env.get(port_var, default_port)
        if not text.isdigit() or int(text) > 65535:
            raise UsageError(f"{port_var} must be a port number (0: {zero}), not {text!r}")
        if int(text):
            host = env.get(addr_var) or default_listen_host(env)
            out.append(Listener(what, host, int(text), f"{port_var}=PORT (0: {zero}) or {addr_var}=ADDR"))
    return out


def check_free(items: list[Listener]) -> None:
    """Bind each listener's address for a moment: a port another program holds is named now."""
    for item in items:
        family = socket.AF_INET6 if ":" in item.host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((item.host, item.port))
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    taken = f"port {item.port} on {item.host} is taken ({item.what})"
                    raise UsageError(f"{taken}; choose another with {item.how}") from None
                raise UsageError(
                    f"cannot listen on {item.host}:{item.port} ({item.what}): {e.strerror or e}; "
                    f"change it with {item.how}"
                ) from None


def main(args: argparse.Namespace) -> int:
    liveness = args.liveness or default_liveness()
    try:
        check_free(listeners(liveness, dict(os.environ)))
    except UsageError as e:
        print(f"proctor operator: error: {e}", file=sys.stderr)
        return 2
    operator = load_controllers()  # Kopf and the handlers: only once the flags are good
    operator.run(namespaces=args.namespace or None, liveness=liveness, verbose=args.verbose)
    return 0
