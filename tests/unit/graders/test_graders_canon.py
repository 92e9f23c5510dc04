"""The canonical form every grader reads: disguises vanish, the original stays quotable."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion
from proctor.graders._canon import _confusables, canonical, canonical_text

#: Invisible characters an adversary slips into a word
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u180e"
#: Space variants and hyphen variants
SPACES = "\u00a0\u2002\u2003\u2007\u2009\u202f\u205f\u3000"
HYPHENS = "\u2010\u2011\u2012\u2212\ufe63\uff0d"


def lookalikes() -> dict[str, list[str]]:
    """ASCII letter -> the non-ASCII letters Unicode's data says imitate it."""
    out: dict[str, list[str]] = {}
    for char, ascii_char in _confusables().items():
        out.setdefault(ascii_char, []).append(char)
    return out


LOOKALIKES = lookalikes()
WORD = st.text(alphabet=string.ascii_letters + string.digits + " .,:;-()", min_size=1, max_size=40)


@settings(deadline=None)
@given(WORD, st.lists(st.tuples(st.integers(0, 40), st.sampled_from(INVISIBLE)), max_size=6))
def test_invisible_characters_vanish(text: str, inserts: list[tuple[int, str]]) -> None:
    disguised = text
    for pos, ch in sorted(inserts, reverse=True):
        disguised = disguised[:pos] + ch + disguised[pos:]
    assert canonical_text(disguised) == text


@settings(deadline=None)
@given(st.text(alphabet="NORMALELEVATEDHIGHPASSWORD", min_size=1, max_size=20), st.data())
def test_look_alike_letters_become_the_letters_they_imitate(word: str, data: st.DataObject) -> None:
    disguised = "".join(
        data.draw(st.sampled_from([c, *LOOKALIKES.get(c, [])]), label=f"for {c}") for c in word
    )
    assert canonical_text(disguised) == word


@settings(deadline=None)
@given(st.lists(st.sampled_from(["AMM", "72", "00", "qt", "0.30"]), min_size=2, max_size=5), st.data())
def test_space_and_hyphen_variants_unify(parts: list[str], data: st.DataObject) -> None:
    plain = " ".join(parts)
    fancy = "".join(p + data.draw(st.sampled_from(SPACES)) for p in parts[:-1]) + parts[-1]
    assert canonical_text(fancy) == plain
    dashed = "-".join(parts)
    fancy_dashes = "".join(p + data.draw(st.sampled_from(HYPHENS)) for p in parts[:-1]) + parts[-1]
    assert canonical_text(fancy_dashes) == dashed


def test_compatibility_forms_fold() -> None:
    assert canonical_text("\uff21\uff2b\uff29\uff21 \U0001d40d\U0001d40e\U0001d411") == "AKIA NOR"
    assert canonical_text("\ufb01ne") == "fine"  # the fi ligature
    assert canonical_text("N\u0301ORMAL \u00c9LEV\u00c9") == "NORMAL ELEVE"  # accents over ASCII letters
    assert canonical_text("\u0663\u0660 qt") == "30 qt"  # Arabic-Indic digits
    assert canonical_text("\u2018x\u2019 \u201cy\u201d") == "'x' \"y\""


def test_letters_never_become_digits() -> None:
    # Cyrillic Ze looks like 3, but a word must not turn into a figure
    assert canonical_text("\u0417") == "\u0417"


def test_letters_without_an_ascii_look_alike_are_kept() -> None:
    # only letters that imitate ASCII ones change: delta and lambda stay, alpha becomes a
    assert canonical_text("\u03b4\u03bb\u03b1") == "\u03b4\u03bba"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=5),
            st.sampled_from(
                [*INVISIBLE, *SPACES, *HYPHENS, "\ufb01", "\u00c9", "\u0301", "\uff21", "\u0430"]
            ),
        ),
        max_size=12,
    )
)
def test_every_canonical_span_maps_back_to_the_original(pieces: list[str]) -> None:
    original = "".join(pieces)
    c = canonical(original)
    previous = 0
    for i in range(len(c.text)):
        s, e = c.span(i, i + 1)
        assert 0 <= s < e <= len(original)
        assert s >= previous  # in order
        previous = s
        # the original character it came from canonicalises to text that holds it
        assert c.text[i] in canonical_text(original[s:e]) or original[s:e] == c.text[i]
    s, e = c.span(0, len(c.text))
    assert canonical_text(original[s:e]) == c.text


def test_reasons_quote_the_answer_as_written() -> None:
    answer = "It is N\u041eRMAL."  # a Cyrillic O
    check = compile_assertion(Assertion(type="contains", value="NORMAL")).check(answer)
    assert check.passed is True
    check = compile_assertion(Assertion(type="equals", value="ELEVATED")).check(answer)
    assert check.passed is False
    assert "N\u041eRMAL" in check.reason  # what the agent wrote, not the canonical form


def test_plain_ascii_is_returned_as_it_is() -> None:
    text = "ELEVATED: 0.30 qt/hr per AMM 72-00."
    c = canonical(text)
    assert c.text is text
    assert not c.changed
    assert c.span(3, 7) == (3, 7)
