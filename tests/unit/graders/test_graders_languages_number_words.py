"""How number words of the tables join into one number (issue 25, session 31): the rules behind
``doscientos cincuenta``, ``dos mil``, ``vingt-cinq``, ``treinta y cinco``, and the pairs that
are two numbers ("cinco veinte"), read one by one so a change to any of them is seen."""

from __future__ import annotations

import pytest

from proctor.graders._lexicon import _combined, _joins, _place


@pytest.mark.parametrize(
    ("between", "first", "second", "joined"),
    [
        (" ", 2.0, 1000.0, True),  # dos mil
        (" ", 3.0, 1_000_000.0, True),  # tres millones
        (" ", 5.0, 100.0, True),  # cinq cents
        (" ", 5.0, 200.0, False),  # five, two hundred: two numbers
        (" ", 5.0, 20.0, False),  # cinco veinte
        (" ", 2000.0, 1000.0, False),
        ("-", 20.0, 5.0, True),  # vingt-cinq
        (" ", 20.0, 10.0, False),  # twenty ten
        (" ", 10.0, 5.0, False),  # ten five
        (" ", 200.0, 50.0, True),  # doscientos cincuenta
        (" y ", 30.0, 5.0, True),  # treinta y cinco
        (" e ", 200.0, 50.0, True),  # duzentos e cinquenta
        (" y ", 30.0, 10.0, False),
        (" y ", 10.0, 5.0, False),
        (", ", 20.0, 5.0, False),  # a list, not one number
    ],
)
def test_two_number_words_write_one_number_only_in_these_shapes(
    between: str, first: float, second: float, joined: bool
) -> None:
    assert _joins(between, first, second) is joined


@pytest.mark.parametrize(
    ("values", "number"),
    [
        ([200.0, 50.0], 250.0),
        ([2.0, 1000.0], 2000.0),
        ([1000.0], 1000.0),
        ([3.0, 100.0], 300.0),
        ([20.0, 100.0], 120.0),  # a hundred after twenty multiplies nothing
        ([5.0, 20.0], 25.0),  # fünfundzwanzig: units before tens
        ([2.0, 1000.0, 500.0], 2500.0),
    ],
)
def test_number_words_combine_into_their_number(values: list[float], number: float) -> None:
    assert _combined(values) == number


def test_the_place_of_a_round_number() -> None:
    assert (_place(200.0), _place(20.0), _place(7.0), _place(0.0)) == (100.0, 10.0, 1.0, 1.0)
