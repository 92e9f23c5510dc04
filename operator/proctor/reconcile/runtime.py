"""What every reconciler shares: the runtime (client, settings, clock, locks, wake-ups) and the
outcome of one step (the Events to post, whether to look again).

The runtime is built once, at the operator's startup, and lives on Kopf's ``memo``
(:mod:`proctor.controllers.operator`); cleanup closes it. The clock is injected: tests pass a
fixed one, and every ``now`` a reconciler decides with comes from :meth:`Runtime.now`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

import structlog

from proctor.api import API_VERSION, format_time, utc_now
from proctor.gate.server import AdmissionServer, Policies
from proctor.k8s.kube import Kube, KubeError
from proctor.k8s.objects import event, event_name
from proctor.reconcile.config import OperatorConfig

log = structlog.get_logger("proctor.events")

Clock = Callable[[], dt.datetime]
_T = TypeVar("_T")

#: Longest Event message (the API server's limit is 1 KiB).
EVENT_MESSAGE_LIMIT = 1000
#: How many posted decision Events the runtime remembers (it asks the API server about older ones).
POSTED_MEMORY = 4096


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """Which object an Event is about."""

    kind: str
    namespace: str
    name: str
    uid: str | None = None
    api_version: str = API_VERSION

    @classmethod
    def of(
        cls, obj: Mapping[str, Any], *, kind: str | None = None, api_version: str | None = None
    ) -> ObjectRef:
        """The reference of an object as the API returned it (listed items carry no kind: pass it)."""
        meta = obj.get("metadata") or {}
        return cls(
            kind=kind or str(obj.get("kind")),
            namespace=str(meta.get("namespace")),
            name=str(meta.get("name")),
            uid=meta.get("uid"),
            api_version=api_version or str(obj.get("apiVersion") or API_VERSION),
        )

    def involved(self) -> dict[str, Any]:
        """The object as an Event's ``involvedObject`` names it."""
        ref = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }
        return ref | ({"uid": self.uid} if self.uid else {})


@dataclass(frozen=True, slots=True)
class Event:
    """A decision, said as a Kubernetes Event on the object it concerns.

    ``key`` names the decision (``shard 0/2 attempt 1``, ``verdict``): its Event's name is derived
    from it (:func:`proctor.k8s.objects.event_name`), so a decision said again (a step repeated after
    a kill, a restarted operator re-deriving what it decided) is one Event, not two.
    """

    about: ObjectRef
    type: Literal["Normal", "Warning"]
    reason: str
    message: str
    key: str | None = None

    @property
    def name(self) -> str | None:
        if self.key is None:
            return None
        return event_name(self.about.name, self.about.uid, self.reason, self.key)


@dataclass
class Outcome:
    """What one reconcile step leaves for its handler: Events to post, and whether to look again
    (an unfinished run is rechecked after ``reconcile_interval``, or after ``recheck_in`` seconds
    when something is due sooner)."""

    events: list[Event] = field(default_factory=list)
    recheck: bool = False
    recheck_in: float | None = None

    def say(
        self,
        about: ObjectRef,
        type: Literal["Normal", "Warning"],
        reason: str,
        message: str,
        *,
        key: str | None = None,
    ) -> None:
        self.events.append(Event(about, type, reason, message[:EVENT_MESSAGE_LIMIT], key))

    def delay(self, interval: float) -> float:
        """Seconds until the next look: the interval, or sooner when something is due."""
        if self.recheck_in is None:
            return interval
        return max(0.5, min(interval, self.recheck_in))


class CaseEndpoint(Protocol):
    """The case server as the runtime holds it (:class:`proctor.reconcile.caseserver.CaseServer`,
    which is built on a Runtime): where judges fetch their cases, the CA they trust it by."""

    url: str
    ca_pem: str

    async def stop(self) -> None: ...


class Runtime:
    """The operator's shared state, built once at startup: the API client, the settings, the clock,
    per-object locks and the scheduled wake-ups."""

    def __init__(self, kube: Kube, config: OperatorConfig, *, clock: Clock = utc_now) -> None:
        self.kube = kube
        self.config = config
        self.clock = clock
        #: the operator's own username (a SelfSubjectReview at startup): the one identity whose
        #: requests may write the gate's annotations; None when unknown (then nobody's may)
        self.identity: str | None = None
        #: the admission webhook this operator serves (None: it serves none), what it knows of the
        #: policies (the GatePolicy watch keeps it), and what its probes found lately (per
        #: namespace: when, and the state)
        self.admission: AdmissionServer | None = None
        self.policies = Policies()
        self.webhook_probes: dict[str, tuple[float, Any]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.rbac_done: set[str] = set()
        self.wakeups: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        #: Names of decision Events known to exist (posted here, or found there): oldest first.
        self.posted: dict[str, None] = {}
        #: Arm B's collector client (:func:`proctor.reconcile.monitors.reader` makes it on first use).
        self.collector: Any = None
        #: The case server judges fetch their cases from (:class:`proctor.reconcile.caseserver.CaseServer`,
        #: started with the operator): its URL and CA go into every judge Job.
        self.case_server: CaseEndpoint | None = None

    @property
    def webhook_serving(self) -> bool:
        return self.admission is not None

    def now(self) -> dt.datetime:
        """The time decisions are made at: UTC, whole seconds (as status writes it)."""
        return self.clock().replace(microsecond=0)

    def __repr__(self) -> str:
        return f"Runtime(config={self.config!r})"

    def lock(self, key: str) -> asyncio.Lock:
        return self.locks.setdefault(key, asyncio.Lock())

    async def call(self, fn: Callable[..., _T], *args: Any, **kw: Any) -> _T:
        """A blocking API call, in a thread (the kubernetes client is synchronous)."""
        return await asyncio.to_thread(fn, *args, **kw)

    async def post(self, events: Sequence[Event]) -> None:
        """Post each Event (a decision Event once: its name is the decision's); never raises, a lost
        Event is logged (the decision itself is in status)."""
        now = format_time(self.now())
        for e in events:
            name = e.name
            if name is not None and name in self.posted:
                continue
            body = event(
                e.about.involved(), type=e.type, reason=e.reason, message=e.message, now=now, name=name
            )
            try:
                await self.call(self.kube.create_event, body)
            except KubeError as err:
                log.warning(
                    "event not posted",
                    reason=e.reason,
                    about=f"{e.about.namespace}/{e.about.name}",
                    error=str(err)[:300],
                )
                continue
            if name is not None:
                self.posted[name] = None
                while len(self.posted) > POSTED_MEMORY:
                    self.posted.pop(next(iter(self.posted)))

    def cancel(self, key: str) -> None:
        """Forget the wake-up scheduled for ``key`` (its object was deleted)."""
        if (old := self.wakeups.pop(key, None)) is not None:
            old.cancel()

    def later(
        self, key: str, delay: float, wake: Callable[[], Coroutine[Any, Any, None]], *, replace: bool = True
    ) -> None:
        """Run ``wake`` after ``delay`` seconds (a newer schedule for ``key`` replaces an older one;
        with ``replace=False`` an existing one stands).

        A wake-up rather than a Kopf timer: a timer on a kind makes Kopf keep the body of every object
        of that kind in memory, finished runs included (thousands).
        """
        if not replace and key in self.wakeups:
            return
        if (old := self.wakeups.pop(key, None)) is not None:
            old.cancel()
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self.wakeups.pop(key, None)
            task = loop.create_task(wake())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        self.wakeups[key] = loop.call_later(delay, fire)

    async def close(self) -> None:
        """Stop the webhook, cancel what is scheduled and close the client (the operator is stopping)."""
        if self.admission is not None:
            await self.call(self.admission.stop)
            self.admission = None
        for handle in self.wakeups.values():
            handle.cancel()
        self.wakeups.clear()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.collector is not None:
            await self.collector.aclose()
        if self.case_server is not None:
            await self.case_server.stop()
            self.case_server = None
        await self.call(self.kube.close)
