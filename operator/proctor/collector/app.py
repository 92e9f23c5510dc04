"""The collector's HTTP surface (aiohttp): OTLP/HTTP and native ingestion, the management API,
OpenAPI, health and metrics.

Ingestion answers follow OTLP/HTTP: 200 with ``partial_success`` naming rejected spans, 400 for a
body that is not an export request (nothing stored), 401 without the right bearer token, 413 over
the body limit, 429 (the writer is behind) and 503 (the database is down) with ``Retry-After``.
A request is acknowledged only after everything it brought was committed; nothing is dropped
silently: every span is stored or counted as rejected, with the reason in the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from proctor.api import MONITOR_ROUTE, RECOMMENDATIONS, ActionPolicy
from proctor.collector import canary, otlp
from proctor.collector import events as native
from proctor.collector import quality as armc
from proctor.collector.auth import (
    ACKNOWLEDGE_VERB,
    APPROVE_VERB,
    EVALUATE_VERB,
    LIST_VERB,
    PERFORM_VERB,
    READ_VERB,
    RECOMPUTE_VERB,
    Authorizer,
    AuthUnavailable,
    Caller,
    Unauthenticated,
)
from proctor.collector.coaching import RESOLVE_VERB, STATES, Coaching, rubric_document
from proctor.collector.detectors import detector_config, detector_summary
from proctor.collector.exams import ExamReader
from proctor.collector.incidents import (
    ACTION_LEASE_SECONDS,
    allowed_actions,
    decide_recommendation,
    incident_json,
    incidents_status,
    pending_actions,
)
from proctor.collector.ingest import Backpressure, TooManyItems, Writer
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import Monitor, Registry, revision_of
from proctor.collector.openapi import document
from proctor.collector.redaction import Redactor
from proctor.collector.trajectory import signals, steps_of
from proctor.collector.views import monitor_summary, newest_revision_dimensions, run_detail, run_json
from proctor.protocol import LiveVerdict
from proctor.store import (
    IncidentNotFound,
    Incidents,
    IncidentView,
    Item,
    LiveCanary,
    PatternNotFound,
    Patterns,
    RunNotFound,
    RunRef,
    Store,
    StoreUnavailable,
)

log = structlog.get_logger("proctor.collector.app")
T = TypeVar("T")

#: Seconds a client is asked to wait when the database is down.
DB_RETRY_AFTER: Final = 5
#: Seconds /readyz waits for the database's answer.
READY_TIMEOUT: Final = 2.0
#: The default request body limit (decompressed), bytes.
DEFAULT_MAX_BODY: Final = 32 * 1024 * 1024
#: Bodies larger than this are decoded off the event loop.
_DECODE_INLINE: Final = 256 * 1024
#: Request bodies inflated at once at most: a burst of gzip bombs costs at most this many times the
#: body limit of memory, and leaves cores to the event loop.
INFLATE_CONCURRENCY: Final = 2
#: Threads inflating and decoding request bodies.
DECODING_THREADS: Final = 4
#: Seconds a management API request waits for the database before it is answered 503.
API_TIMEOUT: Final = 15.0
#: Runs listed per page at most.
MAX_PAGE: Final = 500


@dataclass
class Context:
    """What the handlers share (kept on the application, never in module globals)."""

    store: Store
    writer: Writer
    registry: Callable[[], Registry]
    metrics: Metrics
    auth: Authorizer
    wake: Callable[[], None]
    max_body: int = 32 * 1024 * 1024
    #: The canary's reads (the live verdict, breached runs); made from ``store`` when not given.
    canary: LiveCanary | None = None
    #: The revisions whose verdict is kept current in the gauge: (monitor, revision) -> agent.
    verdicts: dict[tuple[str, str], str] = field(default_factory=dict)
    #: The readiness check of the database in flight (one at a time; see :func:`readyz`).
    ping: asyncio.Future[None] | None = None
    ping_started: float = 0.0
    #: The threads that inflate and decode request bodies (apart from those that wait on the database).
    decoding: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(DECODING_THREADS, thread_name_prefix="proctor-decode")
    )
    #: Bodies being inflated at once, at most (memory: this many times ``max_body``).
    inflating: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(INFLATE_CONCURRENCY))
    #: The incidents room (armb-notify); None: incidents are not served.
    incidents: Incidents | None = None
    #: Exam cases' judged scores (a collector in a cluster); None: exam cases cannot be reviewed.
    exams: ExamReader | None = None


CONTEXT: Final = web.AppKey("context", Context)
#: Arm C's coaching (behaviour patterns, guidance), beside the context.
COACHING: Final = web.AppKey("coaching", Coaching)


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _error(status: int, message: str, *, retry_after: float | None = None, **extra: Any) -> web.Response:
    headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else None
    return web.json_response({"error": message, **extra}, status=status, headers=headers)


def _otlp_error(
    status: int, message: str, content_type: str, *, retry_after: float | None = None
) -> web.Response:
    # google.rpc.Status codes: 3 INVALID_ARGUMENT, 16 UNAUTHENTICATED, 8 RESOURCE_EXHAUSTED, 14 UNAVAILABLE
    code = {400: 3, 401: 16, 413: 3, 415: 3, 429: 8, 503: 14}.get(status, 2)
    body, ctype = otlp.status_body(code, message, content_type)
    headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="proctor-collector"'
    return web.Response(status=status, body=body, content_type=ctype, headers=headers)


class BodyTooLarge(Exception):
    """The body (as sent, or once inflated) is over the limit."""


class BadEncoding(Exception):
    """A Content-Encoding the collector does not undo, or a body that is not what it says."""


#: Content-Encodings undone, with zlib's window bits for each (gzip, zlib; raw deflate is tried too).
_ENCODINGS: Final = {"gzip": 31, "x-gzip": 31, "deflate": 15}
#: Bytes of inflated output produced per step at most: the limit is checked between steps.
_INFLATE_STEP: Final = 1024 * 1024


def inflate(body: bytes, encoding: str, limit: int) -> bytes:
    """``body`` decompressed, step by step, stopping as soon as the output passes ``limit``
    (raises :class:`BodyTooLarge`): a bomb costs at most ``limit`` plus one step of memory, never
    its inflated size. Runs in a worker thread (zlib releases the GIL)."""
    wbits = _ENCODINGS[encoding]
    if encoding == "deflate" and body[:1] and body[0] & 0x0F != 8:
        wbits = -15  # raw deflate without the zlib header, as some clients send it
    z = zlib.decompressobj(wbits)
    out = bytearray()
    data = body
    try:
        while True:
            out += z.decompress(data, _INFLATE_STEP)
            if len(out) > limit:
                raise BodyTooLarge
            data = z.unconsumed_tail
            if not data:
                break
        out += z.flush()
    except zlib.error as e:
        raise BadEncoding(f"the body is not valid {encoding} ({e})") from None
    if len(out) > limit:
        raise BodyTooLarge
    if not z.eof:
        raise BadEncoding(f"the {encoding} body ends before its stream does")
    return bytes(out)


async def _off_loop(ctx: Context, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the decoding threads: CPU work never waits behind threads a hung database
    holds (those are the default executor's), nor stalls the event loop."""
    return await asyncio.get_running_loop().run_in_executor(ctx.decoding, functools.partial(fn, *args))


async def _read(request: web.Request, ctx: Context) -> bytes:
    """The body within ``limit`` bytes, as sent and once inflated. The application does not let
    aiohttp inflate bodies (which would do it on the event loop): the compressed body is read up
    to the limit, then inflated in a thread with a hard limit on its output. Raises
    :class:`BodyTooLarge` or :class:`BadEncoding`."""
    limit = ctx.max_body
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in _ENCODINGS and encoding not in ("", "identity"):
        raise BadEncoding(f"unsupported Content-Encoding {encoding!r}: send gzip or none")
    if request.content_length is not None and request.content_length > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    body = b"".join(chunks)
    if encoding in _ENCODINGS:
        async with ctx.inflating:
            return await _off_loop(ctx, inflate, body, encoding, limit)
    return body


def _count(ctx: Context, endpoint: str, status: int, started: float) -> None:
    ctx.metrics.requests.labels(endpoint, str(status)).inc()
    ctx.metrics.ack_seconds.labels(endpoint).observe(time.monotonic() - started)


async def traces(request: web.Request) -> web.Response:
    """``POST /v1/traces``: an OTLP/HTTP ExportTraceServiceRequest (protobuf or JSON, gzip or not)."""
    ctx = request.app[CONTEXT]
    started = time.monotonic()
    ctype = request.headers.get("Content-Type", otlp.PROTOBUF)
    response = await _traces(ctx, request, ctype)
    _count(ctx, "traces", response.status, started)
    return response


async def _traces(ctx: Context, request: web.Request, ctype: str) -> web.Response:
    registry = ctx.registry()
    grant = registry.ingest_grant(_bearer(request))
    if not grant:
        return _otlp_error(
            401, "a bearer token the collector accepts is required (Authorization: Bearer ...)", ctype
        )
    try:
        body = await _read(request, ctx)
    except BodyTooLarge:
        return _otlp_error(
            413, f"request body over the limit of {ctx.max_body} bytes: send smaller batches", ctype
        )
    except BadEncoding as e:
        return _otlp_error(415 if "unsupported" in str(e) else 400, str(e), ctype)
    try:
        if len(body) > _DECODE_INLINE:
            decoded = await _off_loop(ctx, _decode_traces, body, ctype, registry, grant, ctx.writer)
        else:
            decoded = _decode_traces(body, ctype, registry, grant, ctx.writer)
    except otlp.BadPayload as e:
        return _otlp_error(400, str(e), ctype)
    except TooManyItems as e:
        return _otlp_error(413, str(e), ctype)
    items, rejected, reasons, per_monitor, without_key = decoded
    for reason, n in rejected.items():
        ctx.metrics.rejected.labels(reason).inc(n)
    for monitor, n in per_monitor.items():
        ctx.metrics.spans_received.labels(monitor).inc(n)
    for monitor, n in without_key.items():
        ctx.metrics.no_run_key.labels(monitor).inc(n)
    total_rejected = sum(rejected.values())
    message = "; ".join(f"{n} span{'s' if n != 1 else ''}: {why}" for why, n in reasons.most_common(5))
    if total_rejected and not items:
        return _otlp_error(400, f"every span was rejected: {message}", ctype)
    try:
        result = await ctx.writer.submit(items)
    except TooManyItems as e:
        return _otlp_error(413, str(e), ctype)
    except Backpressure as e:
        return _otlp_error(429, str(e), ctype, retry_after=max(1.0, e.retry_after))
    except StoreUnavailable as e:
        ctx.metrics.database_errors.inc()
        return _otlp_error(503, f"not acknowledged, send it again: {e}", ctype, retry_after=DB_RETRY_AFTER)
    try:  # arm C: outcomes the agent reported in its spans (proctor.outcome), once those are committed
        await armc.record_telemetry_outcomes(request.app, items)
    except StoreUnavailable:
        ctx.metrics.database_errors.inc()
    if result.refused:
        ctx.metrics.rejected.labels("refused").inc(len(result.refused))
        reasons.update(why for _, why in result.refused)
        total_rejected += len(result.refused)
        message = "; ".join(f"{n} span{'s' if n != 1 else ''}: {why}" for why, n in reasons.most_common(5))
    body_out, out_type = otlp.response(total_rejected, message, ctype)
    return web.Response(status=200, body=body_out, content_type=out_type)


def _decode_traces(
    body: bytes, ctype: str, registry: Registry, grant: frozenset[str], writer: Writer
) -> tuple[list[Item], Counter[str], Counter[str], Counter[str], Counter[str]]:
    request = otlp.parse_request(body, ctype)
    # counted on the parsed message, before a Python object is made of any span
    writer.admissible(sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans))
    items: list[Item] = []
    rejected: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    per_monitor: Counter[str] = Counter()
    without_key: Counter[str] = Counter()
    resources: dict[int, tuple[Monitor | None, str | None]] = {}  # spans of one resource share it
    for d in otlp.iter_spans(request):
        if isinstance(d, otlp.Rejected):
            rejected[d.kind] += 1
            reasons[d.reason] += 1
            continue
        known = resources.get(id(d.resource))
        if known is None:
            revision = revision_of(d.resource)
            known = resources[id(d.resource)] = (
                registry.for_resource(d.resource, grant),
                otlp.storable(revision)[0] if revision is not None else None,
            )
        monitor, revision = known
        if monitor is None:
            service = str(d.resource.get("service.name", ""))
            rejected["no_monitor"] += 1
            reasons[f"no AgentMonitor this token may send for watches service.name {service!r}"] += 1
            continue
        per_monitor[monitor.name] += 1
        ref = monitor.run_of(d.span.trace_id, d.span.attributes, d.resource, revision)
        if ref is None:
            rejected["no_run_key"] += 1
            without_key[monitor.name] += 1
            reasons[
                f"no run key (AgentMonitor {monitor.name} reads {', '.join(monitor.resource.spec.run_key)})"
            ] += 1
            continue
        if otlp.unstorable(ref.key):
            rejected["invalid_value"] += 1
            reasons[f"its run key ({ref.key_source}) holds a NUL character or a lone surrogate"] += 1
            continue
        final = d.span.parent_span_id is None and d.span.operation == "invoke_agent"
        items.append(Item(ref, span=d.span, final=final))
    return items, rejected, reasons, per_monitor, without_key


async def events_in(request: web.Request) -> web.Response:
    """``POST /v1/events``: native events (see ``GET /v1/events/schema``)."""
    ctx = request.app[CONTEXT]
    started = time.monotonic()
    response = await _events(ctx, request)
    _count(ctx, "events", response.status, started)
    return response


async def _events(ctx: Context, request: web.Request) -> web.Response:
    registry = ctx.registry()
    grant = registry.ingest_grant(_bearer(request))
    if not grant:
        return _error(401, "a bearer token the collector accepts is required (Authorization: Bearer ...)")
    try:
        body = await _read(request, ctx)
    except BodyTooLarge:
        return _error(413, f"request body over the limit of {ctx.max_body} bytes: send smaller batches")
    except BadEncoding as e:
        return _error(415 if "unsupported" in str(e) else 400, str(e))
    try:
        if len(body) > _DECODE_INLINE:  # validating thousands of events is CPU work: off the loop
            batch = await _off_loop(ctx, functools.partial(native.parse, now=time.time()), body)
        else:
            batch = native.parse(body, now=time.time())
    except native.BadEvents as e:
        return _error(400, str(e))
    resource: dict[str, Any] = {"service.name": batch.service_name}
    if batch.version:
        resource["service.version"] = batch.version
    monitor = registry.for_resource(resource, grant)
    if monitor is None:
        return _error(
            404, f"no AgentMonitor this token may send for watches agent.serviceName {batch.service_name!r}"
        )
    items = []
    for ev in batch.events:
        ref = RunRef(
            monitor.name, ev.execution_id, "executionId", monitor.service_name, revision_of(resource)
        )
        items.append(Item(ref, event=ev.record, final=ev.final))
    try:
        result = await ctx.writer.submit(items)
    except TooManyItems as e:
        return _error(413, str(e))
    except Backpressure as e:
        return _error(429, str(e), retry_after=max(1.0, e.retry_after))
    except StoreUnavailable as e:
        ctx.metrics.database_errors.inc()
        return _error(503, f"not acknowledged, send it again: {e}", retry_after=DB_RETRY_AFTER)
    if result.refused:  # what the database refused alone; the others are stored
        rejected = [{"index": i, "reason": why} for i, why in result.refused]
        return web.json_response({"accepted": len(items) - len(rejected), "rejected": rejected})
    return web.json_response({"accepted": len(items)})


async def events_schema(_request: web.Request) -> web.Response:
    return web.json_response(native.schema())


# --- the management API ------------------------------------------------------------------------------


Handler = Callable[[web.Request, Context, Caller], Awaitable[web.Response]]


def _managed(handler: Handler) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def wrapped(request: web.Request) -> web.Response:
        ctx = request.app[CONTEXT]
        try:
            caller = await ctx.auth.authenticate(_bearer(request))
            return await asyncio.wait_for(handler(request, ctx, caller), timeout=API_TIMEOUT)
        except TimeoutError:
            ctx.metrics.database_errors.inc()
            return _error(
                503,
                f"no answer within {API_TIMEOUT:g} s from the database (or the cluster's authorization)",
                retry_after=DB_RETRY_AFTER,
            )
        except Unauthenticated as e:
            return web.json_response(
                {"error": str(e)},
                status=401,
                headers={"WWW-Authenticate": 'Bearer realm="proctor-collector"'},
            )
        except AuthUnavailable as e:
            return _error(503, f"cannot check the caller: {e}", retry_after=DB_RETRY_AFTER)
        except StoreUnavailable as e:
            ctx.metrics.database_errors.inc()
            return _error(503, str(e), retry_after=DB_RETRY_AFTER)

    return wrapped


def _forbidden(caller: Caller, verb: str, monitor: str) -> web.Response:
    ns, _, name = monitor.partition("/")
    return _error(
        403,
        f"{caller.name or 'the caller'} may not {verb} agentmonitors.proctor.dev {name!r} "
        f"in namespace {ns!r}",
    )


async def list_runs(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/runs?monitor=NS/NAME&namespace=NS&state=S&limit=N&before=ID``."""
    registry = ctx.registry()
    q = request.query
    try:
        limit = max(1, min(int(q.get("limit", "100")), MAX_PAGE))
    except ValueError:
        return _error(400, "limit must be a number")
    wanted = [m for m in registry.monitors.values()]
    if "monitor" in q:
        wanted = [m for m in wanted if m.name == q["monitor"]]
        if not wanted:
            return _error(404, f"no AgentMonitor {q['monitor']!r} is served here")
    if "namespace" in q:
        wanted = [m for m in wanted if m.namespace == q["namespace"]]
    allowed = []
    for m in wanted:
        verb = READ_VERB if "monitor" in q else LIST_VERB
        name = m.name.split("/", 1)[1] if "monitor" in q else None
        if await ctx.auth.allowed(caller, verb, m.namespace, name):
            allowed.append(m.name)
        elif "monitor" in q:
            return _forbidden(caller, verb, m.name)
    if wanted and not allowed:
        return _error(
            403,
            f"{caller.name or 'the caller'} may not list agentmonitors.proctor.dev "
            "in any namespace served here",
        )
    state = q.get("state")
    runs = await asyncio.to_thread(
        ctx.store.list_runs, monitors=allowed, state=state, limit=limit, before=q.get("before")
    )
    return web.json_response(
        {"runs": [run_json(r) for r in runs], "next": runs[-1].id if len(runs) == limit else None}
    )


async def _authorized_run(ctx: Context, caller: Caller, run_id: str, verb: str) -> Any:
    try:
        run = await asyncio.to_thread(ctx.store.get_run, run_id)
    except RunNotFound:
        return _error(404, f"no run {run_id!r}")
    ns, _, name = run.monitor.partition("/")
    if not await ctx.auth.allowed(caller, verb, ns, name):
        # the same answer as a missing run would leak which runs exist: say 403 only for the verb
        return _forbidden(caller, verb, run.monitor)
    return run


async def show_run(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/runs/{id}``: the run, its events (trajectory), scores, evaluations."""
    run = await _authorized_run(ctx, caller, request.match_info["id"], READ_VERB)
    if isinstance(run, web.Response):
        return run
    trajectory = await asyncio.to_thread(ctx.store.trajectory, run.id)
    evaluations = await asyncio.to_thread(ctx.store.evaluations, run.id)
    steps = steps_of(trajectory)
    return web.json_response(run_detail(run, steps, evaluations, signals(trajectory, steps)))


async def evaluate_run(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/runs/{id}/evaluate``: evaluate now (202; the worker picks it up at once)."""
    run = await _authorized_run(ctx, caller, request.match_info["id"], EVALUATE_VERB)
    if isinstance(run, web.Response):
        return run
    view = await asyncio.to_thread(ctx.store.evaluate_now, run.id, time.time())
    ctx.wake()
    return web.json_response(run_json(view), status=202)


async def show_monitor(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}``: the summary a monitor's status is written from."""
    ns, name = request.match_info["namespace"], request.match_info["name"]
    monitor = ctx.registry().get(f"{ns}/{name}")
    if monitor is None:
        return _error(404, f"no AgentMonitor {ns}/{name} is served here")
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name):
        return _forbidden(caller, READ_VERB, monitor.name)
    trend = monitor.resource.spec.detectors.trend
    summary = await asyncio.to_thread(
        ctx.store.summary, monitor.name, fast_span=trend.fast_span, slow_span=trend.slow_span
    )
    doc = monitor_summary(monitor.name, summary)
    # the detectors' room: the live series that fired (Breached, Degrading)
    series = await asyncio.to_thread(ctx.store.detectors.series, monitor.name)
    doc["detectors"] = detector_summary(series)
    # per dimension the newest revision's latest score and EWMAs, from its series (armb-act)
    doc["dimensions"] = newest_revision_dimensions(doc["dimensions"], series)
    if ctx.incidents is not None:  # open incidents and the breaker (armb-notify)
        doc.update(await asyncio.to_thread(incidents_status, ctx.incidents, monitor))
        # what the operator should perform (armb-act): approved, or Allowed by the actions policy
        doc["actions"] = await asyncio.to_thread(pending_actions, ctx.incidents, monitor, time.time())
    doc["outcomes"] = await armc.status_outcomes(request.app, monitor.name)  # arm C
    if monitor.closed:  # why nothing is accepted for it: the operator writes it on the monitor
        doc["ingestionClosed"] = monitor.closed
    return web.json_response(doc)


async def recompute_monitor(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/monitors/{namespace}/{name}/recompute`` (RBAC verb ``recompute`` on the
    agentmonitor): forget the monitor's detector state and rebuild it from the stored scores with
    its detector settings as they are now (after a setting changed, or state was lost); decide again
    what each judged run breached under its thresholds and recount the revisions' verdicts."""
    ns, name = request.match_info["namespace"], request.match_info["name"]
    monitor = ctx.registry().get(f"{ns}/{name}")
    if monitor is None:
        return _error(404, f"no AgentMonitor {ns}/{name} is served here")
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name):
        return _forbidden(caller, READ_VERB, monitor.name)
    if not await ctx.auth.allowed(caller, RECOMPUTE_VERB, ns, name):
        return _forbidden(caller, RECOMPUTE_VERB, monitor.name)
    config = detector_config(monitor.resource)
    replayed = await asyncio.to_thread(ctx.store.detectors.recompute, monitor.name, config, time.time())
    # what each judged run breached, under the thresholds the detectors now breach on, and the
    # revisions' verdict counts from that
    thresholds = monitor.resource.spec.detectors.threshold.thresholds
    runs = await asyncio.to_thread(ctx.store.rollups.recompute, monitor.name, thresholds)
    series = await asyncio.to_thread(ctx.store.detectors.series, monitor.name)
    return web.json_response(
        {
            "monitor": monitor.name,
            "evaluations": replayed,
            "runs": runs,
            "detectors": detector_summary(series),
        }
    )


# --- incidents (armb-notify) ---------------------------------------------------------------------


def _incidents(ctx: Context) -> Incidents:
    if ctx.incidents is None:
        raise web.HTTPNotFound(text="incidents are not served by this collector")
    return ctx.incidents


async def list_incidents(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/incidents?monitor=NS/NAME&namespace=NS&state=open&limit=N``: newest first, only
    of the monitors the caller may read."""
    incidents = _incidents(ctx)
    q = request.query
    try:
        limit = max(1, min(int(q.get("limit", "100")), MAX_PAGE))
    except ValueError:
        return _error(400, "limit must be a number")
    state = q.get("state")
    if state is not None and state not in ("open", "acknowledged", "resolved"):
        return _error(400, "state must be open, acknowledged or resolved")
    monitors = list(ctx.registry().monitors.values())
    if "monitor" in q:
        ns, _, name = q["monitor"].partition("/")
        if not await ctx.auth.allowed(caller, READ_VERB, ns, name or None):
            return _forbidden(caller, READ_VERB, q["monitor"])
        allowed = [q["monitor"]]
    else:
        if "namespace" in q:
            monitors = [m for m in monitors if m.namespace == q["namespace"]]
        namespaces = sorted({m.namespace for m in monitors})
        readable = {ns for ns in namespaces if await ctx.auth.allowed(caller, LIST_VERB, ns, None)}
        if namespaces and not readable:
            return _error(
                403,
                f"{caller.name or 'the caller'} may not list agentmonitors.proctor.dev "
                "in any namespace served here",
            )
        allowed = [m.name for m in monitors if m.namespace in readable]
    found = await asyncio.to_thread(incidents.list_incidents, monitors=allowed, state=state, limit=limit)
    return web.json_response({"incidents": [incident_json(i) for i in found]})


async def _authorized_incident(ctx: Context, caller: Caller, incident_id: str, verb: str) -> Any:
    try:
        incident = await asyncio.to_thread(_incidents(ctx).get, incident_id)
    except IncidentNotFound:
        return _error(404, f"no incident {incident_id!r}")
    ns, _, name = incident.monitor.partition("/")
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name):
        return _error(404, f"no incident {incident_id!r}")  # one it may not read does not exist for it
    if verb != READ_VERB and not await ctx.auth.allowed(caller, verb, ns, name):
        return _forbidden(caller, verb, incident.monitor)
    return incident


async def show_incident(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/incidents/{id}``: the incident with its cause, runs and recommendations."""
    incident = await _authorized_incident(ctx, caller, request.match_info["id"], READ_VERB)
    if isinstance(incident, web.Response):
        return incident
    return web.json_response(incident_json(incident, detail=True))


async def ack_incident(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/incidents/{id}/ack`` (RBAC verb ``acknowledge`` on the agentmonitor)."""
    incident = await _authorized_incident(ctx, caller, request.match_info["id"], ACKNOWLEDGE_VERB)
    if isinstance(incident, web.Response):
        return incident
    view = await asyncio.to_thread(
        _incidents(ctx).acknowledge, incident.id, caller.name or "unknown", time.time()
    )
    return web.json_response(incident_json(view, detail=True))


async def decide_incident(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/incidents/{id}/recommendations/{rec}/approve|dismiss`` (RBAC verb ``approve``);
    the AgentMonitor's ``actions`` policy may deny the action whoever asks."""
    incident = await _authorized_incident(ctx, caller, request.match_info["id"], APPROVE_VERB)
    if isinstance(incident, web.Response):
        return incident
    monitor = ctx.registry().get(incident.monitor)
    rec, decision = request.match_info["rec"], request.match_info["decision"]
    problem = decide_recommendation(incident, monitor, rec, decision)
    if problem is not None:
        return _error(problem[0], problem[1])
    view = await asyncio.to_thread(
        _incidents(ctx).decide, incident.id, rec, decision, caller.name or "unknown", time.time()
    )
    return web.json_response(incident_json(view, detail=True))


async def claim_action(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/incidents/{id}/recommendations/{rec}/claim`` (RBAC verb ``perform``: the
    operator): claim an approved recommendation (or one the actions policy Allows) before acting on
    it. 200 with the incident (and, for ``capture-cases``, its runs as candidate cases, redacted);
    409 when it is not due (not approved, claimed by another within its lease, performed already)."""
    incident = await _authorized_incident(ctx, caller, request.match_info["id"], PERFORM_VERB)
    if isinstance(incident, web.Response):
        return incident
    monitor = ctx.registry().get(incident.monitor)
    if monitor is None:
        return _error(409, f"AgentMonitor {incident.monitor} is no longer served: nothing is performed")
    rec = request.match_info["rec"]
    if rec not in RECOMMENDATIONS:
        return _error(404, f"no recommendation {rec!r}: the catalogue is {', '.join(RECOMMENDATIONS)}")
    if monitor.resource.spec.actions.policy_for(rec) is ActionPolicy.DENY:  # the policy changed since
        return _error(403, f"the AgentMonitor's actions policy denies {rec} (spec.actions)")
    view = await asyncio.to_thread(
        _incidents(ctx).claim_action,
        incident.id,
        rec,
        caller.name or "unknown",
        time.time(),
        allowed=rec in allowed_actions(monitor),
        lease=ACTION_LEASE_SECONDS,
    )
    if view is None:
        return _error(409, f"{rec} on incident {incident.id} is not due: not approved, claimed or done")
    doc: dict[str, Any] = {"incident": incident_json(view, detail=True), "recommendation": rec}
    if rec == "capture-cases":
        doc["cases"] = await _incident_cases(ctx, monitor, view)
    return web.json_response(doc)


async def _incident_cases(ctx: Context, monitor: Monitor, incident: IncidentView) -> list[dict[str, Any]]:
    """The incident's breached runs as candidate cases (redacted by the monitor's safety scan)."""
    mine = set(incident.run_ids)
    runs = await asyncio.to_thread(
        _canary(ctx).breached_runs, monitor.name, revision=incident.revision, limit=MAX_CASES
    )
    redactor = Redactor(ctx.registry)
    out = []
    for run in runs:
        if run.id not in mine:
            continue
        trajectory = await asyncio.to_thread(ctx.store.trajectory, run.id)
        case = await _off_loop(ctx, canary.candidate_case, run, trajectory, redactor)
        if case is not None:
            out.append(case)
    return out


async def finish_action(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/incidents/{id}/recommendations/{rec}/performed`` (RBAC verb ``perform``),
    ``{"performed": true|false, "message": "..."}``: what the operator did (or why it could not)."""
    incident = await _authorized_incident(ctx, caller, request.match_info["id"], PERFORM_VERB)
    if isinstance(incident, web.Response):
        return incident
    try:
        body = await request.json()
    except ValueError:
        return _error(400, 'the body must be JSON: {"performed": true, "message": "..."}')
    if not isinstance(body, dict) or not isinstance(body.get("performed"), bool):
        return _error(400, "performed must be true or false")
    message = body.get("message")
    view = await asyncio.to_thread(
        _incidents(ctx).finish_action,
        incident.id,
        request.match_info["rec"],
        performed=body["performed"],
        message=message if isinstance(message, str) else "",
        by=caller.name or "unknown",
        now=time.time(),
    )
    return web.json_response(incident_json(view, detail=True))


# --- the live canary: verdicts for rollout controllers, candidate cases (armb-canary) ----------------

#: Revisions of one monitor whose verdict gauge is refreshed at each scrape, at most.
MAX_GAUGED_REVISIONS: Final = 8
#: Most candidate cases listed by one request.
MAX_CASES: Final = canary.MAX_CASES


def _canary(ctx: Context) -> LiveCanary:
    if ctx.canary is None:
        ctx.canary = LiveCanary(ctx.store.engine)
    return ctx.canary


async def _monitor_for(request: web.Request, ctx: Context, caller: Caller) -> Monitor | web.Response:
    """The monitor the path names, if the caller may read it (else the 404 or 403 to answer)."""
    ns, name = request.match_info["namespace"], request.match_info["name"]
    monitor = ctx.registry().get(f"{ns}/{name}")
    if monitor is None:
        return _error(404, f"no AgentMonitor {ns}/{name} is served here")
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name):
        return _forbidden(caller, READ_VERB, monitor.name)
    return monitor


def _gauge(ctx: Context, monitor: Monitor, revision: str, verdict: LiveVerdict) -> None:
    key = (monitor.name, revision)
    if key not in ctx.verdicts:
        mine = [k for k in ctx.verdicts if k[0] == monitor.name]
        if len(mine) >= MAX_GAUGED_REVISIONS:  # the oldest asked gives its place (and its series) up
            oldest = mine[0]
            agent = ctx.verdicts.pop(oldest)
            with contextlib.suppress(KeyError):
                ctx.metrics.canary_verdict.remove(oldest[0], agent, oldest[1])
    ctx.verdicts[key] = monitor.service_name
    ctx.metrics.canary_verdict.labels(monitor.name, monitor.service_name, revision).set(
        canary.VERDICT_VALUES[verdict]
    )


async def _verdict(ctx: Context, monitor: Monitor, revision: str) -> tuple[int, dict[str, Any]]:
    counts = await asyncio.to_thread(_canary(ctx).revision, monitor.name, revision)
    decision, evidence = canary.decide(monitor, revision, counts)
    _gauge(ctx, monitor, revision, decision.verdict)
    doc = canary.verdict_json(monitor, revision, decision, evidence, counts)
    return (200 if decision.measurable else 503), doc


def _revision_param(request: web.Request, body: Any = None) -> str | web.Response:
    revision = request.query.get("revision")
    if revision is None and isinstance(body, dict) and isinstance(body.get("metadata"), dict):
        revision = body["metadata"].get("revision")  # a Flagger webhook's payload
    if not isinstance(revision, str) or not revision.strip():
        return _error(400, "revision is required: ?revision=R (the agent's service.version, or @HASH)")
    if len(revision) > 255:
        return _error(400, "revision is longer than 255 characters")
    return revision.strip()


async def monitor_verdict(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/verdict?revision=R``: the revision's live verdict
    (200 PASS/FAIL/INCONCLUSIVE; 503 ERROR: nothing could be measured)."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    revision = _revision_param(request)
    if isinstance(revision, web.Response):
        return revision
    status, doc = await _verdict(ctx, monitor, revision)
    headers = {"Retry-After": str(DB_RETRY_AFTER)} if status == 503 else None
    return web.json_response(doc, status=status, headers=headers)


async def monitor_gate(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET|POST .../verdict/gate?revision=R``: 200 only on PASS (a Flagger webhook advances on
    2xx); 409 FAIL or INCONCLUSIVE; 503 ERROR. The body is the verdict's."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    body: Any = None
    if request.method == "POST" and request.can_read_body:
        with contextlib.suppress(ValueError):
            body = await request.json()
    revision = _revision_param(request, body)
    if isinstance(revision, web.Response):
        return revision
    status, doc = await _verdict(ctx, monitor, revision)
    if status == 200 and doc["verdict"] != LiveVerdict.PASS.value:
        status = 409
    return web.json_response(doc, status=status)


async def monitor_cases(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/cases?revision=R&limit=N``: breached runs as
    candidate cases, newest first, and the CaseSet manifest holding them."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    try:
        limit = max(1, min(int(request.query.get("limit", "100")), MAX_CASES))
    except ValueError:
        return _error(400, "limit must be a number")
    revision = request.query.get("revision") or None
    runs = await asyncio.to_thread(_canary(ctx).breached_runs, monitor.name, revision=revision, limit=limit)
    redactor = Redactor(ctx.registry)
    out = []
    for run in runs:
        trajectory = await asyncio.to_thread(ctx.store.trajectory, run.id)
        case = await _off_loop(ctx, canary.candidate_case, run, trajectory, redactor)
        if case is not None:
            out.append(canary.captured_json(run, case))
    capture = monitor.resource.spec.capture_to
    name = capture.name if capture is not None else f"{monitor.name.split('/', 1)[1]}-captured"[:253]
    manifest = canary.caseset_manifest(name, monitor.namespace, [c["case"] for c in out])
    return web.json_response({"monitor": monitor.name, "cases": out, "caseSet": manifest})


async def refresh_verdicts(ctx: Context) -> None:
    """Bring the verdict gauge up to date before a scrape: the revisions asked for, and those
    labelled in the metrics (evaluated recently). Errors keep the last values."""
    registry = ctx.registry()
    wanted = dict.fromkeys([*ctx.verdicts, *ctx.metrics.live_revisions()])
    for name, revision in list(wanted)[: MAX_GAUGED_REVISIONS * max(1, len(registry.monitors))]:
        monitor = registry.get(name)
        if monitor is None:
            continue
        with contextlib.suppress(StoreUnavailable):
            await _verdict(ctx, monitor, revision)


# --- arm C, coaching (armc-mcp): the rubric, behaviour patterns, improvement guidance -----------------


async def monitor_rubric(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/rubric``: the dimensions, rubrics and thresholds
    the monitor's runs are judged on (what the agent's ``get_rubric`` MCP tool answers)."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    if monitor.profile is None:
        return _error(409, f"AgentMonitor {monitor.name} has no EvalProfile: {monitor.problem}")
    return web.json_response(rubric_document(monitor.profile, monitor=monitor.name))


async def monitor_patterns(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/patterns?state=open|resolved|all``: behaviour
    patterns ranked by recurrence x recency, decomposed."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    state = request.query.get("state", "open")
    if state not in STATES:
        return _error(400, f"state must be one of {', '.join(STATES)}, not {state!r}")
    coaching = request.app[COACHING]
    doc = await asyncio.to_thread(coaching.report, monitor.name, time.time(), state=state)
    return web.json_response(doc)


async def monitor_guidance(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/guidance``: improvement guidance from the open
    patterns, each line with the run ids behind it."""
    monitor = await _monitor_for(request, ctx, caller)
    if isinstance(monitor, web.Response):
        return monitor
    coaching = request.app[COACHING]
    doc = await asyncio.to_thread(
        coaching.guidance, monitor.name, monitor.service_name, monitor.profile, time.time()
    )
    return web.json_response(doc)


async def resolve_pattern(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/patterns/{id}/resolve`` (``{"note": "..."}``, optional): a fix shipped; a
    failure of the same kind afterwards reopens the pattern. RBAC verb ``resolve`` on the monitor."""
    raw = request.match_info["id"]
    if not raw.isdigit() or len(raw) > 18:
        return _error(404, f"no pattern {raw!r}")
    note: str | None = None
    if request.can_read_body:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, 'the body must be JSON: {"note": "..."} (or empty)')
        if not isinstance(body, dict) or not isinstance(body.get("note", ""), str):
            return _error(400, "the body must be a JSON object whose note is a string")
        note = body.get("note") or None
    coaching = request.app[COACHING]
    try:
        pattern = await asyncio.to_thread(coaching.patterns.get, int(raw))
    except PatternNotFound:
        return _error(404, f"no pattern {raw!r}")
    ns, _, name = pattern.monitor.partition("/")
    if not await ctx.auth.allowed(caller, RESOLVE_VERB, ns, name):
        return _forbidden(caller, RESOLVE_VERB, pattern.monitor)
    view = await asyncio.to_thread(
        coaching.patterns.resolve, pattern.id, by=caller.name or "unknown", note=note, now=time.time()
    )
    return web.json_response(
        {
            "id": view.id,
            "monitor": view.monitor,
            "state": view.facts.state.value,
            "resolvedAt": view.resolved_at,
            "resolvedBy": view.resolved_by,
            "resolution": view.resolution,
        }
    )


async def openapi(_request: web.Request) -> web.Response:
    return web.json_response(document())


async def healthz(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


async def readyz(request: web.Request) -> web.Response:
    """Ready when the database answers ``SELECT 1`` within :data:`READY_TIMEOUT` seconds. One
    check runs at a time: while a hung database holds one, every probe is answered 503 at once
    (a probe never waits longer than the timeout, and never ties up another thread)."""
    ctx = request.app[CONTEXT]
    if ctx.ping is None or ctx.ping.done():
        ctx.ping = asyncio.ensure_future(asyncio.to_thread(ctx.store.ping))
        ctx.ping_started = time.monotonic()
    try:
        await asyncio.wait_for(asyncio.shield(ctx.ping), timeout=READY_TIMEOUT)
    except TimeoutError:
        waited = time.monotonic() - ctx.ping_started
        return _error(
            503, f"the database has not answered for {waited:.0f} s (it hangs)", retry_after=DB_RETRY_AFTER
        )
    except StoreUnavailable as e:
        return _error(503, str(e), retry_after=DB_RETRY_AFTER)
    return web.Response(text="ok")


async def metrics(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    ctx.metrics.pending.set(ctx.writer.pending)
    ctx.metrics.gc_pauses.drain()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(refresh_verdicts(ctx), timeout=READY_TIMEOUT)
    body = generate_latest(ctx.metrics.registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def application(
    ctx: Context, *, max_body: int = DEFAULT_MAX_BODY, coaching: Coaching | None = None
) -> web.Application:
    """The collector's aiohttp application (``coaching``: arm C's patterns, default settings when None)."""
    ctx.max_body = max_body
    app = web.Application(client_max_size=max_body)
    app[CONTEXT] = ctx
    app[COACHING] = coaching if coaching is not None else Coaching(Patterns(ctx.store.engine))
    app.router.add_post("/v1/traces", traces)
    app.router.add_post("/v1/events", events_in)
    app.router.add_get("/v1/events/schema", events_schema)
    app.router.add_get("/api/v1/runs", _managed(list_runs))
    app.router.add_get("/api/v1/runs/{id}", _managed(show_run))
    app.router.add_post("/api/v1/runs/{id}/evaluate", _managed(evaluate_run))
    app.router.add_get(MONITOR_ROUTE, _managed(show_monitor))
    app.router.add_post(MONITOR_ROUTE + "/recompute", _managed(recompute_monitor))
    # incidents (armb-notify)
    app.router.add_get("/api/v1/incidents", _managed(list_incidents))
    app.router.add_get("/api/v1/incidents/{id}", _managed(show_incident))
    app.router.add_post("/api/v1/incidents/{id}/ack", _managed(ack_incident))
    app.router.add_post(
        "/api/v1/incidents/{id}/recommendations/{rec}/{decision:approve|dismiss}", _managed(decide_incident)
    )
    # the operator performs what was approved (armb-act)
    app.router.add_post("/api/v1/incidents/{id}/recommendations/{rec}/claim", _managed(claim_action))
    app.router.add_post("/api/v1/incidents/{id}/recommendations/{rec}/performed", _managed(finish_action))
    # the live canary (armb-canary)
    app.router.add_get(MONITOR_ROUTE + "/verdict", _managed(monitor_verdict))
    app.router.add_get(MONITOR_ROUTE + "/verdict/gate", _managed(monitor_gate))
    app.router.add_post(MONITOR_ROUTE + "/verdict/gate", _managed(monitor_gate))
    app.router.add_get(MONITOR_ROUTE + "/cases", _managed(monitor_cases))
    # arm C (feedback, judge quality, calibration, outcomes): collector/quality.py
    armc.install(app, ctx, _managed)
    # arm C, coaching (armc-mcp)
    app.router.add_get(MONITOR_ROUTE + "/rubric", _managed(monitor_rubric))
    app.router.add_get(MONITOR_ROUTE + "/patterns", _managed(monitor_patterns))
    app.router.add_get(MONITOR_ROUTE + "/guidance", _managed(monitor_guidance))
    app.router.add_post("/api/v1/patterns/{id}/resolve", _managed(resolve_pattern))
    app.router.add_get("/openapi.json", openapi)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    return app
