"""The language tables (``languages/*.yaml``, ``proctor.graders._lexicon``): a malformed table is
refused when it loads, never read as a table that matches nothing; each phrase means what the
module documentation says (whole words, ``...`` for up to five words, ``*`` for any ending, a
phrase ending in an apostrophe glued to the next word, one starting with ``?`` after a word)."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.graders._canon import canonical_text
from proctor.graders._lexicon import _compile, find_number_words, find_refusal, lexicon, lexicons


def _table(**keys: Any) -> Any:
    return _compile({"language": "xx", **keys}, "languages/xx.yaml")


@pytest.mark.parametrize(
    "keys",
    [
        {"refusal": "je ne sais pas"},  # a string, not a list
        {"refusal": ["je ne sais pas", "  "]},
        {"refusal": ["je ne sais pas", 3]},
        {"numbers": ["deux", "trois"]},
        {"numbers": {"deux": "2"}},
        {"numbers": {"deux": True}},  # a boolean is no number
        {"numbers": {2: 2}},
    ],
)
def test_a_malformed_table_is_refused_with_where_and_what(keys: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"languages/xx\.yaml: (refusal|numbers) must"):
        _table(**keys)


def test_a_table_of_only_its_language_matches_nothing() -> None:
    t = _table()
    assert t.refusal.search("je ne sais pas") is None
    assert t.number_word.search("deux trois") is None
    assert find_number_words([t], "deux trois", 0) == []


def test_only_the_supported_languages_have_tables_each_checked_against_its_name() -> None:
    with pytest.raises(KeyError):
        lexicon("ja")
    assert [lex.language for lex in lexicons(["de", "ja", "fr"])] == ["fr", "de"]
    assert lexicons(["ja"]) == []


def _spans(t: Any, text: str) -> list[str]:
    """The phrases found in ``text`` as the graders read it (canonical: accents folded)."""
    return [m.group() for m in t.refusal.finditer(canonical_text(text).lower())]


def test_phrases_are_whole_words_in_any_spacing() -> None:
    t = _table(refusal=["je ne sais pas", "keine ahnung"])
    assert _spans(t, "Je ne  sais\npas.") == ["je ne  sais\npas"]
    assert _spans(t, "je ne sais pasteur, meine ahnung, keine ahnungen") == []
    assert _spans(t, "Keine Ahnung") == ["keine ahnung"]


def test_three_dots_stand_for_up_to_five_words() -> None:
    t = _table(refusal=["je ne ... répondre"])
    assert _spans(t, "je ne répondre") == ["je ne repondre"]
    five = "je ne peux pas vraiment bien y répondre"
    assert _spans(t, five) == [canonical_text(five)]
    assert _spans(t, "je ne peux pas du tout vraiment y répondre") == []  # six words between


def test_a_star_stands_for_any_ending() -> None:
    t = _table(refusal=["ignor*"])
    assert _spans(t, "ignore tout, nous ignorons") == ["ignore", "ignorons"]
    assert _spans(t, "signore, l'ignore") == []  # a phrase starts a word, not after an apostrophe


def test_an_apostrophe_glues_a_phrase_to_the_next_word() -> None:
    t = _table(refusal=["je l'", "aucune idée"])
    assert _spans(t, "je l'ignore") == ["je l'"]
    assert _spans(t, "je l' ignore") == ["je l'"]
    inner = _table(refusal=["je l' ignore"])  # inside a phrase too; the other words stay apart
    assert _spans(inner, "je l'ignore") == ["je l'ignore"] and _spans(inner, "jel'ignore") == []
    assert _spans(t, "aucune idéee") == []
    assert _spans(t, "Aucune idée") == ["aucune idee"]


def test_a_phrase_of_punctuation_first_or_last_needs_no_word_boundary_there() -> None:
    t = _table(refusal=["? nee", "nee.", "- nein"])
    assert _spans(t, "HIGH? nee") == ["? nee"]
    assert _spans(t, "nee.x") == ["nee."]
    assert _spans(t, "HIGH- nein") == ["- nein"]


def test_the_first_refusal_of_any_language_is_taken() -> None:
    text = "Das Triebwerk? Keine Ahnung. Je ne sais pas."
    span = find_refusal(lexicons(["fr", "de"]), text)
    assert span is not None and text[span[0] : span[1]] == "Keine Ahnung"
    assert find_refusal(lexicons(["fr"]), "Das Triebwerk? Keine Ahnung.") is None


def test_number_words_of_every_language_in_order_from_a_position() -> None:
    text = "deux moteurs, drei Pumpen, trois filtres"
    assert find_number_words(lexicons(["fr", "de"]), text, 0) == [(0, 4, 2.0), (14, 18, 3.0), (27, 32, 3.0)]
    assert find_number_words(lexicons(["fr", "de"]), text, 1) == [(14, 18, 3.0), (27, 32, 3.0)]
