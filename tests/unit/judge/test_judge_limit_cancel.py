"""The judge's concurrency limit when waiters are cancelled (a collector shutting down cancels every
evaluation at once): the cancelled request gets CancelledError, never an error of the limiter's
own, and no slot is lost or leaked (issue 24, class 5)."""

from __future__ import annotations

import asyncio

import pytest

from proctor.judge.limit import AdaptiveLimit


async def _waiting(limit: AdaptiveLimit) -> asyncio.Task[int]:
    task = asyncio.create_task(limit.acquire())
    await asyncio.sleep(0)  # it is queued now
    assert not task.done()
    return task


def test_a_waiter_cancelled_as_a_slot_frees_gets_cancelled_error_and_leaks_nothing() -> None:
    async def scenario() -> None:
        limit = AdaptiveLimit(1)
        await limit.acquire()
        first, second = await _waiting(limit), await _waiting(limit)
        first.cancel()  # the waiter's future is cancelled now; its task runs its handler later
        limit.release()  # ... and the release drops that cancelled waiter from the queue first
        with pytest.raises(asyncio.CancelledError):
            await first  # before the fix: ValueError "<Future cancelled> is not in deque"
        await second  # the freed slot went to the next waiter
        assert limit.in_flight == 1
        limit.release()
        assert limit.in_flight == 0
        await asyncio.wait_for(limit.acquire(), 1)  # free at once

    asyncio.run(scenario())


def test_every_waiter_cancelled_at_once_leaves_every_slot_free() -> None:
    async def scenario() -> None:
        limit = AdaptiveLimit(2)
        await limit.acquire()
        await limit.acquire()
        waiters = [await _waiting(limit) for _ in range(5)]
        for task in waiters:
            task.cancel()
        limit.release()
        limit.release()
        results = await asyncio.gather(*waiters, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in results)
        assert limit.in_flight == 0
        await asyncio.wait_for(limit.acquire(), 1)
        await asyncio.wait_for(limit.acquire(), 1)
        assert limit.in_flight == 2

    asyncio.run(scenario())


def test_a_waiter_cancelled_after_its_slot_was_handed_over_gives_the_slot_back() -> None:
    async def scenario() -> None:
        limit = AdaptiveLimit(1)
        await limit.acquire()
        task = await _waiting(limit)
        limit.release()  # the slot is handed to the waiter...
        task.cancel()  # ...which is cancelled before it ran
        with pytest.raises(asyncio.CancelledError):
            await task
        assert limit.in_flight == 0

    asyncio.run(scenario())
