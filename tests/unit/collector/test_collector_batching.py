"""Group commit (:mod:`proctor.collector.batching`): items asked together are written together, in
the order asked, and one item's failure is its own, not its batch's."""

from __future__ import annotations

import asyncio
import threading

import pytest

from proctor.collector.batching import Batcher


class Away(Exception):
    """What a database that is away raises: every item's answer."""


class Ledger:
    """A write function over a list: each call is one 'transaction', all or nothing."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.calls: list[list[int]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.away = False

    def write(self, items: list[int]) -> list[int]:
        self.gate.wait()
        self.calls.append(list(items))
        if self.away:
            raise Away("the database is away")
        if any(i < 0 for i in items):
            raise ValueError("a negative item")
        self.rows.extend(items)
        return [i * 10 for i in items]


async def _while_held(ledger: Ledger, batcher: Batcher[int, int], items: list[int]) -> list[object]:
    """Submit 0 alone, then ``items`` while its write is held: they queue for the next batch."""
    ledger.gate.clear()
    first = asyncio.create_task(batcher.submit(0))
    while not batcher._draining:  # noqa: ASYNC110 (the task starts on the next loop turn)
        await asyncio.sleep(0)
    rest = [asyncio.create_task(batcher.submit(i)) for i in items]
    await asyncio.sleep(0.01)
    ledger.gate.set()
    return await asyncio.gather(first, *rest, return_exceptions=True)


def test_items_asked_during_a_write_go_together_in_the_next_in_order() -> None:
    ledger = Ledger()
    got = asyncio.run(_while_held(ledger, Batcher(ledger.write), [3, 1, 2]))
    assert got == [0, 30, 10, 20]
    assert ledger.calls == [[0], [3, 1, 2]]
    assert ledger.rows == [0, 3, 1, 2]


def test_one_bad_item_fails_alone_and_the_others_are_written() -> None:
    ledger = Ledger()
    got = asyncio.run(_while_held(ledger, Batcher(ledger.write, shared=(Away,)), [1, -1, 2]))
    assert got[:2] == [0, 10] and isinstance(got[2], ValueError) and got[3] == 20
    assert ledger.rows == [0, 1, 2]  # the failed batch wrote nothing; each was written alone


def test_a_database_away_is_every_items_answer_and_nothing_is_written() -> None:
    ledger = Ledger()
    batcher: Batcher[int, int] = Batcher(ledger.write, shared=(Away,))

    async def go() -> list[object]:
        ledger.away = True
        return await asyncio.gather(*(batcher.submit(i) for i in (1, 2, 3)), return_exceptions=True)

    got = asyncio.run(go())
    assert all(isinstance(g, Away) for g in got) and ledger.rows == []
    assert ledger.calls == [[1, 2, 3]]  # one transaction, not tried again one by one


def test_a_batcher_serves_a_new_event_loop() -> None:
    ledger = Ledger()
    batcher: Batcher[int, int] = Batcher(ledger.write)
    assert asyncio.run(batcher.submit(1)) == 10
    assert asyncio.run(batcher.submit(2)) == 20


@pytest.mark.parametrize("limit", [1, 2])
def test_a_batch_holds_at_most_its_limit(limit: int) -> None:
    ledger = Ledger()
    asyncio.run(_while_held(ledger, Batcher(ledger.write, limit=limit), [1, 2, 3]))
    assert all(len(c) <= limit for c in ledger.calls) and sorted(ledger.rows) == [0, 1, 2, 3]
