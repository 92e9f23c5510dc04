"""What every reconciler shares: the runtime (client, settings, clock, locks, wake-ups) and the
outcome of one step (the Events to post, whether to look again).

The runtime is built once, at the operator's startup, and lives on Kopf's ``memo``
(:mod:`proctor.controllers.operator`); cleanup closes it. The clock is injected: tests pass a
fixed one, and every ``now`` a reconciler decides with comes from :meth:`Runtime.now`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from proctor.api import API_VERSION, utc_now
from proctor.k8s import signing
from proctor.k8s.kube import Kube
from proctor.reconcile.config import OperatorConfig

Clock = Callable[[], dt.datetime]
_T = TypeVar("_T")

#: Longest Event message (the API server's limit is 1 KiB).
EVENT_MESSAGE_LIMIT = 1000


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

    def body(self) -> dict[str, Any]:
        """The minimal object Kopf's event poster reads the reference from."""
        meta = {"name": self.name, "namespace": self.namespace} | ({"uid": self.uid} if self.uid else {})
        return {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta}


@dataclass(frozen=True, slots=True)
class Event:
    """A decision, said as a Kubernetes Event on the object it concerns."""

    about: ObjectRef
    type: Literal["Normal", "Warning"]
    reason: str
    message: str


@dataclass
class Outcome:
    """What one reconcile step leaves for its handler: Events to post, and whether to look again
    (an unfinished run is rechecked after ``reconcile_interval``)."""

    events: list[Event] = field(default_factory=list)
    recheck: bool = False

    def say(self, about: ObjectRef, type: Literal["Normal", "Warning"], reason: str, message: str) -> None:
        self.events.append(Event(about, type, reason, message[:EVENT_MESSAGE_LIMIT]))


class Runtime:
    """The operator's shared state, built once at startup: the API client, the settings, the clock,
    the master key the runs' keys derive from (:mod:`proctor.k8s.signing`; never logged), per-object
    locks and the scheduled wake-ups."""

    def __init__(
        self, kube: Kube, config: OperatorConfig, *, clock: Clock = utc_now, master_key: bytes = b""
    ) -> None:
        self.kube = kube
        self.config = config
        self.clock = clock
        self._master_key = master_key
        #: the operator's own username (a SelfSubjectReview at startup): the one identity whose
        #: requests may write the gate's annotations; None when unknown (then nobody's may)
        self.identity: str | None = None
        #: whether this operator serves the admission webhook, and what its probes found lately
        #: (per namespace: when, and the state)
        self.webhook_serving = False
        self.webhook_probes: dict[str, tuple[float, Any]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.rbac_done: set[str] = set()
        self.wakeups: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def now(self) -> dt.datetime:
        """The time decisions are made at: UTC, whole seconds (as status writes it)."""
        return self.clock().replace(microsecond=0)

    def run_key(self, run_uid: str) -> bytes:
        """The key of one run: what its judge signs with, and what its results are verified with."""
        if not self._master_key:
            raise RuntimeError("the runtime was built without a master key")
        return signing.run_key(self._master_key, run_uid)

    def __repr__(self) -> str:  # never the key
        return f"Runtime(config={self.config!r})"

    def lock(self, key: str) -> asyncio.Lock:
        return self.locks.setdefault(key, asyncio.Lock())

    async def call(self, fn: Callable[..., _T], *args: Any, **kw: Any) -> _T:
        """A blocking API call, in a thread (the kubernetes client is synchronous)."""
        return await asyncio.to_thread(fn, *args, **kw)

    def later(self, key: str, delay: float, wake: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``wake`` after ``delay`` seconds (a newer schedule for ``key`` replaces an older one).

        A wake-up rather than a Kopf timer: a timer on a kind makes Kopf keep the body of every object
        of that kind in memory, finished runs included (thousands).
        """
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
        """Cancel what is scheduled and close the client (the operator is stopping)."""
        for handle in self.wakeups.values():
            handle.cancel()
        self.wakeups.clear()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.call(self.kube.close)
