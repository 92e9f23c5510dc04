"""Properties over the tables themselves (issue 25): every entry of a class reads as that class in
its own language, not only the sentences a test happened to write: a retraction of any table,
after a band and before the band that corrects it, takes the first back (210 phrases); any source
noun with any verb of not saying declines (the first dozen nouns of each table with every verb)."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._lexicon import TABLE_LANGUAGES, _table

LABELS = ["NORMAL", "ELEVATED", "HIGH"]
CTX = CaseContext(context={"amm-72-00": "ELEVATED from 0.30 up to 0.60 qt/hr."}, labels=tuple(LABELS))
LABEL = compile_assertion(Assertion(type="label", value="ELEVATED", labels=LABELS))
REFUSAL = compile_assertion(Assertion(type="refusal"))

#: A clause before the band, in each language, so the sentence is long enough to be detected
FIRST = {
    "en": "In the first report I wrote HIGH",
    "fr": "Dans le premier rapport, j'avais noté HIGH",
    "de": "Im ersten Bericht hatte ich HIGH eingetragen",
    "es": "En el primer informe había puesto HIGH",
    "pt": "No primeiro relatório eu tinha registado HIGH",
    "it": "Nel primo rapporto avevo segnato HIGH",
    "nl": "In het eerste rapport had ik HIGH genoteerd",
}
#: The corrected band, in each language
NOW = {
    "en": "The band is ELEVATED.",
    "fr": "La bande est ELEVATED.",
    "de": "Die Stufe ist ELEVATED.",
    "es": "La banda es ELEVATED.",
    "pt": "A faixa é ELEVATED.",
    "it": "La fascia è ELEVATED.",
    "nl": "De band is ELEVATED.",
}


def _plain(phrases: list[str]) -> list[str]:
    """A table's phrases that are whole words (no gap, no stem, no punctuation of their own)."""
    return [p for p in phrases if "..." not in p and "*" not in p and "~" not in p and p[-1].isalpha()]


RETRACTIONS = [(lang, p) for lang in TABLE_LANGUAGES for p in _plain(_table(lang).get("retracted_after", []))]
NOT_SAID = [
    (lang, noun, verb)
    for lang in TABLE_LANGUAGES
    for noun in _plain(_table(lang).get("source_nouns", []))[:12]
    for verb in _plain(_table(lang).get("not_said", []))
    if lang != "en"
]


def _check(assertion: Any, answer: str) -> CheckOutcome:
    return assertion.check(answer, CTX).outcome


@pytest.mark.parametrize("lang", TABLE_LANGUAGES)
def test_every_retraction_of_the_tables_takes_back_the_band_before_it(lang: str) -> None:
    phrases = [p for lg, p in RETRACTIONS if lg == lang]
    assert phrases
    wrong = [p for p in phrases if _check(LABEL, f"{FIRST[lang]}; {p}. {NOW[lang]}") is not CheckOutcome.PASS]
    assert not wrong, wrong


@pytest.mark.parametrize("lang", [lang for lang in TABLE_LANGUAGES if lang != "en"])
def test_every_source_with_every_verb_of_not_saying_declines(lang: str) -> None:
    pairs = [(n, v) for lg, n, v in NOT_SAID if lg == lang]
    assert pairs
    # after a sentence of the language, so the short one is read as that language
    wrong = [
        (n, v)
        for n, v in pairs
        if _check(REFUSAL, f"{FIRST[lang]}. {n.capitalize()} {v}.") is not CheckOutcome.PASS
    ]
    assert not wrong, wrong
