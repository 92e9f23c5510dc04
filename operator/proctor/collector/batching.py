"""Group commit: the worker's concurrent writes of one kind, several per transaction.

The worker judges runs concurrently, and each judged run is followed by short write transactions
(its detector step, its incidents and notices). One transaction each bounds the rate by the commit
(an fsync on SQLite) and by the database's write lock, not by the work. A :class:`Batcher` queues
what is asked while a transaction is under way and writes it in the next one, in the order asked:
the result is the same as one transaction each, since the batch function applies the items one
after another in the same transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Final, Generic, TypeVar

Req = TypeVar("Req")
Res = TypeVar("Res")

#: Items written in one transaction, at most.
MAX_BATCH: Final = 256


class Batcher(Generic[Req, Res]):
    """Calls ``write`` (synchronous, in a worker thread) with the items queued while the previous
    call ran; each :meth:`submit` gets its item's result. When ``write`` raises, its transaction
    rolled back and nothing of the batch was written: an error in ``shared`` (the database is
    away) is every item's answer; any other is one item's fault, so each item is written again
    alone and gets its own result or error (one bad item costs the others nothing)."""

    def __init__(
        self,
        write: Callable[[list[Req]], Sequence[Res]],
        *,
        shared: tuple[type[Exception], ...] = (),
        limit: int = MAX_BATCH,
    ) -> None:
        self.write = write
        self.shared = shared
        self.limit = limit
        self._queue: list[tuple[Req, asyncio.Future[Res]]] = []
        self._draining: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def submit(self, item: Req) -> Res:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests start several): the old queue is gone
            self._loop, self._queue, self._draining = loop, [], None
        done: asyncio.Future[Res] = loop.create_future()
        self._queue.append((item, done))
        if self._draining is None:
            self._draining = asyncio.create_task(self._drain(), name="group-commit")
        return await done

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue[: self.limit], self._queue[self.limit :]
                try:
                    results = await asyncio.to_thread(self.write, [item for item, _ in batch])
                except Exception as e:
                    if len(batch) == 1 or isinstance(e, self.shared):
                        for _, done in batch:
                            _settle(done, error=e)
                    else:
                        for item, done in batch:
                            try:
                                (result,) = await asyncio.to_thread(self.write, [item])
                            except Exception as alone:
                                _settle(done, error=alone)
                            else:
                                _settle(done, result)
                    continue
                for (_, done), result in zip(batch, results, strict=True):
                    _settle(done, result)
        finally:
            self._draining = None


def _settle(done: asyncio.Future[Res], result: Res | None = None, *, error: Exception | None = None) -> None:
    if done.done():  # its caller was cancelled
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)  # type: ignore[arg-type]
