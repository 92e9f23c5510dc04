"""Invisible combining marks (variation selectors, the grapheme joiner) vanish wherever they are."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion
from proctor.graders._canon import canonical


@pytest.mark.parametrize("mark", ["\ufe0f", "\ufe00", "\u034f", "\U000e0100"])
@pytest.mark.parametrize(
    "where", ["oil {m}pressure", "oil{m} pressure", "{m}oil pressure", "oil pressure{m}"]
)
def test_an_invisible_mark_is_removed_after_a_space_or_at_the_start_as_after_a_letter(
    mark: str, where: str
) -> None:
    answer = where.format(m=mark)
    c = canonical(answer)
    assert c.text == "oil pressure"
    assert c.source(0, len(c.text)).replace(mark, "") == "oil pressure"
    check = compile_assertion(Assertion(type="contains", value="oil pressure")).check(answer, CaseContext())
    assert check.passed is True


def test_a_visible_combining_mark_after_a_space_is_kept() -> None:
    assert canonical(" \u0301x").text == " \u0301x"
