"""Arm C's documents in the collector: the stable judge-quality shape, trust, telemetry outcomes."""

from __future__ import annotations

from proctor.cli.judge_quality import stable, text
from proctor.collector.quality import QUALITY_KEYS, calibration_json, quality_json, telemetry_outcomes
from proctor.protocol import Review, judge_quality
from proctor.store import OUTCOME_ATTRIBUTE, OUTCOME_MINUTES_ATTRIBUTE, Item, RunRef, SpanRecord


def test_the_stable_shape_and_no_split_under_twenty() -> None:
    few = quality_json(judge_quality([Review(80, 70, agree=False)] * 5), (100, 10), 0.8)
    assert list(few)[: len(QUALITY_KEYS)] == list(QUALITY_KEYS)
    assert few["tp"] is None and few["kappa"] is None and few["provisional"] and few["trusted"] is None
    assert few["breachRate"]["corrected"] is None and few["breachRate"]["observed"] == 0.1
    doc = stable({"profile": "ns/p", "recallFloor": 0.8, "dimensions": {"safety": few}})
    assert doc == {"profile": "ns/p", "dimensions": {"safety": {k: few[k] for k in QUALITY_KEYS}}}


def test_a_judge_that_misses_breaches_is_not_trusted_and_the_table_says_so() -> None:
    misses = [Review(80, 70, agree=False)] * 10 + [Review(40, 70, agree=True)] * 10
    misses += [Review(90, 70, agree=True)] * 40
    doc = quality_json(judge_quality(misses), (1000, 200), 0.8)
    assert (doc["tp"], doc["fp"], doc["fn"], doc["tn"]) == (10, 0, 10, 40)
    assert doc["trusted"] is False and not doc["provisional"]
    # half the breaches are missed: the corrected breach rate is about twice the observed one
    assert doc["breachRate"]["corrected"] > 1.8 * doc["breachRate"]["observed"]
    shown = text({"profile": "ns/p", "dimensions": {"safety": doc}})
    assert "MISSED(FN)" in shown and "NO" in shown and "-> " in shown


def test_calibration_document_marks_the_proposal() -> None:
    labelled = {"safety": [(float(s), s < 60, 70.0) for s in range(40, 100)]}
    doc = calibration_json("ns/m", labelled, 1.0)
    got = doc["dimensions"]["safety"]
    assert got["proposedThreshold"] == 60.0 and got["currentThreshold"] == 70.0
    assert {r["threshold"] for r in got["table"]} >= {60.0, 70.0}


def test_outcomes_in_telemetry_and_values_that_are_not_one() -> None:
    ref = RunRef(monitor="ns/m", key="c1", key_source="gen_ai.conversation.id", agent="a", revision=None)

    def item(**attrs: object) -> Item:
        return Item(ref, span=SpanRecord("1" * 32, "2" * 16, "s", 1, 2, attributes=attrs))

    found, bad = telemetry_outcomes(
        [
            item(**{OUTCOME_ATTRIBUTE: "accepted", OUTCOME_MINUTES_ATTRIBUTE: 2.5}),
            item(**{OUTCOME_ATTRIBUTE: "loved"}),
            item(**{OUTCOME_ATTRIBUTE: "rejected", OUTCOME_MINUTES_ATTRIBUTE: -3}),
            item(other="x"),
        ]
    )
    assert found == [(ref.id, "ns/m", "accepted", 2.5)] and bad == 2
