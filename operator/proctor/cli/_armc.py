"""What the arm C verbs share (``proctor feedback``, ``judge-quality``, ``calibrate``, ``outcome``):
the collector's flags and token (as ``proctor runs``), a client of arm C's API, and exit codes.

Exit codes: 0 done; 1 the collector refused (400 bad input, 401, 403 RBAC lacks the verb, 404,
409, 501; the message says which, and nothing was stored); 2 nothing was asked (bad flags, no
server or token, the collector unreachable or failing).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx

from proctor.api import monitor_path
from proctor.cli.runs import EXIT_ERROR, EXIT_REFUSED, _CannotAsk, token_for
from proctor.cli.runs import add_server_flags as add_server_flags  # the verbs of arm C take it from here
from proctor.collector import CollectorClient, CollectorError

EXIT_CODES: Final = "Exit 0 done, 1 the collector refused (4xx: nothing stored), 2 nothing was asked."


class ArmCClient(CollectorClient):
    """The collector's API client with arm C's calls (JSON bodies)."""

    def _send(self, method: str, path: str, body: Mapping[str, Any] | None = None, **params: Any) -> Any:
        try:
            reply = self._http.request(
                method,
                path,
                json=dict(body) if body is not None else None,
                params={k: v for k, v in params.items() if v is not None},
            )
        except httpx.HTTPError as e:
            raise CollectorError(0, f"cannot reach the collector: {type(e).__name__}: {e}") from None
        if reply.status_code >= 400:
            try:
                message = str(reply.json().get("error") or reply.text)
            except ValueError:
                message = reply.text[:500]
            raise CollectorError(reply.status_code, message)
        return reply.json()

    def feedback(self, body: Mapping[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self._send("POST", "/api/v1/feedback", body)
        return result

    def list_feedback(self, **query: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._send("GET", "/api/v1/feedback", **query)["feedback"]
        return result

    def judge_quality(self, profile: str, recall_floor: float | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self._send(
            "GET", "/api/v1/judge-quality", profile=profile, recallFloor=recall_floor
        )
        return result

    def calibration(self, monitor: str, recall: float | None = None) -> dict[str, Any]:
        ns, _, name = monitor.partition("/")
        result: dict[str, Any] = self._send("GET", monitor_path(ns, name, "/calibration"), recall=recall)
        return result

    def outcome(self, run_id: str, outcome: str, minutes: float | None) -> dict[str, Any]:
        body: dict[str, Any] = {"outcome": outcome}
        if minutes is not None:
            body["minutes"] = minutes
        result: dict[str, Any] = self._send("POST", f"/api/v1/runs/{run_id}/outcome", body)
        return result

    def outcomes(self, monitor: str) -> dict[str, Any]:
        ns, _, name = monitor.partition("/")
        result: dict[str, Any] = self._send("GET", monitor_path(ns, name, "/outcomes"))
        return result


def qualified(name: str, namespace: str | None, flag: str) -> str:
    """``NS/NAME`` from ``NS/NAME``, or ``NAME`` with ``-n NS``."""
    if "/" in name:
        ns, _, rest = name.partition("/")
        if not ns or not rest or "/" in rest:
            raise _CannotAsk(f"{flag} must be NAME or NAMESPACE/NAME, not {name!r}")
        return name
    if not namespace:
        raise _CannotAsk(f"{flag} NAME needs -n NAMESPACE (or give {flag} NAMESPACE/NAME)")
    return f"{namespace}/{name}"


def call(prog: str, args: argparse.Namespace, fn: Callable[[ArmCClient], None]) -> int:
    """Run ``fn`` with a client, mapping failures to the exit codes above."""
    try:
        token = token_for(args)
        api = ArmCClient(args.server, token, ca_file=args.ca_file)
        try:
            fn(api)
        finally:
            api.close()
    except _CannotAsk as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 or e.status == 501 else EXIT_ERROR
    return 0


def fmt(value: float | None, *, pct: bool = False, digits: int = 2) -> str:
    """A figure for a table: ``-`` when there is none (never a zero for "not measured")."""
    if value is None:
        return "-"
    return f"{100 * value:.0f}%" if pct else f"{value:.{digits}f}"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
