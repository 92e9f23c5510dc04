"""Scores out as OpenTelemetry ``gen_ai.evaluation.result`` events, so Langfuse, Phoenix, an
OpenTelemetry Collector or any OTLP logs backend can show them beside the agent's traces.

The GenAI semantic conventions (in development) model an evaluation result as a log-based event
named ``gen_ai.evaluation.result``, parented to the GenAI operation span that was evaluated, with
``gen_ai.evaluation.name`` (required), ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation`` and ``error.type`` when the
evaluation failed. Each judged dimension of a live run becomes one such OTLP log record:

- its trace and span ids are the run's root span (the agent's ``invoke_agent`` span, else its first
  span), so a trace viewer shows the scores on the turn they judge (native events carry none);
- ``score.value`` is the 0-100 score, ``score.label`` ``pass`` or ``fail`` against the threshold;
  a skipped dimension has no value, ``error.type`` ``skipped`` and the reason as the explanation
  (never a zero);
- ``proctor.*`` attributes carry the run, the monitor, the agent's revision, the threshold, the
  source (``judge`` or ``safety-scan``) and the provenance digest; never a secret.

Off by default. On with the standard OpenTelemetry variable ``OTEL_LOGS_EXPORTER=otlp``; where to,
by the standard ``OTEL_EXPORTER_OTLP_*`` variables (the ``LOGS_`` one wins): ``ENDPOINT`` (the base
URL, ``/v1/logs`` appended; ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` is used as given), ``HEADERS``
(``key=value,...``, URL-encoded), ``TIMEOUT`` (milliseconds, default 10000), ``COMPRESSION``
(``gzip`` or ``none``), ``PROTOCOL`` (``http/protobuf`` only); the resource from
``OTEL_SERVICE_NAME`` (default ``proctor-collector``) and ``OTEL_RESOURCE_ATTRIBUTES``.

Export never holds up an evaluation: records wait in a bounded queue and go in batches; a batch
is retried on 429, 502, 503, 504 and connection errors (with ``Retry-After``), and what cannot be
sent is counted (``proctor_collector_evaluation_events_total{outcome}``), never lost silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import time
import urllib.parse
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
import structlog
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs, SeverityNumber

from proctor import __version__
from proctor.store import ScoreRecord, SpanRecord

log = structlog.get_logger("proctor.collector.export")

#: The event's name in the GenAI semantic conventions.
EVENT_NAME: Final = "gen_ai.evaluation.result"
#: ``error.type`` of a dimension that could not be scored.
SKIPPED: Final = "skipped"
#: Records waiting to be sent, at most (older ones are dropped, and counted, beyond it).
MAX_QUEUE: Final = 20000
#: Records per request.
BATCH: Final = 512
#: Seconds between sends while records wait.
FLUSH_SECONDS: Final = 1.0
#: Attempts of one batch before it is counted as failed.
ATTEMPTS: Final = 5
_RETRY_STATUS: Final = frozenset({429, 502, 503, 504})
_EXPLANATION_CHARS: Final = 4000


class ExportConfigError(ValueError):
    """The ``OTEL_*`` settings ask for something this exporter does not do (the message says what)."""


@dataclass(frozen=True)
class ExportSettings:
    """Where and how evaluation events are sent (from the standard ``OTEL_*`` variables)."""

    endpoint: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float = 10.0
    gzip: bool = False
    resource: Mapping[str, str] = field(default_factory=lambda: {"service.name": "proctor-collector"})

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ExportSettings | None:
        """None unless ``OTEL_LOGS_EXPORTER`` names ``otlp``; raises :class:`ExportConfigError`."""
        exporters = {x.strip().lower() for x in env.get("OTEL_LOGS_EXPORTER", "").split(",") if x.strip()}
        if "otlp" not in exporters:
            return None

        def pick(name: str) -> str:
            return (
                env.get(f"OTEL_EXPORTER_OTLP_LOGS_{name}") or env.get(f"OTEL_EXPORTER_OTLP_{name}") or ""
            ).strip()

        protocol = pick("PROTOCOL") or "http/protobuf"
        if protocol != "http/protobuf":
            raise ExportConfigError(
                f"OTEL_EXPORTER_OTLP_PROTOCOL {protocol!r}: scores are exported over http/protobuf only"
            )
        endpoint = (env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") or "").strip()
        if not endpoint:
            base = (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").strip()
            if not base:
                raise ExportConfigError(
                    "OTEL_LOGS_EXPORTER=otlp needs OTEL_EXPORTER_OTLP_ENDPOINT "
                    "or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
                )
            endpoint = base.rstrip("/") + "/v1/logs"
        if not endpoint.startswith(("http://", "https://")):
            raise ExportConfigError(f"the OTLP logs endpoint must be an http(s) URL, not {endpoint!r}")
        compression = pick("COMPRESSION").lower() or "none"
        if compression not in ("gzip", "none"):
            raise ExportConfigError(f"OTEL_EXPORTER_OTLP_COMPRESSION {compression!r}: gzip or none")
        try:
            timeout = float(pick("TIMEOUT") or 10000) / 1000.0
        except ValueError:
            raise ExportConfigError("OTEL_EXPORTER_OTLP_TIMEOUT is milliseconds, a number") from None
        resource = {"service.name": env.get("OTEL_SERVICE_NAME") or "proctor-collector"}
        resource = _pairs(env.get("OTEL_RESOURCE_ATTRIBUTES", "")) | resource
        resource.setdefault("service.version", __version__)
        return cls(endpoint, _pairs(pick("HEADERS")), timeout, compression == "gzip", resource)


def _pairs(text: str) -> dict[str, str]:
    """``k=v,k2=v2`` with URL-encoded values (the OpenTelemetry environment format)."""
    out: dict[str, str] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            out[urllib.parse.unquote(key.strip())] = urllib.parse.unquote(value.strip())
    return out


# --- the events (pure) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class EvaluatedRun:
    """What an evaluation's events say about their run."""

    run_id: str
    monitor: str
    agent: str
    revision: str | None
    provenance: str = ""


def evaluated_span(spans: Sequence[SpanRecord]) -> SpanRecord | None:
    """The span the events are parented to: the agent's root ``invoke_agent`` span, else a root span,
    else the first span (None for a run of native events only)."""
    roots = [s for s in spans if s.parent_span_id is None]
    for s in roots:
        if s.operation == "invoke_agent":
            return s
    return roots[0] if roots else (spans[0] if spans else None)


def _value(v: Any) -> AnyValue:
    if isinstance(v, bool):
        return AnyValue(bool_value=v)
    if isinstance(v, int):
        return AnyValue(int_value=v)
    if isinstance(v, float):
        return AnyValue(double_value=v)
    return AnyValue(string_value=str(v))


def _attrs(values: Mapping[str, Any]) -> list[KeyValue]:
    return [KeyValue(key=k, value=_value(v)) for k, v in values.items() if v is not None]


def evaluation_records(
    run: EvaluatedRun, scores: Sequence[ScoreRecord], span: SpanRecord | None, at: float
) -> list[LogRecord]:
    """One ``gen_ai.evaluation.result`` log record per score of an evaluation."""
    out = []
    for s in scores:
        attributes: dict[str, Any] = {
            "event.name": EVENT_NAME,  # what receivers older than LogRecord.event_name look at
            "gen_ai.evaluation.name": s.dimension,
            "gen_ai.evaluation.score.value": float(s.score) if s.score is not None else None,
            "gen_ai.evaluation.score.label": (
                None if s.score is None else ("pass" if s.score >= s.threshold else "fail")
            ),
            "gen_ai.evaluation.explanation": (s.rationale if s.score is not None else s.skipped_reason or "")[
                :_EXPLANATION_CHARS
            ]
            or None,
            "error.type": SKIPPED if s.score is None else None,
            "gen_ai.conversation.id": span.attributes.get("gen_ai.conversation.id") if span else None,
            "proctor.run.id": run.run_id,
            "proctor.monitor": run.monitor,
            "proctor.agent": run.agent,
            "proctor.revision": run.revision,
            "proctor.evaluation.threshold": float(s.threshold),
            "proctor.evaluation.source": s.source,
            "proctor.evaluation.provenance": run.provenance or None,
        }
        record = LogRecord(
            time_unix_nano=int(at * 1e9),
            observed_time_unix_nano=int(at * 1e9),
            severity_number=SeverityNumber.SEVERITY_NUMBER_INFO,
            severity_text="INFO",
            event_name=EVENT_NAME,
            attributes=_attrs(attributes),
        )
        if span is not None:
            record.trace_id = bytes.fromhex(span.trace_id)
            record.span_id = bytes.fromhex(span.span_id)
        out.append(record)
    return out


def export_request(records: Sequence[LogRecord], resource: Mapping[str, str]) -> ExportLogsServiceRequest:
    scope = ScopeLogs(scope=InstrumentationScope(name="proctor.collector", version=__version__))
    scope.log_records.extend(records)
    rl = ResourceLogs(scope_logs=[scope])
    rl.resource.attributes.extend(_attrs(resource))
    return ExportLogsServiceRequest(resource_logs=[rl])


# --- sending ---------------------------------------------------------------------------------------


class EvaluationExporter:
    """Sends evaluation events in the background (:meth:`run`); :meth:`submit` never waits."""

    def __init__(
        self,
        settings: ExportSettings,
        *,
        counted: Any = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self._queue: deque[LogRecord] = deque()
        self._wake = asyncio.Event()
        self._counted = counted  # a prometheus Counter with label "outcome", or None
        self._http = httpx.AsyncClient(timeout=settings.timeout, transport=transport)

    def _count(self, outcome: str, n: int) -> None:
        if self._counted is not None and n:
            self._counted.labels(outcome).inc(n)

    def submit(self, records: Sequence[LogRecord]) -> None:
        """Queue records for the next batch; the oldest are dropped (and counted) beyond the bound."""
        self._queue.extend(records)
        over = len(self._queue) - MAX_QUEUE
        for _ in range(max(0, over)):
            self._queue.popleft()
        if over > 0:
            self._count("dropped", over)
            log.warning("evaluation events dropped: the OTLP receiver is behind", dropped=over)
        if len(self._queue) >= BATCH:
            self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Send batches until ``stop``; then flush what waits (one try each)."""
        while not stop.is_set():
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=FLUSH_SECONDS)
            while self._queue and not stop.is_set():
                await self._send(self._take(), attempts=ATTEMPTS, stop=stop)
        while self._queue:
            await self._send(self._take(), attempts=1, stop=None)
        await self._http.aclose()

    def _take(self) -> list[LogRecord]:
        return [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]

    async def _send(self, batch: list[LogRecord], *, attempts: int, stop: asyncio.Event | None) -> None:
        body = export_request(batch, self.settings.resource).SerializeToString()
        headers = {"Content-Type": "application/x-protobuf", **self.settings.headers}
        if self.settings.gzip:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        delay = 0.5
        why = ""
        for attempt in range(attempts):
            try:
                reply = await self._http.post(self.settings.endpoint, content=body, headers=headers)
            except httpx.HTTPError as e:
                why = type(e).__name__
            else:
                if reply.status_code < 300:
                    self._count("exported", len(batch))
                    return
                why = f"HTTP {reply.status_code}"
                if reply.status_code not in _RETRY_STATUS:
                    break
                with contextlib.suppress(ValueError):
                    delay = max(delay, float(reply.headers.get("Retry-After", "")))
            if attempt + 1 < attempts:
                if stop is not None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), timeout=delay)
                else:
                    await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
        self._count("failed", len(batch))
        log.warning("evaluation events not exported", events=len(batch), reason=why, at=time.time())
