"""The phrase sets' speed-ups change no result: a phrase is tried only when one of its keywords is
in the text, and matched case-sensitively on the lower-cased text; both give the spans that every
phrase, matched case-insensitively on the text itself, gives. This is why the mutants of that
branch are listed as equivalent in hack/mutate-exclusions.toml."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from proctor.graders._canon import canonical_text
from proctor.graders._language import CONSENSUS, REFUSAL, PhraseSet

PIECES = [
    "I can't tell from what I have",
    "I am unable to confirm",
    "The manual is silent on that",
    "the notes say nothing",
    "not specified in the manual",
    "There is no mention of",
    "cannot be determined",
    "I'd only be guessing",
    "Experts agree",
    "it is widely accepted",
    "no one questions",
    "we all know",
    "the consensus is",
    "Pilots, however, agree",
    "ELEVATED",
    "0.45 qt/hr",
    "stra\u00dfe",
    "\u00c9l\u00e9vation",
    "\u0130stanbul",
    "\u1e9e",
]
CASES = [str.lower, str.upper, str.title, str]


def every_phrase_case_insensitively(phrases: PhraseSet, text: str) -> list[tuple[int, int]]:
    return sorted(m.span() for src in phrases._sources for m in re.finditer(src, text, re.IGNORECASE))


@given(
    st.lists(
        st.tuples(st.sampled_from(PIECES), st.sampled_from(CASES), st.sampled_from([" ", ". ", ", ", "\n"])),
        min_size=1,
        max_size=6,
    )
)
def test_keyword_gating_and_lower_casing_find_what_every_phrase_finds(parts: list) -> None:
    text = canonical_text("".join(case(piece) + sep for piece, case, sep in parts))
    for phrases in (REFUSAL, CONSENSUS):
        expected = every_phrase_case_insensitively(phrases, text)
        assert phrases.spans(text) == expected, text
        assert phrases.spans(text, first=True) == expected[:1], text
