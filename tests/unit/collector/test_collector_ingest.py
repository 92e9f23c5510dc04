"""The ingestion writer's promises that need no database: an item the database refuses alone is
reported with its place and the rest of its request stored; one request over --max-pending is
refused at once (issue 24, classes 3 and 4)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from proctor.collector.ingest import TooManyItems, Writer
from proctor.protocol import LifecyclePolicy
from proctor.store import IngestResult, Item, RunRef, SpanRecord, StoreUnavailable

REF = RunRef("ns/m", "k", "executionId", "agent")


def item(name: str, i: int) -> Item:
    return Item(
        REF, span=SpanRecord(trace_id=f"{i:032x}", span_id=f"{i:016x}", name=name, start_ns=1, end_ns=2)
    )


class Refusing:
    """A database that refuses any transaction holding a span named "poison" (as PostgreSQL refuses
    a value it cannot store) and stores everything else; or is down when ``down`` is set."""

    def __init__(self) -> None:
        self.stored: list[str] = []
        self.down = False

    def ingest(
        self, items: Sequence[Item], _policies: Mapping[str, LifecyclePolicy], now: float
    ) -> IngestResult:
        if self.down:
            raise StoreUnavailable("database unavailable: test")
        if any(i.span and i.span.name == "poison" for i in items):
            raise ValueError("a value the database refuses")
        self.stored += [i.span.name for i in items if i.span]
        return IngestResult(spans=len(items), by_monitor={"ns/m": (len(items), 0, 0)})


def submit(store: Any, items: list[Item], **kw: Any) -> IngestResult:
    writer = Writer(store, dict, **kw)
    try:
        return asyncio.run(writer.submit(items))
    finally:
        writer.close()


def test_items_the_database_refuses_are_reported_with_their_place_and_the_rest_stored() -> None:
    store = Refusing()
    names = ["a", "poison", "b", "c", "poison", "d", "e"]
    result = submit(store, [item(n, i) for i, n in enumerate(names, 1)])
    assert [place for place, _ in result.refused] == [1, 4]
    assert all(why == "the database refused it (ValueError)" for _, why in result.refused)
    assert sorted(store.stored) == ["a", "b", "c", "d", "e"] and result.spans == 5


def test_the_database_going_down_during_the_search_is_a_503_not_a_refusal() -> None:
    class DownAfterFirst(Refusing):
        def ingest(
            self, items: Sequence[Item], policies: Mapping[str, LifecyclePolicy], now: float
        ) -> IngestResult:
            if len(items) < 3:
                self.down = True
            return super().ingest(items, policies, now)

    store = DownAfterFirst()
    with pytest.raises(StoreUnavailable):
        submit(store, [item(n, i) for i, n in enumerate(["a", "poison", "b", "c"], 1)])


def test_one_request_over_max_pending_is_refused_before_anything_waits() -> None:
    store = Refusing()
    with pytest.raises(TooManyItems, match="--max-pending"):
        submit(store, [item("a", i) for i in range(1, 12)], max_pending=10)
    assert store.stored == []
    assert submit(store, [item("a", i) for i in range(1, 11)], max_pending=10).spans == 10


def test_the_search_for_a_refused_item_inserts_only_redacted_items() -> None:
    """When the database refuses a batch, the writer retries one request at a time and then halves
    of one: every one of those inserts carries the redacted items, never the ones in clear."""
    from proctor.collector.redaction import Redactor

    secret = "AKIAIOSFODNN7EXAMPLX"

    class Recording(Refusing):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def ingest(
            self, items: Sequence[Item], policies: Mapping[str, LifecyclePolicy], now: float
        ) -> IngestResult:
            self.seen += [repr(i) for i in items]
            return super().ingest(items, policies, now)

    store = Recording()
    leaky = [
        Item(
            REF,
            span=SpanRecord(
                trace_id=f"{i:032x}",
                span_id=f"{i:016x}",
                name=name,
                start_ns=1,
                end_ns=2,
                attributes={"gen_ai.tool.call.result": f"key {secret}"},
            ),
        )
        for i, name in enumerate(["a", "poison", "b"], 1)
    ]
    result = submit(store, leaky, redact=Redactor())
    assert [place for place, _ in result.refused] == [1]
    assert sorted(store.stored) == ["a", "b"]
    assert len(store.seen) > 3, "the search for the refused item retried"
    assert not any(secret in text for text in store.seen)


def test_a_redaction_that_fails_stores_and_acknowledges_nothing() -> None:
    store = Refusing()

    def broken(_items: Sequence[Item]) -> list[Item]:
        raise RuntimeError("the scan broke")

    writer = Writer(store, dict, redact=broken)
    try:
        with pytest.raises(RuntimeError, match="the scan broke"):
            asyncio.run(writer.submit([item("a", 1), item("b", 2)]))
        assert store.stored == [] and writer.pending == 0  # nothing waits for a commit either
    finally:
        writer.close()
