"""The collector's timings of where ingestion's time goes (issue 28): GC pauses reach the
histogram only at a scrape (a collection can start inside a metric's lock), by generation."""

from __future__ import annotations

import gc

from proctor.collector.ingest import Commit
from proctor.collector.metrics import Metrics
from proctor.store import Checkpoint


def value(m: Metrics, name: str, **labels: str) -> float:
    return m.registry.get_sample_value(name, labels) or 0.0


def test_gc_pauses_are_kept_until_a_scrape_moves_them_into_the_histogram() -> None:
    m = Metrics()
    m.gc_pauses.install()
    try:
        gc.collect()
        assert value(m, "proctor_collector_gc_pause_seconds_count", generation="2") == 0  # not yet
        m.gc_pauses.drain()
        assert value(m, "proctor_collector_gc_pause_seconds_count", generation="2") == 1
    finally:
        m.gc_pauses.uninstall()
    gc.collect()  # uninstalled: no longer timed
    m.gc_pauses.drain()
    assert value(m, "proctor_collector_gc_pause_seconds_count", generation="2") == 1


def test_commits_and_checkpoints_are_counted_without_run_ids() -> None:
    m = Metrics()
    m.commit(Commit(seconds=0.02, items=300, waited=0.005))
    m.checkpoint(Checkpoint("PASSIVE", 0.1, frames=900, copied=900, busy=False))
    m.checkpoint(Checkpoint("RESTART", 0.01, frames=900, copied=900, busy=True))
    assert value(m, "proctor_collector_commit_items_sum") == 300
    assert value(m, "proctor_collector_commit_seconds_bucket", le="0.025") == 1
    assert value(m, "proctor_collector_queue_wait_seconds_bucket", le="0.005") == 1
    assert value(m, "proctor_collector_wal_checkpoints_total", mode="PASSIVE", outcome="complete") == 1
    assert value(m, "proctor_collector_wal_checkpoints_total", mode="RESTART", outcome="busy") == 1
