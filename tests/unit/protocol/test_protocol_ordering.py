"""A ranked scale compares by rank, at the edges too (equal members, the top of the scale)."""

from __future__ import annotations

import itertools

import pytest

from proctor.protocol import Severity


def test_every_comparison_follows_the_rank() -> None:
    members = list(Severity)
    for a, b in itertools.product(members, repeat=2):
        ra, rb = members.index(a), members.index(b)
        assert (a < b, a <= b, a > b, a >= b) == (ra < rb, ra <= rb, ra > rb, ra >= rb), (a, b)


def test_equal_members_are_neither_less_nor_greater() -> None:
    assert not Severity.HIGH < Severity.HIGH
    assert Severity.HIGH <= Severity.HIGH
    assert not Severity.HIGH > Severity.HIGH
    assert Severity.HIGH >= Severity.HIGH


def test_raised_moves_up_and_stops_at_the_top() -> None:
    assert Severity.NONE.raised() is Severity.LOW
    assert Severity.MEDIUM.raised(2) is Severity.CRITICAL
    assert Severity.HIGH.raised(5) is Severity.CRITICAL
    assert Severity.CRITICAL.raised() is Severity.CRITICAL
    assert Severity.LOW.raised(0) is Severity.LOW


def test_max_picks_the_most_severe_not_the_alphabetically_last() -> None:
    assert max([Severity.MEDIUM, Severity.CRITICAL, Severity.HIGH]) is Severity.CRITICAL
    assert sorted([Severity.CRITICAL, Severity.LOW, Severity.HIGH]) == [
        Severity.LOW,
        Severity.HIGH,
        Severity.CRITICAL,
    ]


@pytest.mark.parametrize("op", ["__lt__", "__le__", "__gt__", "__ge__"])
def test_plain_strings_are_refused(op: str) -> None:
    with pytest.raises(TypeError, match="cannot order Severity against str"):
        getattr(Severity.HIGH, op)("critical")
