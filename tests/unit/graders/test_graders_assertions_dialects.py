"""Which text a text assertion reads: the canonical answer (look-alike letters mapped, zero-width
characters removed), or the answer as written with ``dialect: promptfoo``; positions in a reason
are positions in the answer as written."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import Check, compile_assertion

#: "NORMAL" with a Cyrillic capital O: a look-alike the canonical form maps back.
LOOKALIKE = "N\u041eRMAL"

#: (type, value, answer, extra fields): each passes when the look-alike reads as "NORMAL".
CASES = [
    ("equals", "NORMAL", LOOKALIKE, {}),
    ("contains", "NORMAL", f"band: {LOOKALIKE}", {}),
    ("icontains", "normal", f"band: {LOOKALIKE}", {}),
    ("contains-any", ["HIGH", "NORMAL"], f"band: {LOOKALIKE}", {}),
    ("contains-all", ["band", "NORMAL"], f"band: {LOOKALIKE}", {}),
    ("icontains-any", ["high", "normal"], f"band: {LOOKALIKE}", {}),
    ("icontains-all", ["band", "normal"], f"band: {LOOKALIKE}", {}),
    ("starts-with", "NORMAL", f"{LOOKALIKE}.", {}),
    ("levenshtein", "NORMAL", LOOKALIKE, {"threshold": 0}),
    ("regex", "^NORMAL$", LOOKALIKE, {}),
]


def check(type_: str, value: object, answer: str, **extra: object) -> Check:
    return compile_assertion(Assertion(type=type_, value=value, **extra)).check(answer)  # type: ignore[arg-type]


@pytest.mark.parametrize(("type_", "value", "answer", "extra"), CASES, ids=[c[0] for c in CASES])
def test_a_look_alike_letter_reads_as_the_letter_it_imitates(
    type_: str, value: object, answer: str, extra: dict[str, object]
) -> None:
    assert check(type_, value, answer, **extra).passed is True
    # in the answer as written the look-alike is another letter: promptfoo's verdict
    assert check(type_, value, answer, dialect="promptfoo", **extra).passed is False


#: A regex is not a text: its pattern is used as written (only the answer is read canonically).
TEXT_VALUES = [c for c in CASES if c[0] != "regex"]


@pytest.mark.parametrize(("type_", "value", "answer", "extra"), TEXT_VALUES, ids=[c[0] for c in TEXT_VALUES])
def test_a_look_alike_letter_in_the_value_reads_the_same(
    type_: str, value: object, answer: str, extra: dict[str, object]
) -> None:
    def swap(v: object) -> object:
        if isinstance(v, list):
            return [swap(x) for x in v]
        return str(v).replace("O", "\u041e").replace("o", "\u043e")

    plain = answer.replace(LOOKALIKE, "NORMAL")
    assert check(type_, swap(value), plain, **extra).passed is True
    assert check(type_, swap(value), plain, dialect="promptfoo", **extra).passed is False


@pytest.mark.parametrize(
    ("type_", "value", "answer", "extra"),
    [(t, v, a.replace(LOOKALIKE, "NORMAL"), e) for t, v, a, e in CASES],
    ids=[c[0] for c in CASES],
)
def test_the_same_answer_without_look_alikes_passes_in_both_dialects(
    type_: str, value: object, answer: str, extra: dict[str, object]
) -> None:
    assert check(type_, value, answer, **extra).passed is True
    assert check(type_, value, answer, dialect="promptfoo", **extra).passed is True


def test_contains_names_the_position_in_the_answer_as_written() -> None:
    # a zero-width space before the text: the canonical answer is one character shorter
    answer = "\u200bband: NORMAL"
    assert check("contains", "NORMAL", answer).reason == 'contains: answer contains "NORMAL" at 7'
    assert (
        check("contains", "NORMAL", answer, dialect="promptfoo").reason
        == 'contains: answer contains "NORMAL" at 7'
    )
    assert check("regex", "NORMAL", answer).reason == "regex: answer matches /NORMAL/ at 7"
