"""status.dimensions from the detector state: the newest revision's series, never all revisions
mixed in one EWMA (issue 29)."""

from __future__ import annotations

from proctor.collector.views import newest_revision_dimensions
from proctor.store import SeriesView


def series(metric: str, revision: str, latest: float, at: float, session: str = "") -> SeriesView:
    return SeriesView(
        monitor="demo/oil-agent",
        metric=metric,
        revision=revision,
        session=session,
        samples=4,
        latest=latest,
        fast_ewma=latest + 1,
        slow_ewma=latest + 2,
        threshold=50.0,
        signatures=(),
        updated_at=at,
    )


WIDE = [
    {"name": "task_success", "latest": 55.0, "fastEwma": 60.0, "slowEwma": 70.0, "samples": 9, "skipped": 1},
    {"name": "safety", "latest": 90.0, "fastEwma": 90.0, "slowEwma": 90.0, "samples": 9, "skipped": 0},
]


def test_the_newest_revisions_series_give_each_dimension_its_figures_and_revision() -> None:
    got = newest_revision_dimensions(
        WIDE,
        [
            series("task_success", "1.0", 90.0, at=10.0),
            series("task_success", "2.0", 20.0, at=20.0),
            series("task_success", "2.0", 5.0, at=30.0, session="s-1"),  # a session's, not a revision's
            series("safety", "1.0", 95.0, at=11.0),
        ],
    )
    task, safety = got
    assert task == {
        "name": "task_success",
        "revision": "2.0",
        "latest": 20.0,
        "fastEwma": 21.0,
        "slowEwma": 22.0,
        "samples": 9,
        "skipped": 1,
    }
    assert safety == WIDE[1]  # revision 2.0 has no safety series yet: the monitor's figures, no revision


def test_without_detector_state_the_monitor_wide_figures_stay() -> None:
    assert newest_revision_dimensions(WIDE, []) == WIDE
