"""The ingestion writer: requests are stored in group commits, acknowledged only once committed.

Each request's items are first redacted (:mod:`proctor.collector.redaction`) on the writer's
redaction threads, so the scan of the next requests runs while a commit waits for its fsync;
only the redacted items go on the queue, and nothing else is ever inserted. Then they go on a
bounded queue; one writer thread per database connection takes
everything queued (up to :data:`MAX_BATCH_ITEMS`), writes it in ONE transaction, and then answers
every request in it. Under load, many requests share a commit (and SQLite's fsync); a request is
acknowledged only after the commit that holds it returned, so nothing is acknowledged that is
not stored. When more than ``max_pending`` items wait, new requests are refused at once with
:class:`Backpressure` (429 with Retry-After): the queue never grows without bound; a single
request of more than ``max_pending`` items is refused with :class:`TooManyItems` (413). When the
database is down the requests of that commit fail with :class:`StoreUnavailable` (503).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import structlog

from proctor.collector.redaction import Redactor
from proctor.protocol import LifecyclePolicy
from proctor.store import IngestResult, Item, Store, StoreUnavailable

log = structlog.get_logger("proctor.collector.ingest")

#: Items written in one transaction at most.
MAX_BATCH_ITEMS: Final = 8192
#: Items waiting for a commit, at most, before requests are refused (429).
DEFAULT_MAX_PENDING: Final = 200_000
#: Threads that redact requests ahead of the writer: enough to overlap the scan with a commit's
#: fsync (the scan holds the GIL, so more would not scan faster).
REDACTION_THREADS: Final = 2
#: Seconds a request waits for its commit before it is answered 503 (the database hangs). Under the
#: OpenTelemetry exporters' default timeout of 10 s, so they see the answer and retry; the items
#: may still be committed later, and then their resend is recognised (acknowledged means kept).
DEFAULT_ANSWER_SECONDS: Final = 5.0


class TooManyItems(Exception):
    """One request brings more items than may ever wait for a commit: a retry cannot help (413)."""

    def __init__(self, items: int, max_pending: int) -> None:
        super().__init__(
            f"the request holds {items} spans or events, over the {max_pending} the collector takes "
            "at once (--max-pending): send smaller batches"
        )
        self.items = items
        self.max_pending = max_pending


class Backpressure(Exception):
    """Too much is waiting to be written: retry after ``retry_after`` seconds."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"the collector is behind on writes: retry in {retry_after:g} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Commit:
    """One group commit as the writer saw it (the collector's metrics): ``seconds`` of wall time
    in the transaction (rows, SQL, the COMMIT and its fsync), the ``items`` in it, and the longest
    any request in it ``waited`` on the queue for the commit to begin."""

    seconds: float
    items: int
    waited: float


@dataclass
class _Job:
    items: Sequence[Item]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[IngestResult]
    enqueued: float = field(default_factory=time.monotonic)


class Writer:
    """Group-commit writer threads in front of :meth:`Store.ingest`."""

    def __init__(
        self,
        store: Store,
        policies: Callable[[], Mapping[str, LifecyclePolicy]],
        *,
        threads: int = 1,
        max_pending: int = DEFAULT_MAX_PENDING,
        on_commit: Callable[[IngestResult, Sequence[Item]], None] | None = None,
        answer_seconds: float = DEFAULT_ANSWER_SECONDS,
        redact: Callable[[Sequence[Item]], Sequence[Item]] | None = None,
        observe: Callable[[Commit], None] | None = None,
    ) -> None:
        self.store = store
        #: redaction with the safety scan's findings, before a request is queued for its commit
        #: (see :mod:`proctor.collector.redaction`): nothing in clear is queued or written
        self.redact = redact if redact is not None else Redactor()
        self.policies = policies
        self.max_pending = max_pending
        self.answer_seconds = answer_seconds
        self.on_commit = on_commit
        self.observe = observe
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._redacting = concurrent.futures.ThreadPoolExecutor(
            REDACTION_THREADS, thread_name_prefix="proctor-redact"
        )
        self._pending = 0
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._run, name=f"proctor-writer-{i}", daemon=True)
            for i in range(threads)
        ]
        for t in self._threads:
            t.start()

    @property
    def pending(self) -> int:
        return self._pending

    def admissible(self, items: int) -> None:
        """Raise :class:`TooManyItems` when one request of ``items`` is over ``max_pending``: the
        limit bounds a single request too (checked before its spans are decoded, where it can)."""
        if items > self.max_pending:
            raise TooManyItems(items, self.max_pending)

    async def submit(self, items: Sequence[Item]) -> IngestResult:
        """Store ``items``; returns once they are committed. Raises :class:`TooManyItems`,
        :class:`Backpressure` or :class:`StoreUnavailable`."""
        if not items:
            return IngestResult()
        self.admissible(len(items))
        with self._lock:
            if self._pending and self._pending + len(items) > self.max_pending:
                raise Backpressure(retry_after=1.0)
            self._pending += len(items)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.answer_seconds  # the redaction and the commit, together
        try:
            # redacted first, and only the redacted items go any further: the retries in _write
            # (one request at a time, then halves of one) insert these too, never the items in clear
            redacted = await asyncio.wait_for(
                loop.run_in_executor(self._redacting, self.redact, items), timeout=self.answer_seconds
            )
        except BaseException as e:  # a redaction that fails or is late stores and acknowledges nothing
            with self._lock:
                self._pending -= len(items)
            if isinstance(e, TimeoutError):
                raise self._late() from None
            if isinstance(e, Exception):
                log.error("redaction failed: nothing of this request is stored", error=type(e).__name__)
            raise
        job = _Job(redacted, loop, loop.create_future())
        self._queue.put(job)
        try:
            return await asyncio.wait_for(
                asyncio.shield(job.future), timeout=max(0.0, deadline - loop.time())
            )
        except TimeoutError:
            job.future.add_done_callback(_retrieve)  # answered already: its late outcome is only logged
            raise self._late() from None

    def _late(self) -> StoreUnavailable:
        return StoreUnavailable(
            f"the database did not commit within {self.answer_seconds:g} s (it hangs or is overloaded)"
        )

    def close(self) -> None:
        self._redacting.shutdown(wait=True)
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join(timeout=30)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            jobs = [first]
            size = len(first.items)
            stop = False
            while size < MAX_BATCH_ITEMS:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                jobs.append(nxt)
                size += len(nxt.items)
            self._write(jobs)
            if stop:
                return

    def _write(self, jobs: list[_Job], batches: list[Sequence[Item]] | None = None) -> None:
        if batches is None:
            batches = [j.items for j in jobs]  # redacted already (submit): nothing in clear is queued
        items: Sequence[Item] = [i for b in batches for i in b]
        began = time.monotonic()
        try:
            result = self.store.ingest(items, self.policies(), now=time.time())
            if self.observe is not None:
                commit = Commit(time.monotonic() - began, len(items), began - min(j.enqueued for j in jobs))
                try:
                    self.observe(commit)
                except Exception:  # metrics must never fail a write
                    log.exception("commit observer failed")
        except StoreUnavailable as e:
            self._answer(jobs, error=e)
            return
        except Exception:  # one bad request must not fail the others it was batched with
            if len(jobs) > 1:
                for job, batch in zip(jobs, batches, strict=True):
                    self._write([job], [batch])
                return
            try:  # nor one bad span the rest of its request: find what the database refuses
                result = self._isolate(batches[0], 0)
            except StoreUnavailable as e:
                self._answer(jobs, error=e)
                return
        if self.on_commit is not None:
            try:
                self.on_commit(result, items)
            except Exception:  # metrics must never fail a write
                log.exception("on_commit hook failed")
        self._answer(jobs, result=result)

    def _isolate(self, items: Sequence[Item], offset: int) -> IngestResult:
        """Store ``items`` in halves until each item the database refuses is alone: those are
        refused (reported with their place), the others stored. Every item is stored whole or not
        at all; only the database being down (:class:`StoreUnavailable`) stops the search."""
        try:
            return self.store.ingest(items, self.policies(), now=time.time())
        except StoreUnavailable:
            raise
        except Exception as e:
            if len(items) == 1:
                cause = getattr(e, "orig", None) or e
                # the type only: a driver's message can quote the refused value, which may be secret
                log.warning(
                    "the database refused one item; the rest of its request is stored",
                    error=type(cause).__name__,
                )
                return IngestResult(refused=((offset, f"the database refused it ({type(cause).__name__})"),))
            mid = len(items) // 2
            return self._isolate(items[:mid], offset) + self._isolate(items[mid:], offset + mid)

    def _answer(
        self, jobs: list[_Job], *, result: IngestResult | None = None, error: BaseException | None = None
    ) -> None:
        with self._lock:
            self._pending -= sum(len(j.items) for j in jobs)
        for job in jobs:
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)


def _retrieve(future: asyncio.Future[IngestResult]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("a write answered 503 for its wait failed too", error=str(future.exception()))


def _settle(
    future: asyncio.Future[IngestResult], result: IngestResult | None, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result or IngestResult())
