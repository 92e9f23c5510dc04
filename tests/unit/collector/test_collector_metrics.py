"""/metrics stays bounded however many agent versions are sent (issue 24, class 8): a monitor's
live revisions are labelled up to the documented cap, the rest aggregated as revision="other"."""

from __future__ import annotations

from prometheus_client import generate_latest

from proctor.collector.metrics import MAX_REVISIONS_PER_MONITOR, OTHER_REVISION, Metrics, RevisionLabels


def observe(m: Metrics, monitor: str, revision: str) -> None:
    m.by_revision(m.evaluations, monitor, "agent", revision, "evaluated").inc()
    for dim in ("task_success", "safety", "output_quality"):
        m.by_revision(m.score, monitor, "agent", revision, dim).observe(80)
        m.by_revision(m.breaches, monitor, "agent", revision, dim).inc()
        m.by_revision(m.skipped, monitor, "agent", revision, dim).inc()


def revisions_in(text: str) -> set[str]:
    return {
        line.split('revision="', 1)[1].split('"', 1)[0] for line in text.splitlines() if 'revision="' in line
    }


def test_two_thousand_versions_make_a_bounded_scrape() -> None:
    few = Metrics()
    observe(few, "ns/a", "v0")
    one_revision = len(generate_latest(few.registry))
    m = Metrics()
    for i in range(2000):
        observe(m, "ns/a", f"v{i}")
        observe(m, "ns/b", f"v{i}")
    text = generate_latest(m.registry).decode()
    for monitor in ("ns/a", "ns/b"):
        labels = revisions_in("\n".join(line for line in text.splitlines() if f'monitor="{monitor}"' in line))
        assert labels == {f"v{i}" for i in range(MAX_REVISIONS_PER_MONITOR)} | {OTHER_REVISION}
    assert len(text) < 2 * (MAX_REVISIONS_PER_MONITOR + 1) * one_revision * 1.5  # not 2,000 x
    other = (
        'proctor_collector_evaluations_total{agent="agent",monitor="ns/a",outcome="evaluated",'
        'revision="other"}'
    )
    assert f"{other} {2000 - MAX_REVISIONS_PER_MONITOR}.0" in text  # nothing lost: aggregated


def test_a_silent_revision_gives_its_place_to_a_new_one_and_its_series_go() -> None:
    now = [0.0]
    forgotten: list[tuple[str, str]] = []
    labels = RevisionLabels(
        lambda m, r: forgotten.append((m, r)), cap=2, live_seconds=60, clock=lambda: now[0]
    )
    assert [labels("m", "1"), labels("m", "2"), labels("m", "3")] == ["1", "2", OTHER_REVISION]
    now[0] = 30.0
    assert labels("m", "2") == "2"  # still live
    now[0] = 70.0
    assert labels("m", "3") == "3" and forgotten == [("m", "1")]  # "1" silent for 70 s
    assert labels("m", "1") == OTHER_REVISION  # "2" was seen 40 s ago: live
    assert labels("m", "") == "" and labels("other-monitor", "9") == "9"


def test_the_series_of_a_revision_that_gave_its_place_up_are_removed() -> None:
    m = Metrics(max_revisions=1, live_revision_seconds=0.0)
    observe(m, "ns/a", "old")
    observe(m, "ns/a", "new")
    assert revisions_in(generate_latest(m.registry).decode()) == {"new"}
