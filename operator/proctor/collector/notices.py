"""Sending notices: the outbox's sender and its sinks (Events, Alertmanager, a signed webhook).

:class:`Sender` claims due deliveries from the database (:meth:`proctor.store.Incidents.claim_deliveries`),
sends each to its sink and marks it delivered, so a collector killed mid-incident sends after its
restart only what was not delivered; it runs beside the worker and never blocks it or ingestion.
A sink that is down, slow or answers 5xx is retried inside an attempt (tenacity, with backoff) and
then again later (:data:`RETRY_AFTER`), counted in ``proctor_collector_notices_total``; a sink
that refuses the notice itself (4xx) or cannot be configured fails the delivery for good, with the
cause. Nothing is sent unsigned to a webhook that should be signed.

- **Events** on the AgentMonitor (``Warning``, or ``Normal`` for a recovery), named from the notice
  so posting it again after a crash finds it there. Without a cluster they are logged instead.
- **Alertmanager** (``POST /api/v2/alerts``): the monitor's alerts as they stand (firing with an
  ``endsAt`` a few resend periods ahead, or resolved with the time they ended), re-sent every
  :data:`RESEND_SECONDS` while firing, as Prometheus does.
- **Webhook**: the notice as JSON, with ``X-Proctor-Notice`` (its id, for de-duplication),
  ``X-Proctor-Timestamp`` and ``X-Proctor-Signature: sha256=HEX``, the HMAC-SHA256 with the
  Secret's value of ``TIMESTAMP + "." + BODY``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import httpx
import structlog
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from proctor.api import SinkType, monitor_path
from proctor.collector.incidents import EVENTS_SINK, NEEDS_HUMAN, RECOVERY, series_of
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import Monitor, Registry
from proctor.store import AlertView, DeliveryClaim, DeliveryOutcome, Incidents, StoreUnavailable

log = structlog.get_logger("proctor.collector.notices")

#: Seconds between re-sends of a firing alert to Alertmanager.
RESEND_SECONDS: Final = 60.0
#: A firing alert's endsAt is this many resend periods ahead (it expires if the collector stops).
ENDS_AHEAD: Final = 4
#: Seconds before a failed delivery is tried again, by attempt; past the last it fails for good.
RETRY_AFTER: Final = (5.0, 15.0, 60.0, 300.0, 900.0, 1800.0)
#: Tries inside one attempt (tenacity), and the per-request timeout.
TRIES: Final = 3
REQUEST_TIMEOUT: Final = 5.0
#: Deliveries sent at once.
CONCURRENCY: Final = 16
#: Headers of the webhook sink.
SIGNATURE_HEADER: Final = "X-Proctor-Signature"
TIMESTAMP_HEADER: Final = "X-Proctor-Timestamp"
NOTICE_HEADER: Final = "X-Proctor-Notice"
#: Who posts the notices' Events.
EVENT_COMPONENT: Final = "proctor-collector"
#: Ended alerts re-sent (resolved) to Alertmanager for this long after they ended.
RESOLVED_WINDOW: Final = 3600.0


#: The wait between tries inside an attempt: 0.2 s doubling to 2 s, with jitter (tenacity 8 and 9
#: alike: wait_exponential_jitter's ``initial`` warns on tenacity 9, and its ``multiplier`` is new).
_BACKOFF: Final = wait_exponential(multiplier=0.2, max=2.0) + wait_random(0, 0.2)


class SinkFailed(Exception):
    """A delivery failed; ``permanent`` when trying again cannot help (a 4xx, no signing key)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


def _transient(e: BaseException) -> bool:
    return isinstance(e, SinkFailed) and not e.permanent


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The webhook signature: ``sha256=`` and the hex HMAC-SHA256 of ``timestamp.body``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """Whether ``signature`` is :func:`sign`'s for these (constant time): what a receiver checks."""
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


def alert_payload(a: AlertView, now: float, base_url: str) -> dict[str, Any]:
    """One alert in Alertmanager's v2 shape."""
    ns, name = a.labels.get("namespace", ""), a.labels.get("monitor", "")
    incident = a.labels.get("incident")
    link = f"{base_url}/api/v1/incidents/{incident}" if incident else f"{base_url}{monitor_path(ns, name)}"
    ends = a.ends_at if a.ends_at is not None else now + ENDS_AHEAD * RESEND_SECONDS
    return {
        "labels": dict(a.labels),
        "annotations": dict(a.annotations),
        "startsAt": iso(a.starts_at),
        "endsAt": iso(ends),
        "generatorURL": link,
    }


def kube_events(api: Any) -> Callable[[dict[str, Any]], None]:
    """Posting an Event with the collector's Kubernetes client; one that exists already (the
    notice was delivered before a crash) is delivered."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(api)

    def post(obj: dict[str, Any]) -> None:
        try:
            core.create_namespaced_event(obj["metadata"]["namespace"], obj)  # type: ignore[arg-type]
        except ApiException as e:
            if e.status != 409:
                raise SinkFailed(f"the API server refused the Event: {e.status} {e.reason}") from None

    return post


class Sender:
    """Delivers the outbox until stopped; :meth:`wake` makes it look at once."""

    def __init__(
        self,
        incidents: Incidents,
        registry: Callable[[], Registry],
        metrics: Metrics,
        *,
        name: str,
        base_url: str,
        events: Callable[[dict[str, Any]], Any] | None = None,
        poll: float = 1.0,
        resend: float = RESEND_SECONDS,
        transport: httpx.AsyncBaseTransport | None = None,
        retry_after: Sequence[float] = RETRY_AFTER,
        tries: int = TRIES,
    ) -> None:
        self.incidents = incidents
        self.registry = registry
        self.metrics = metrics
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.events = events
        self.poll = poll
        self.resend = resend
        self.retry_after = tuple(retry_after)
        self.tries = tries
        self._http = httpx.AsyncClient(timeout=REQUEST_TIMEOUT, transport=transport)
        self._wake = asyncio.Event()
        self._last_resend = 0.0
        self._slots = asyncio.Semaphore(CONCURRENCY)

    def wake(self) -> None:
        self._wake.set()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self._wake.clear()  # before the pass: a notice written during it wakes the next at once
            try:
                sent = await self.once()
            except StoreUnavailable as e:
                self.metrics.database_errors.inc()
                log.warning("database unavailable; notices wait", error=str(e))
                sent = 0
            if sent:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.poll)

    async def once(self) -> int:
        """One pass: deliver what is due, re-send firing alerts when their time came. The notices
        of one monitor to one Alertmanager go in one POST (the alerts of all their series), and
        the pass records every delivery's outcome in one transaction."""
        now = time.time()
        claims = await asyncio.to_thread(self.incidents.claim_deliveries, self.name, now)
        if claims:
            alertmanager: dict[tuple[str, str], list[DeliveryClaim]] = defaultdict(list)
            alone: list[DeliveryClaim] = []
            for c in claims:
                sink = self._alertmanager_sink(c)
                if sink is None:
                    alone.append(c)
                else:
                    alertmanager[(c.monitor, sink)].append(c)
            tried = await asyncio.gather(
                *(self._deliver([c], functools.partial(self._send, c)) for c in alone),
                *(
                    self._deliver(group, functools.partial(self._alertmanager_group, group, url))
                    for (_, url), group in alertmanager.items()
                ),
            )
            outcomes = [o for group in tried for o in group]
            with contextlib.suppress(StoreUnavailable):  # the leases expire; they are sent again
                await asyncio.to_thread(self.incidents.finish_deliveries, outcomes, self.name, time.time())
        if time.monotonic() - self._last_resend >= self.resend:
            self._last_resend = time.monotonic()
            await self.resend_alerts()
        return len(claims)

    # --- one delivery ------------------------------------------------------------------------------

    async def _deliver(
        self, claims: Sequence[DeliveryClaim], send: Callable[[], Awaitable[None]]
    ) -> list[DeliveryOutcome]:
        """Try ``send`` (tenacity, for a transient failure) for ``claims``, which share its fate."""
        async with self._slots:
            error: str | None = None
            permanent = False
            try:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(self.tries),
                    wait=_BACKOFF,
                    retry=retry_if_exception(_transient),
                    reraise=True,
                ):
                    with attempt:
                        await send()
            except SinkFailed as e:
                error, permanent = str(e), e.permanent
            except Exception as e:  # a bug in a sink must not stop the others
                log.exception("a notice sink raised", sink=claims[0].sink)
                error = f"{type(e).__name__}: {e}"
        now = time.time()
        out = []
        for c in claims:
            retry_at = None
            if error is not None and not permanent and c.attempts < len(self.retry_after):
                retry_at = now + self.retry_after[c.attempts]
            outcome = "delivered" if error is None else ("retried" if retry_at is not None else "failed")
            self.metrics.notices.labels(c.monitor, c.sink, outcome).inc()
            if error is not None:
                log.warning(
                    "notice not delivered", monitor=c.monitor, sink=c.sink, error=error, retry=retry_at
                )
            out.append(DeliveryOutcome(c, error, retry_at))
        return out

    def _alertmanager_sink(self, c: DeliveryClaim) -> str | None:
        """The URL of ``c``'s sink when it is an Alertmanager of a monitor still served."""
        monitor = self.registry().get(c.monitor)
        if monitor is None or c.sink == EVENTS_SINK:
            return None
        sink = next((s for s in monitor.resource.spec.notices.sinks if s.name == c.sink), None)
        return sink.url if sink is not None and sink.type is SinkType.ALERTMANAGER else None

    async def _alertmanager_group(self, claims: Sequence[DeliveryClaim], url: str) -> None:
        monitor = self.registry().get(claims[0].monitor)
        if monitor is None:
            raise SinkFailed(f"AgentMonitor {claims[0].monitor} is no longer served", permanent=True)
        series = sorted({series_of(monitor.name, c.document.get("revision")) for c in claims})
        await self._alertmanager(monitor, url, series)

    async def _send(self, c: DeliveryClaim) -> None:
        monitor = self.registry().get(c.monitor)
        if monitor is None:
            raise SinkFailed(f"AgentMonitor {c.monitor} is no longer served", permanent=True)
        doc = {"id": c.notice_id, **c.document}
        if c.sink == EVENTS_SINK:
            await self._event(monitor, c.notice_id, doc)
            return
        sink = next((s for s in monitor.resource.spec.notices.sinks if s.name == c.sink), None)
        if sink is None:
            raise SinkFailed(f"sink {c.sink!r} is no longer in the AgentMonitor's spec", permanent=True)
        if sink.type is SinkType.ALERTMANAGER:
            await self._alertmanager(monitor, sink.url, [series_of(monitor.name, c.document.get("revision"))])
        else:
            await self._webhook(monitor, sink.name, sink.url, sink.signing_secret_ref is not None, doc)

    async def _post(self, url: str, **kwargs: Any) -> httpx.Response:
        try:
            reply = await self._http.post(url, **kwargs)
        except httpx.HTTPError as e:
            raise SinkFailed(f"cannot reach {url}: {type(e).__name__}") from None
        if reply.status_code >= 500 or reply.status_code in (408, 429):
            raise SinkFailed(f"{url} answered {reply.status_code}")
        if reply.status_code >= 400:
            raise SinkFailed(
                f"{url} refused the notice: {reply.status_code} {reply.text[:200]}", permanent=True
            )
        return reply

    async def _alertmanager(self, monitor: Monitor, url: str, series: Sequence[str]) -> None:
        """POST the alerts of the notices' series (and the monitor's needs_human) as they stand."""
        now = time.time()
        alerts = await asyncio.to_thread(self.incidents.alerts, monitor.name, series=series)
        current = [a for a in alerts if a.ends_at is None or a.ends_at > now - RESOLVED_WINDOW]
        if not current:
            return
        body = [alert_payload(a, now, self.base_url) for a in current]
        await self._post(f"{url.rstrip('/')}/api/v2/alerts", json=body)
        await asyncio.to_thread(self.incidents.alerts_sent, [a.key for a in current], now)

    async def _webhook(
        self, monitor: Monitor, sink: str, url: str, signed: bool, doc: dict[str, Any]
    ) -> None:
        body = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
        headers = {"Content-Type": "application/json", NOTICE_HEADER: str(doc["id"])}
        if signed:
            secret = monitor.sink_secrets.get(sink)
            if not secret:
                raise SinkFailed(
                    f"webhook sink {sink!r}: its signingSecretRef could not be read; "
                    "nothing is sent unsigned",
                    permanent=True,
                )
            stamp = str(int(time.time()))
            headers[TIMESTAMP_HEADER] = stamp
            headers[SIGNATURE_HEADER] = sign(secret, stamp, body)
        await self._post(url, content=body, headers=headers)

    async def _event(self, monitor: Monitor, notice_id: int, doc: dict[str, Any]) -> None:
        kind = str(doc.get("kind"))
        reason = {NEEDS_HUMAN: "NeedsHuman", RECOVERY: "Recovered"}.get(kind) or (
            "IncidentBreach" if doc.get("severity") == "breach" else "Degrading"
        )
        message = str(doc.get("summary") or reason)[:1024]
        if self.events is None:
            log.info(
                "notice (no cluster: logged, not an Event)",
                monitor=monitor.name,
                reason=reason,
                message=message,
            )
            return
        from proctor.k8s.objects import event, event_name

        meta = monitor.resource.metadata
        ns, _, name = monitor.name.partition("/")
        involved = {
            "apiVersion": monitor.resource.api_version,
            "kind": monitor.resource.kind,
            "namespace": ns,
            "name": name,
            "uid": meta.uid,
        }
        obj = event(
            involved,
            type="Normal" if kind == RECOVERY else "Warning",
            reason=reason,
            message=message,
            now=datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            name=event_name(name, meta.uid, reason, f"notice-{notice_id}"),
        )
        obj["source"] = {"component": EVENT_COMPONENT}
        obj["reportingComponent"] = EVENT_COMPONENT
        try:
            await asyncio.to_thread(self.events, obj)
        except SinkFailed:
            raise
        except Exception as e:
            raise SinkFailed(f"cannot post the Event: {type(e).__name__}: {str(e)[:200]}") from None

    # --- re-sending firing alerts -----------------------------------------------------------------------

    async def resend_alerts(self) -> None:
        """POST every monitor's firing alerts (and newly ended ones) to its Alertmanager sinks."""
        now = time.time()
        due = await asyncio.to_thread(self.incidents.alerts_due, now, self.resend * 0.9)
        by_monitor: dict[str, list[AlertView]] = defaultdict(list)
        for a in due:
            by_monitor[a.monitor].append(a)
        for name, alerts in by_monitor.items():
            monitor = self.registry().get(name)
            if monitor is None or monitor.resource.spec.observe_only:
                continue
            sinks = [s for s in monitor.resource.spec.notices.sinks if s.type is SinkType.ALERTMANAGER]
            body = [alert_payload(a, now, self.base_url) for a in alerts]
            ok = not sinks
            for s in sinks:
                try:
                    await self._post(f"{s.url.rstrip('/')}/api/v2/alerts", json=body)
                    ok = True
                    self.metrics.notices.labels(name, s.name, "resent").inc()
                except SinkFailed as e:
                    self.metrics.notices.labels(name, s.name, "retried").inc()
                    log.warning("cannot re-send alerts", monitor=name, sink=s.name, error=str(e))
            if ok:
                await asyncio.to_thread(self.incidents.alerts_sent, [a.key for a in alerts], now)
