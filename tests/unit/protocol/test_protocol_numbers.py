"""Exact boundaries and percentages that never print a miss as a hit."""

from __future__ import annotations

import math
from fractions import Fraction

from proctor.protocol._numbers import exact, exceeds, fmt_num, fmt_pct, percent


def test_exact_is_the_decimal_as_written() -> None:
    assert exact(0.3) == Fraction(3, 10)
    assert exact(93.3) == Fraction(933, 10)
    assert exact(100) == 100


def test_exceeds_is_strict_and_exact() -> None:
    assert exceeds(Fraction(31, 10), 3.0) is True
    assert exceeds(Fraction(3), 3.0) is False  # exactly the limit is not beyond it
    assert exceeds(Fraction(29, 10), 3.0) is False
    assert exceeds(exact(0.3) + exact(0.3) - exact(0.6), 0.0) is False  # no float drift


def test_an_infinite_limit_turns_the_rule_off_and_a_negative_one_is_always_exceeded() -> None:
    assert exceeds(Fraction(10**9), math.inf) is False
    assert exceeds(Fraction(-(10**9)), -math.inf) is True


def test_percent_is_exact() -> None:
    assert percent(1, 3) == Fraction(100, 3)
    assert percent(19, 20) == 95
    assert percent(0, 7) == 0


def test_fmt_pct_trims_and_rounds_to_one_decimal() -> None:
    assert fmt_pct(100.0) == "100"
    assert fmt_pct(Fraction(100, 3)) == "33.3"
    assert fmt_pct(92.5) == "92.5"
    assert fmt_pct(0.0) == "0"


def test_fmt_pct_shows_enough_digits_to_differ_from_the_threshold() -> None:
    assert fmt_pct(94.99, differs_from=95.0) == "94.99"
    assert fmt_pct(94.999, differs_from=95.0) == "94.999"
    assert fmt_pct(94.9999, differs_from=95.0) == "94.9999"
    assert fmt_pct(94.99999, differs_from=95.0) == "94.99999"
    assert fmt_pct(94.9999999, differs_from=95.0) == "94.9999999"  # past six digits: the full repr
    assert fmt_pct(95.0, differs_from=95.0) == "95"  # equal: no extra digits needed
    assert fmt_pct(94.99, differs_from=90.0) == "95"  # far from it: one decimal is enough
    assert fmt_pct(99.96, differs_from=100.0) == "99.96"
    assert fmt_pct(0.04, differs_from=0.0) == "0.04"


def test_fmt_num_prints_thresholds_as_written() -> None:
    assert fmt_num(100.0) == "100"
    assert fmt_num(92.5) == "92.5"
    assert fmt_num(0.3) == "0.3"


def test_fmt_pct_stops_at_the_first_precision_that_differs() -> None:
    # each value differs from 95 at a known precision; showing more digits than needed is a defect
    assert fmt_pct(94.991, differs_from=95.0) == "94.99"
    assert fmt_pct(94.9991, differs_from=95.0) == "94.999"
    assert fmt_pct(94.99991, differs_from=95.0) == "94.9999"
    assert fmt_pct(94.9999991, differs_from=95.0) == "94.999999"


def test_differs_from_is_keyword_only() -> None:
    import pytest

    with pytest.raises(TypeError):
        fmt_pct(94.99, 95.0)  # type: ignore[misc]
