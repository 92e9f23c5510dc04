"""The canonical form character by character, the map back to the original, and its memo."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.graders._canon import as_browsed, canonical, text_cache


class Counted:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, text: str) -> int:
        self.calls.append(text)
        return len(text)


def test_the_memo_keeps_the_most_recently_used_texts_up_to_its_size() -> None:
    fn = Counted()
    f = text_cache(maxsize=2, max_chars=100)(fn)
    assert [f("a"), f("bb"), f("a")] == [1, 2, 1]
    assert fn.calls == ["a", "bb"]  # two entries fit
    f("ccc")  # "bb" is the least recently used: it goes
    f("a")
    f("ccc")
    assert fn.calls == ["a", "bb", "ccc"]
    f("bb")
    assert fn.calls == ["a", "bb", "ccc", "bb"]


def test_the_memo_holds_at_most_its_budget_of_characters() -> None:
    fn = Counted()
    f = text_cache(maxsize=10, max_chars=10)(fn)
    f("x" * 10)
    f("x" * 10)
    assert len(fn.calls) == 1  # exactly the budget: kept
    f("y" * 11)
    f("y" * 11)
    assert len(fn.calls) == 3  # over the budget: never kept
    f("a" * 6)
    f("b" * 6)  # 12 characters held: the oldest entries go
    f("b" * 6)
    assert len(fn.calls) == 5
    f("a" * 6)
    assert len(fn.calls) == 6
    f.cache_clear()
    f("z" * 10)
    f("z" * 10)
    assert len(fn.calls) == 7  # after a clear the whole budget is free again


def test_the_character_budget_is_exact_from_the_start_and_after_a_clear() -> None:
    fn = Counted()
    f = text_cache(maxsize=10, max_chars=10)(fn)
    for _ in range(2):
        f("a" * 5)
        f("b" * 5)  # exactly 10 characters held: both kept
        f("a" * 5)
        assert fn.calls.count("a" * 5) == 1
        f("c")  # 11: the least recently used ("bbbbb") goes
        f("b" * 5)
        assert fn.calls.count("b" * 5) == 2
        f.cache_clear()
        fn.calls.clear()


def test_a_canonical_text_cannot_be_changed() -> None:
    c = canonical("N\u041eRMAL")
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.text = "HIGH"  # type: ignore[misc]


def test_the_default_memo_holds_256_texts() -> None:
    fn = Counted()
    f = text_cache()(fn)
    for i in range(256):
        f(str(i))
    f("0")
    assert len(fn.calls) == 256  # all 256 kept
    f("256")  # the 257th: the least recently used ("1") goes
    f("0")
    f("1")
    assert len(fn.calls) == 258


def test_the_default_budget_is_sixteen_million_characters() -> None:
    fn = Counted()
    f = text_cache()(fn)
    f("a" * 16_000_000)
    f("a" * 16_000_000)
    assert len(fn.calls) == 1
    f("b" * 16_000_001)
    f("b" * 16_000_001)
    assert len(fn.calls) == 3


@pytest.mark.parametrize(
    ("text", "canon"),
    [
        ("a\u2028b\u2029c\u0085d", "a\nb\nc\nd"),  # line and paragraph separators, NEL
        ("a\x01b\tc\nd\x7fe\r\n", "ab\tc\nde\r\n"),  # controls go, tab and line breaks stay
        ("a\x80b\x9fc", "abc"),  # C1 controls
        ("\u2018x\u2019 \u201cy\u201d \u00abz\u00bb", '\'x\' "y" "z"'),
        ("\uff07q\uff07 \uff02r\uff02", "'q' \"r\""),  # full-width quotes (folded, then mapped)
        ("\u0663\uff13\u0969", "333"),  # digits of any script
        ("\u2460 \u00b2", "1 2"),  # compatibility digits
        ("\ufb01ne", "fine"),
        ("N\u0301ORMAL", "NORMAL"),
        ("1\u0301", "1"),
        ("\u0301x", "\u0301x"),  # a mark with no letter before it stays
        ("\u33c2\u0301", "a.m.\u0301"),  # after an expansion, the mark follows its last character
        ("\u00d3K \u00e9t\u00e9", "OK ete"),
        ("\u041e\u041a", "OK"),  # Cyrillic look-alikes
        ("\u042c\u01c0\u13a0\u0261", "blDg"),  # the case kept where the data allows
        ("\u04c0ATE", "IATE"),  # a capital that imitates "l" is an I
        ("AMM\u00a072\u201100 \u3000x", "AMM 72-00  x"),
        ("a\u1680b", "a b"),  # the Ogham space mark: a space with no compatibility form
        ("\u2212\u2010\uff0d\ufe63", "----"),
        ("\u200bpass\u200bword\u2060", "password"),
        ("\U000e0041x\u3164y", "xy"),
        ("\u00ad", ""),
        ("\u2013 \u2014", "\u2013 \u2014"),  # en and em dashes separate words: kept
        ("\u4e2d\u6587", "\u4e2d\u6587"),  # letters with no ASCII look-alike
    ],
)
def test_each_kind_of_character_has_its_canonical_form(text: str, canon: str) -> None:
    c = canonical(text)
    assert c.text == canon
    assert c.original == text
    assert c.changed is (canon != text)


def test_a_text_that_needs_no_change_is_not_changed() -> None:
    assert canonical("plain text").changed is False
    assert canonical("\u4e2d").changed is False


def test_offsets_map_back_through_expansions_and_removals() -> None:
    c = canonical("a\ufb01b\u200bc")  # canonical "afibc": "fi" is one character, the space is gone
    assert c.text == "afibc"
    assert [c.offset(p) for p in range(6)] == [0, 1, 1, 2, 4, 5]
    assert c.span(1, 3) == (1, 2)  # the whole ligature
    assert c.span(2, 3) == (1, 2)  # half of it: still the ligature
    assert c.span(1, 2) == (1, 2)
    assert c.span(0, 4) == (0, 3)
    assert c.span(3, 5) == (2, 5)
    assert c.span(3, 3) == (2, 2)
    assert c.span(4, 2) == (4, 4)
    assert c.source(0, 5) == "a\ufb01b\u200bc"
    assert c.source(4, 5) == "c"


def test_offsets_at_the_ends_of_the_text() -> None:
    lead = canonical("\u200bx")
    assert (lead.text, lead.span(0, 1), lead.offset(0)) == ("x", (1, 2), 1)
    trail = canonical("x\u200b")
    # the end of the canonical text is the end of the original, as for a text with no change
    assert (trail.text, trail.span(0, 1), trail.offset(1), trail.offset(5)) == ("x", (0, 1), 2, 2)
    lig = canonical("\ufb01")
    assert [lig.span(0, 1), lig.span(1, 2), lig.span(0, 2)] == [(0, 1), (0, 1), (0, 1)]
    same = canonical("\u00d3K")  # one character for one: offsets are the same
    assert (same.offset(1), same.offset(9), same.span(0, 2)) == (1, 2, (0, 2))
    gone = canonical("a\x01")
    assert gone.span(0, 1) == (0, 1)
    assert gone.offset(-3) == 0


def test_a_removal_in_the_middle_shifts_the_rest() -> None:
    c = canonical("ab\x01\x02cd\x03ef")
    assert c.text == "abcdef"
    assert [c.offset(p) for p in range(7)] == [0, 1, 4, 5, 7, 8, 9]
    assert c.source(1, 5) == "b\x01\x02cd\x03e"
    assert c.source(2, 4) == "cd"


#: every invisible character the canonical form removes by code point (fillers, selectors, joiners)
IGNORABLE = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F]
IGNORABLE += [0xFE00, 0xFE0F, 0xE0100, 0xE01EF]


@pytest.mark.parametrize("cp", IGNORABLE, ids=hex)
def test_each_invisible_filler_or_selector_is_removed(cp: int) -> None:
    assert canonical(f"a {chr(cp)}b").text == "a b"
    assert canonical(f"x{chr(cp)}").text == "x"


@pytest.mark.parametrize(
    ("cp", "canon"),
    [
        (0x034E, "\u034e"),
        (0x0350, "\u0350"),
        (0x115E, "\u115e"),
        (0x1161, "\u1161"),
        (0x17B3, "\u17b3"),
        (0x17B6, "\u17b6"),
        (0x3163, "\u1175"),
        (0x3165, "\u1114"),
        (0xFF9F, "\u309a"),
        (0xFFA1, "\u1100"),
        (0x180A, "\u180a"),
        (0x1810, "0"),
        (0xFDFF, "\ufdff"),
        (0xFE10, ","),
        (0xE00FF, "\U000e00ff"),
        (0xE01F0, "\U000e01f0"),
    ],
    ids=lambda v: hex(v) if isinstance(v, int) else "",
)
def test_the_neighbours_of_the_invisible_ones_are_kept(cp: int, canon: str) -> None:
    assert canonical(chr(cp)).text == canon


def test_texts_asked_for_in_turn_each_get_their_own_canonical_form() -> None:
    # the recent texts are remembered by identity: a text is never answered with another's form
    texts = ["plain ascii", "\u043eil \u0440ressure", "zero\u200bwidth", "plain ascii!", "ﬁne", "x"]
    expected = ["plain ascii", "oil pressure", "zerowidth", "plain ascii!", "fine", "x"]
    for _ in range(3):
        for text, want in zip(texts, expected, strict=True):
            c = canonical(text)
            assert (c.text, c.original) == (want, text)


@pytest.mark.parametrize(
    ("written", "browsed"),
    [
        ("docs.acme.io", "docs.acme.io"),  # ASCII: as it is
        ("docs.ac\u200bme.io", "docs.acme.io"),  # a zero-width space (format character) out
        ("docs.ac\u00adme.io", "docs.acme.io"),  # a soft hyphen out
        ("docs.ac\ufe0fme.io", "docs.acme.io"),  # a variation selector (default-ignorable) out
        ("docs.ac\x07me.io", "docs.acme.io"),  # an ASCII control out
        ("docs.ac\x85me.io", "docs.acme.io"),  # a C1 control out
        ("a\tb\nc", "a\tb\nc"),  # tab and line break stay
        ("\uff44\uff4f\uff43\uff53.acme.io", "docs.acme.io"),  # full-width letters: NFKC
        ("docs.\u0430cme.io", "docs.\u0430cme.io"),  # a Cyrillic look-alike stays itself
        ("\u00e9t\u00e9.fr", "\u00e9t\u00e9.fr"),  # letters with accents stay
    ],
)
def test_as_browsed_drops_what_is_invisible_and_maps_no_look_alike(written: str, browsed: str) -> None:
    assert as_browsed(written) == browsed
