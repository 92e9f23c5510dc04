"""A client of the collector's runs API: what ``proctor runs list|show|evaluate`` call.

``--server`` defaults to ``PROCTOR_SERVER``; the bearer token to ``PROCTOR_API_TOKEN`` (the
management token of a collector without a cluster) or a Kubernetes token for the collector's
audience (in one: ``kubectl create token SA --audience proctor-collector``), never the ingestion
token ``PROCTOR_TOKEN`` that agents send. A collector served over TLS by a private CA is verified
with ``PROCTOR_SERVER_CA`` (a PEM bundle). Errors are :class:`CollectorError` with the HTTP status
and the collector's message.
"""

from __future__ import annotations

import json
import os
import ssl
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote

import httpx

from proctor.api import monitor_path
from proctor.collector.views import run_summary

SERVER_ENV: Final = "PROCTOR_SERVER"
#: The management API's token (``proctor runs`` and every other client of it); never ``PROCTOR_TOKEN``.
API_TOKEN_ENV: Final = "PROCTOR_API_TOKEN"
#: The agents' ingestion token of a collector run from files: never read by a client of the API.
INGEST_TOKEN_ENV: Final = "PROCTOR_TOKEN"
#: A PEM CA bundle that verifies a collector served over TLS (default: the system's CAs).
SERVER_CA_ENV: Final = "PROCTOR_SERVER_CA"


class CollectorError(Exception):
    """The collector refused or could not be reached; ``status`` is 0 when it was not reached."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status or 'unreachable'}: {message}" if status else message)
        self.status = status
        self.message = message


class CollectorClient:
    """The runs API over HTTP (httpx; ``transport`` replaces the network in tests)."""

    def __init__(
        self,
        server: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        ca_file: str | None = None,
    ) -> None:
        server = server or os.environ.get(SERVER_ENV)
        if not server:
            raise CollectorError(0, f"no collector: give --server URL or set {SERVER_ENV}")
        token = token if token is not None else os.environ.get(API_TOKEN_ENV)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        ca_file = ca_file or os.environ.get(SERVER_CA_ENV) or None
        verify: ssl.SSLContext | bool = True
        if ca_file:
            try:
                verify = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as e:
                raise CollectorError(0, f"cannot read the CA bundle {ca_file}: {e}") from None
        self._http = httpx.Client(
            base_url=server.rstrip("/"), headers=headers, timeout=timeout, transport=transport, verify=verify
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> CollectorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(
        self, method: str, path: str, params: Mapping[str, Any] | None = None, *, body: Any = None
    ) -> Any:
        try:
            reply = self._http.request(
                method,
                path,
                params={k: v for k, v in (params or {}).items() if v is not None},
                json=body,
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

    def list_runs(
        self,
        *,
        monitor: str | None = None,
        namespace: str | None = None,
        state: str | None = None,
        limit: int = 100,
        pages: int = 1,
    ) -> list[dict[str, Any]]:
        """Runs, newest first (``pages`` pages of ``limit``; 0 pages: every page)."""
        out: list[dict[str, Any]] = []
        before = None
        page = 0
        while True:
            reply = self._call(
                "GET",
                "/api/v1/runs",
                {
                    "monitor": monitor,
                    "namespace": namespace,
                    "state": state,
                    "limit": limit,
                    "before": before,
                },
            )
            out += reply["runs"]
            page += 1
            before = reply.get("next")
            if before is None or (pages and page >= pages):
                return out

    def show_run(self, run_id: str) -> dict[str, Any]:
        """One run with its steps, scores, evaluations and signals."""
        result: dict[str, Any] = self._call("GET", f"/api/v1/runs/{run_id}")
        return result

    def monitor(self, namespace: str, name: str) -> dict[str, Any]:
        """A monitor's summary (runs by state, per-dimension latest score and EWMAs, judge cost)."""
        result: dict[str, Any] = self._call("GET", monitor_path(namespace, name))
        return result

    # --- the live canary (armb-canary) ---

    def verdict(self, namespace: str, name: str, revision: str) -> tuple[int, dict[str, Any]]:
        """A revision's live verdict and the HTTP status it came with (503: ERROR, unmeasurable).
        Raises :class:`CollectorError` for any other refusal (401, 403, 404, 400)."""
        path = monitor_path(namespace, name, "/verdict")
        try:
            reply = self._http.get(path, params={"revision": revision})
        except httpx.HTTPError as e:
            raise CollectorError(0, f"cannot reach the collector: {type(e).__name__}: {e}") from None
        try:
            doc = reply.json()
        except ValueError:
            doc = {}
        if reply.status_code == 200 or (reply.status_code == 503 and "verdict" in doc):
            return reply.status_code, doc
        raise CollectorError(reply.status_code, str(doc.get("error") or reply.text[:500]))

    def cases(
        self, namespace: str, name: str, *, revision: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """The monitor's candidate cases: ``{"cases": [{"run", "revision", "failing", "case"}], ...}``."""
        result: dict[str, Any] = self._call(
            "GET",
            monitor_path(namespace, name, "/cases"),
            {"revision": revision, "limit": limit},
        )
        return result

    def evaluate(self, run_id: str) -> dict[str, Any]:
        """Evaluate ``run_id`` now."""
        result: dict[str, Any] = self._call("POST", f"/api/v1/runs/{run_id}/evaluate")
        return result

    # --- incidents (armb-notify) ---

    def list_incidents(
        self,
        *,
        monitor: str | None = None,
        namespace: str | None = None,
        state: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Incidents, newest first, of the monitors the caller may read."""
        reply = self._call(
            "GET",
            "/api/v1/incidents",
            {"monitor": monitor, "namespace": namespace, "state": state, "limit": limit},
        )
        return list(reply["incidents"])

    def show_incident(self, incident_id: str) -> dict[str, Any]:
        """One incident with its cause, runs and recommendations."""
        result: dict[str, Any] = self._call("GET", f"/api/v1/incidents/{incident_id}")
        return result

    def ack_incident(self, incident_id: str) -> dict[str, Any]:
        """Acknowledge an incident (RBAC verb ``acknowledge``)."""
        result: dict[str, Any] = self._call("POST", f"/api/v1/incidents/{incident_id}/ack")
        return result

    def decide_recommendation(self, incident_id: str, rec: str, decision: str) -> dict[str, Any]:
        """``approve`` or ``dismiss`` a recommendation of an incident (RBAC verb ``approve``)."""
        if decision not in ("approve", "dismiss"):
            raise ValueError("decision is approve or dismiss")
        path = f"/api/v1/incidents/{incident_id}/recommendations/{rec}/{decision}"
        result: dict[str, Any] = self._call("POST", path)
        return result

    def recompute(self, namespace: str, name: str) -> dict[str, Any]:
        """Rebuild a monitor's detector state from its stored scores (RBAC verb ``recompute``)."""
        path = monitor_path(_seg(namespace), _seg(name), "/recompute")
        result: dict[str, Any] = self._call("POST", path)
        return result

    # arm C, coaching (armc-mcp): the rubric, behaviour patterns, guidance; approving a recommendation

    def rubric(self, namespace: str, name: str) -> dict[str, Any]:
        """The dimensions, rubrics and thresholds a monitor's runs are judged on."""
        result: dict[str, Any] = self._call("GET", monitor_path(_seg(namespace), _seg(name), "/rubric"))
        return result

    def patterns(self, namespace: str, name: str, *, state: str = "open") -> dict[str, Any]:
        """A monitor's behaviour patterns, ranked (recurrence x recency, decomposed)."""
        result: dict[str, Any] = self._call(
            "GET", monitor_path(_seg(namespace), _seg(name), "/patterns"), {"state": state}
        )
        return result

    def guidance(self, namespace: str, name: str) -> dict[str, Any]:
        """Improvement guidance from a monitor's open patterns, with the run ids behind each line."""
        result: dict[str, Any] = self._call("GET", monitor_path(_seg(namespace), _seg(name), "/guidance"))
        return result

    def resolve_pattern(self, pattern: int, note: str | None = None) -> dict[str, Any]:
        """Mark a pattern resolved (a fix shipped); it reopens when it recurs."""
        result: dict[str, Any] = self._call(
            "POST", f"/api/v1/patterns/{int(pattern)}/resolve", body={"note": note} if note else None
        )
        return result

    def approve_recommendation(self, incident: str, recommendation: str) -> dict[str, Any]:
        """Approve an incident's recommendation (the collector decides whether the caller may)."""
        result: dict[str, Any] = self._call(
            "POST", f"/api/v1/incidents/{_seg(incident)}/recommendations/{_seg(recommendation)}/approve"
        )
        return result


def _seg(value: str) -> str:
    """``value`` as one path segment (a ``/`` or ``..`` in it never reaches another endpoint)."""
    text = str(value)
    if text in ("", ".", ".."):
        raise CollectorError(0, f"not a valid name or id: {text!r}")
    return quote(text, safe="")


def runs_json(runs: Sequence[Mapping[str, Any]]) -> str:
    """What ``proctor runs list -o json`` prints: a JSON list of the stable short form."""
    return json.dumps([run_summary(r) for r in runs], indent=2)


def runs_table(runs: Sequence[Mapping[str, Any]]) -> str:
    """What ``proctor runs list`` prints for people: one line per run."""
    rows = [("RUN", "MONITOR", "STATE", "ATTEMPTS", "SCORES")]
    for r in runs:
        scores = ", ".join(
            f"{name}={v['score']:g}" if v.get("score") is not None else f"{name}=skipped"
            for name, v in sorted((r.get("scores") or {}).items())
        )
        rows.append((r["id"], r["monitor"], r["state"], str(r["attempts"]), scores or "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True)) + "  " + row[4] for row in rows
    )
