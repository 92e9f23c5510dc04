"""``case_batches``: the shares of a ConfigMap's cases, which workers validate one each a batch
at a time, are the cases ``parse_cases`` reads, each once, in order; ``case_sources`` names the
texts in order."""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from proctor.api import (
    Case,
    CaseSource,
    ManifestError,
    MissingReferenceError,
    case_batches,
    case_sources,
    parse_cases,
    parse_caseset,
)

CASES = [
    {"id": f"c{i}", "tier": "form", "input": f"q{i}", "assert": [{"type": "contains", "value": "ok"}]}
    for i in range(7)
]


def case_share(text: str, *, where: str, start: Fraction, stop: Fraction, size: int = 100) -> list[Case]:
    return [c for batch in case_batches(text, where=where, start=start, stop=stop, size=size) for c in batch]


@pytest.mark.parametrize("count", [1, 2, 3, 7, 9])
@pytest.mark.parametrize("size", [1, 2, 100])
@pytest.mark.parametrize("text", [yaml.safe_dump(CASES), yaml.safe_dump({"cases": CASES})])
def test_the_shares_are_the_cases_each_once_in_order(text: str, count: int, size: int) -> None:
    shares = [
        case_share(text, where="w", start=Fraction(i, count), stop=Fraction(i + 1, count), size=size)
        for i in range(count)
    ]
    assert [c for s in shares for c in s] == parse_cases(text, where="w")
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_share_comes_in_batches_of_at_most_the_size() -> None:
    text = yaml.safe_dump(CASES)
    batches = list(case_batches(text, where="w", start=Fraction(0), stop=Fraction(1), size=3))
    assert [[c.id for c in b] for b in batches] == [["c0", "c1", "c2"], ["c3", "c4", "c5"], ["c6"]]


def test_a_bad_case_is_refused_by_the_share_holding_it() -> None:
    bad = [dict(c) for c in CASES]
    bad[6]["tier"] = "nonsense"
    text = yaml.safe_dump(bad)
    half = Fraction(1, 2)
    assert len(case_share(text, where="w", start=Fraction(0), stop=half)) == 3
    with pytest.raises(ManifestError, match=r"tier"):
        case_share(text, where="w", start=half, stop=Fraction(1))
    # in batches, the ones before the bad case come first; the batch holding it is refused
    batches = case_batches(text, where="w", start=Fraction(0), stop=Fraction(1), size=4)
    assert [c.id for c in next(batches)] == ["c0", "c1", "c2", "c3"]
    with pytest.raises(ManifestError, match=r"tier"):
        next(batches)
    with pytest.raises(ManifestError, match="expected a list of cases"):
        case_share("just: a map", where="w", start=Fraction(0), stop=half)


def test_sources_in_order_and_every_missing_one_named() -> None:
    caseset = parse_caseset(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "CaseSet",
            "metadata": {"name": "s"},
            "spec": {"casesFrom": [{"name": "b", "key": "k"}, {"name": "a"}]},
        }
    )
    maps = {"a": {"y": "Y", "x": "X"}, "b": {"k": "K"}}
    assert case_sources(caseset, maps) == [
        CaseSource("ConfigMap b/k", "K"),
        CaseSource("ConfigMap a/x", "X"),
        CaseSource("ConfigMap a/y", "Y"),
    ]
    with pytest.raises(MissingReferenceError) as e:
        case_sources(caseset, {"b": {}})
    assert list(e.value.problems) == [
        "CaseSet s: casesFrom: ConfigMap 'b' has no key 'k'",
        "CaseSet s: casesFrom: ConfigMap 'a' not found",
    ]
