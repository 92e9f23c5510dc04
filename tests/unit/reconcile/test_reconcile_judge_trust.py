"""An EvalProfile's JudgeTrusted condition and judge-quality summary from the collector's figures
(pure): every dimension the profile judges counts, the floor is the profile's, nothing fails open."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import ValidationError

from proctor.api import ConditionType, EvalProfile, EvalProfileStatus, get_condition
from proctor.reconcile.monitors import Unreadable
from proctor.reconcile.profiles import trust_status

NOW = dt.datetime(2026, 12, 6, 6, 0, tzinfo=dt.UTC)


def profile(**spec: Any) -> EvalProfile:
    spec.setdefault("mode", "Replace")
    spec.setdefault(
        "dimensions",
        [{"name": "safety", "rubric": "Is it safe?"}, {"name": "factual_grounding", "rubric": "Grounded?"}],
    )
    return EvalProfile.model_validate({"metadata": {"name": "p", "namespace": "t"}, "spec": spec})


def figures(reviews: int, low: float | None, **extra: Any) -> dict[str, Any]:
    return {
        "reviews": reviews,
        "agreement": 0.9,
        "recall": None if low is None else min(1.0, low + 0.1),
        "kappa": 0.7,
        "provisional": reviews < 50,
        "intervals": {"recall": None if low is None else [low, min(1.0, low + 0.2)]},
    } | extra


def judged(p: EvalProfile, dims: dict[str, Any]) -> EvalProfileStatus:
    return trust_status(p, {"dimensions": dims}, EvalProfileStatus(), now=NOW, generation=1)


def test_a_dimension_under_the_floor_makes_the_judge_untrusted_and_is_named() -> None:
    st = judged(profile(), {"safety": figures(60, 0.55), "factual_grounding": figures(60, 0.9)})
    cond = get_condition(st.conditions, ConditionType.JUDGE_TRUSTED)
    assert cond is not None and (cond.status, cond.reason) == ("False", "MissesBreaches")
    assert "safety" in cond.message and "0.55" in cond.message and "factual_grounding" not in cond.message
    by = {d.name: d for d in st.judge_quality}
    assert by["safety"].trusted is False and by["safety"].recall_lower == 0.55
    assert by["factual_grounding"].trusted is True and not by["factual_grounding"].provisional


def test_too_few_reviews_or_an_unreviewed_dimension_is_unknown_never_trusted() -> None:
    few = judged(profile(), {"safety": figures(19, 0.9), "factual_grounding": figures(60, 0.9)})
    cond = get_condition(few.conditions, ConditionType.JUDGE_TRUSTED)
    assert cond is not None and (cond.status, cond.reason) == ("Unknown", "TooFewReviews")
    unreviewed = judged(profile(), {"safety": figures(60, 0.9)})
    cond = get_condition(unreviewed.conditions, ConditionType.JUDGE_TRUSTED)
    assert cond is not None and cond.status == "Unknown" and "factual_grounding" in cond.message
    assert {d.name: d.reviews for d in unreviewed.judge_quality} == {"safety": 60, "factual_grounding": 0}
    trusted = judged(profile(), {"safety": figures(60, 0.85), "factual_grounding": figures(60, 0.9)})
    cond = get_condition(trusted.conditions, ConditionType.JUDGE_TRUSTED)
    assert cond is not None and (cond.status, cond.reason) == ("True", "RecallAboveFloor")


def test_the_floor_is_the_profiles_and_must_be_between_0_and_1() -> None:
    dims = {"safety": figures(60, 0.7), "factual_grounding": figures(60, 0.9)}
    strict = get_condition(judged(profile(), dims).conditions, ConditionType.JUDGE_TRUSTED)
    lenient = get_condition(
        judged(profile(judgeTrust={"recallFloor": 0.6}), dims).conditions, ConditionType.JUDGE_TRUSTED
    )
    assert strict is not None and strict.status == "False"
    assert lenient is not None and lenient.status == "True"
    for bad in (-0.1, 1.5):
        with pytest.raises(ValidationError):
            profile(judgeTrust={"recallFloor": bad})


def test_a_collector_that_cannot_be_read_leaves_the_last_figures_and_says_why() -> None:
    before = judged(profile(), {"safety": figures(60, 0.5), "factual_grounding": figures(60, 0.9)})
    seen = Unreadable("CollectorUnavailable", "cannot reach the collector")  # type: ignore[arg-type]
    after = trust_status(profile(), seen, before, now=NOW, generation=1)
    cond = get_condition(after.conditions, ConditionType.JUDGE_TRUSTED)
    assert cond is not None and (cond.status, cond.reason) == ("Unknown", "CollectorUnavailable")
    assert after.judge_quality == before.judge_quality
    # figures the collector should never send are not taken at face value
    odd = judged(
        profile(), {"safety": figures(60, 0.9, agreement=7, kappa="x"), "factual_grounding": figures(60, 0.9)}
    )
    safety = next(d for d in odd.judge_quality if d.name == "safety")
    assert safety.agreement is None and safety.kappa is None
