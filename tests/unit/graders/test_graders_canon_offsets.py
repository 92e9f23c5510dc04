"""The map from the canonical form back to what the agent wrote, against a reference built by hand.

A reason quotes the original text of a finding: a wrong map quotes the wrong characters, or shows
half of a secret. The reference knows which original character made each canonical one.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from proctor.graders._canon import as_browsed, canonical

#: pieces of text whose canonical form is known, each a list of (original character, its form)
ATOMS: list[list[tuple[str, str]]] = [
    [("a", "a")],
    [("7", "7")],
    [(" ", " ")],
    [("-", "-")],
    [("\u0430", "a")],  # a Cyrillic look-alike: one for one
    [("\u00e9", "e")],  # a letter with its accent
    [("\u00a0", " ")],  # a no-break space
    [("\u2011", "-")],  # a non-breaking hyphen
    [("\u0663", "3")],  # an Arabic-Indic digit
    [("\u200b", "")],  # removed: a zero-width space
    [("\x01", "")],  # removed: a control
    [("\ufe0f", "")],  # removed: a variation selector
    [("\ufb01", "fi")],  # expanded: a ligature
    [("\u2026", "...")],  # expanded: an ellipsis
    [("\u33c2", "a.m.")],  # expanded: a squared abbreviation
    [("e", "e"), ("\u0301", "")],  # a combining mark after a letter goes
    [("\u4e2d", "\u4e2d")],  # a letter with no look-alike stays
]


def _reference(atoms: list[list[tuple[str, str]]]) -> tuple[str, str, list[int]]:
    """(original, canonical, the original index of each canonical character)."""
    original, canon, owner = [], [], []
    for atom in atoms:
        for ch, form in atom:
            owner += [len(original)] * len(form)
            original.append(ch)
            canon.append(form)
    return "".join(original), "".join(canon), owner


@given(st.lists(st.sampled_from(ATOMS), max_size=14))
def test_every_span_maps_to_the_characters_that_made_it(atoms: list[list[tuple[str, str]]]) -> None:
    original, canon, owner = _reference(atoms)
    c = canonical(original)
    assert (c.text, c.original) == (canon, original)
    for start in range(len(canon)):
        assert c.offset(start) == owner[start]
        assert c.span(start, start) == (owner[start], owner[start])
        for end in range(start + 1, len(canon) + 1):
            assert c.span(start, end) == (owner[start], owner[end - 1] + 1), (start, end)
            assert c.source(start, end) == original[owner[start] : owner[end - 1] + 1]
    assert c.offset(len(canon)) == len(original)  # the end is the end


def test_text_after_an_expansion_maps_one_for_one_again() -> None:
    c = canonical("\ufb01\u0430bc\u2026x")  # "fiabc...x"
    assert c.text == "fiabc...x"
    assert [c.offset(p) for p in range(len(c.text))] == [0, 0, 1, 2, 3, 4, 4, 4, 5]
    assert c.source(2, 5) == "\u0430bc"
    assert c.source(1, 3) == "\ufb01\u0430"
    assert c.span(4, 4) == (3, 3)
    assert c.span(1, 1) == (0, 0)  # inside the ligature: an empty span stays empty


def test_a_letter_with_marks_on_a_look_alike_is_the_letter_imitated() -> None:
    # the Greek alpha with tonos looks like "\u00e1", which is "a": so is it
    assert canonical("p\u03acssword").text == "password"
    assert canonical("\u0451").text == "e"  # Cyrillic io, like "\u00eb"
    assert canonical("\u0439").text == "\u0439"  # Cyrillic short i: its base looks like no ASCII letter
    assert canonical("\ud55c\uad6d\uc5b4").text == "\ud55c\uad6d\uc5b4"  # Hangul syllables are no marks


def test_a_letter_that_looks_like_two_letters_stays_itself() -> None:
    # the data says "\u042b" looks like "bl" and "\u00e6" like "ae": they are letters of their own,
    # and mapping one character to two would be a guess
    assert canonical("\u042b \u00e6 \u00c6").text == "\u042b \u00e6 \u00c6"


def test_as_browsed_keeps_what_a_browser_shows() -> None:
    assert as_browsed("a\x80b") == "ab"  # a C1 control
    assert as_browsed("a\u00a0b") == "a b"  # a no-break space: NFKC makes it a space
    assert as_browsed("\u00a1\u00a9\u00ac") == "\u00a1\u00a9\u00ac"  # visible Latin-1 signs stay


def test_a_quote_of_an_expansion_near_the_end_is_the_character_written() -> None:
    # the last expansion, followed by as many characters as it adds: a reason quoting "fi"
    # quotes the ligature the agent wrote, not the character after it
    c = canonical("\ufb01x")
    assert c.text == "fix"
    assert c.source(0, 2) == "\ufb01"
    assert c.source(1, 2) == "\ufb01"
    assert c.source(2, 3) == "x"
