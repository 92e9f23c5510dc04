"""The judge-quality split and kappa agree with scikit-learn's on generated reviews."""

from __future__ import annotations

import random

import pytest

from proctor.protocol import Review, confusion

metrics = pytest.importorskip("sklearn.metrics")


@pytest.mark.parametrize("seed", range(25))
def test_split_and_kappa_match_scikit_learn(seed: int) -> None:
    rng = random.Random(seed)
    threshold = rng.choice([50.0, 70.0, 85.0])
    error = rng.random() * 0.5
    items = []
    for _ in range(rng.randint(20, 400)):
        judge = rng.uniform(0, 100)
        agree = rng.random() > error
        score = rng.uniform(0, 100) if rng.random() < 0.3 else None
        items.append(Review(judge, threshold, agree=agree, score=score))
    judged = [r.judge_breach for r in items]
    human = [r.human_breach for r in items]
    # sklearn: rows are the truth (the reviewer), columns the prediction (the judge); labels [neg, pos]
    (tn, fp), (fn, tp) = metrics.confusion_matrix(human, judged, labels=[False, True])
    split = confusion(items)
    assert (split.tp, split.fp, split.fn, split.tn) == (tp, fp, fn, tn)
    assert split.kappa == pytest.approx(metrics.cohen_kappa_score(human, judged))
    assert split.precision == pytest.approx(metrics.precision_score(human, judged, zero_division=0)) or (
        split.precision is None
    )
    assert split.recall == pytest.approx(metrics.recall_score(human, judged, zero_division=0)) or (
        split.recall is None
    )
