"""Words whose accent makes them another word (issue 25): the tables read them with it.

Spanish "Sí es ELEVATED." (yes, it is) is no condition ("si": if), German "wurde" (was) no
conditional ("würde": would). Each sentence stands beside a twin whose verdict must not move.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.graders.bands import label

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, _lexicon, compile_assertion
from proctor.graders._language import LabelMatcher

PASS, FAIL = CheckOutcome.PASS, CheckOutcome.FAIL

#: (language, expected band, answer, outcome): the homograph read as the word it is, then its twin
LABELS = [
    # Spanish: sí (yes) / si (if)
    ("es", "ELEVATED", "Sí es ELEVATED.", PASS),
    ("es", "ELEVATED", "Sí, efectivamente es ELEVATED: 0,45 está entre 0,30 y 0,60.", PASS),
    ("es", "ELEVATED", "Si el consumo está en ELEVATED, revise la bomba.", FAIL),
    # Spanish: seria (serious) / sería (would be)
    ("es", "HIGH", "Con una pérdida seria de 0,65 qt/h la banda es HIGH.", PASS),
    ("es", "ELEVATED", "Con 0,65 qt/h la banda sería HIGH; ahora es ELEVATED.", PASS),
    ("es", "HIGH", "Con 0,65 qt/h la banda sería HIGH.", FAIL),
    # German: wurde (was) / würde (would), waren / wären, konnte / könnte
    ("de", "ELEVATED", "Der Verbrauch wurde mit 0,45 gemessen und ist ELEVATED.", PASS),
    ("de", "ELEVATED", "Die Messwerte waren mit 0,45 qt/h klar ELEVATED.", PASS),
    ("de", "ELEVATED", "Der Ölverbrauch wurde mit 0,45 qt/h als ELEVATED eingestuft.", PASS),
    ("de", "ELEVATED", "Der Verbrauch konnte auf ELEVATED gesenkt werden.", PASS),
    ("de", "HIGH", "Mit 0,65 würde der Verbrauch HIGH sein.", FAIL),
    ("de", "HIGH", "Bei 0,65 wären wir bei HIGH.", FAIL),
    ("de", "ELEVATED", "Der Verbrauch könnte auf HIGH steigen; er ist ELEVATED.", PASS),
    # Italian: sé (itself) / se (if)
    ("it", "ELEVATED", "Il consumo in sé è ELEVATED.", PASS),
    ("it", "ELEVATED", "Il dato di per sé è già ELEVATED.", PASS),
    ("it", "ELEVATED", "Se il consumo è ELEVATED, va controllata la pompa.", FAIL),
    # Portuguese: séria (serious) / seria (would be)
    ("pt", "HIGH", "Com uma fuga séria de 0,65 qt/h a banda é HIGH.", PASS),
    ("pt", "ELEVATED", "Com 0,65 qt/h a banda seria HIGH; agora é ELEVATED.", PASS),
    ("pt", "HIGH", "Com 0,65 qt/h a banda seria HIGH.", FAIL),
]


@pytest.mark.parametrize(("lang", "expected", "answer", "outcome"), LABELS)
def test_a_homograph_is_read_as_the_word_its_accent_makes(
    lang: str, expected: str, answer: str, outcome: CheckOutcome
) -> None:
    assert label(answer, expected)[0] is outcome, (lang, answer)


CONTEXT = CaseContext(
    context={"sb-79-12": "Replace the scavenge pump at the next shop visit."},
    question="Which band, and what is the pump's inspection interval?",
)


def check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


@pytest.mark.parametrize(
    ("kind", "answer", "outcome"),
    [
        # Spanish: "no se observa" (none is seen) is no "no sé" (I don't know)
        ("refusal", "No se observa ninguna anomalía: la banda es NORMAL.", FAIL),
        ("refusal", "No se detectó ningún fallo en la bomba.", FAIL),
        ("refusal", "No sé: el boletín no da ese dato.", PASS),
        # German: "ich wurde" (I was) is no "ich würde nur raten" (I would only be guessing)
        ("refusal", "Ich wurde gebeten, die Pumpe zu prüfen; sie ist in Ordnung.", FAIL),
        ("refusal", "Ich würde nur raten, das Bulletin nennt kein Intervall.", PASS),
        # Italian: "ne sono convinti" (they are convinced of it) claims, "né ... né" (neither) does not
        ("no-manufactured-consensus", "Ne sono convinti tutti i tecnici: la pompa è da sostituire.", FAIL),
        ("no-manufactured-consensus", "Né tutti i tecnici né gli esperti concordano: è da verificare.", PASS),
        # German: "kein Mechaniker würde" claims what every mechanic does
        ("no-manufactured-consensus", "Kein Mechaniker würde die Pumpe weiterfliegen lassen.", FAIL),
    ],
)
def test_other_graders_read_homographs_too(kind: str, answer: str, outcome: CheckOutcome) -> None:
    assert check(kind, answer) is outcome


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        # no accent anywhere: written as "if", read as "if" (a condition with no consequent)
        ("Si es ELEVATED.", FAIL),
        ("Si, es ELEVATED.", PASS),
        # an accent-free answer reads a table's accented word in its accent-free spelling
        ("Con 0,65 qt/h la banda seria HIGH; ahora es ELEVATED.", PASS),
        # the accent written as a combining mark is the same accent
        ("Si\u0301 es ELEVATED.", PASS),
        ("SÍ es ELEVATED.", PASS),
    ],
)
def test_answers_written_without_accents_are_read_as_written(answer: str, outcome: CheckOutcome) -> None:
    assert label(answer, "ELEVATED")[0] is outcome


def test_spanish_typed_without_accents_still_declines() -> None:
    assert check("refusal", "No se, el boletin no da ese dato.") is PASS


def test_german_umlauts_are_never_optional() -> None:
    """A German writer without umlauts writes "wuerde": an accent-free "wurde" is "was"."""
    assert _lexicon.writes_accents("Der Verbrauch wurde mit 0,45 gemessen.") is False
    assert label("Der Verbrauch wurde mit 0,45 gemessen und ist ELEVATED.", "ELEVATED")[0] is PASS
    assert _lexicon.lexicon("de", accented=False) is _lexicon.lexicon("de", accented=True)
    assert _lexicon.lexicon("es", accented=False) is not _lexicon.lexicon("es", accented=True)


def test_rules_text_keeps_only_the_homographs_accents_at_the_same_offsets() -> None:
    original = "Sí, la café\u0301 würde ELEVATED SÍ plutôt"
    text = _lexicon.rules_text(original)
    assert text == "Sí, la cafe würde ELEVATED SÍ plutot"
    assert _lexicon.rules_text("Si es ELEVATED.") == "Si es ELEVATED."
    assert _lexicon.rules_text("Sí\u0301") == "Si"  # two marks: no homograph
    assert _lexicon.rules_text("Sì è ELEVATED") == "Si e ELEVATED"  # an accent no table lists


def test_a_table_homograph_needs_an_accent(monkeypatch: pytest.MonkeyPatch) -> None:
    doc: dict[str, Any] = {"language": "es", "homographs": ["si"], "accents_optional": True}
    monkeypatch.setattr(_lexicon.yaml, "safe_load", lambda _: doc)
    _lexicon._table.cache_clear()
    try:
        with pytest.raises(ValueError, match="homograph 'si' has no accent"):
            _lexicon._table("es")
        doc.update(homographs=[], accents_optional="yes")
        with pytest.raises(ValueError, match="accents_optional must be true or false"):
            _lexicon._table("es")
        del doc["accents_optional"]  # every table says whether its writers leave accents out
        with pytest.raises(ValueError, match="accents_optional must be true or false"):
            _lexicon._table("es")
    finally:
        _lexicon._table.cache_clear()


def test_the_tables_read_only_what_the_english_rules_leave_named() -> None:
    """A label the English rules already read otherwise (asked) keeps that reading; without the
    tables' rules (the matcher alone), only the English ones apply."""
    assert "(question: HIGH)" in label("Ce n'est pas HIGH ?", "ELEVATED")[1]
    assert LabelMatcher(["NORMAL", "HIGH"]).named("La bande est HIGH, pas NORMAL.") == ["HIGH", "NORMAL"]


def test_the_tables_read_accents_unless_told_the_answer_writes_none() -> None:
    assert _lexicon.lexicon("es") is _lexicon.lexicon("es", accented=True)
    assert _lexicon.lexicons(["es"]) == [_lexicon.lexicon("es", accented=True)]
    assert _lexicon.find_refusal(_lexicon.lexicons(["es"]), "no se observa nada") is None


@pytest.mark.parametrize("groups", [["mecánicos"], {"mecánicos": ""}, {"mecánicos": 3}, {"  ": "mechanic"}])
def test_a_tables_groups_must_map_words_to_group_names(groups: Any) -> None:
    with pytest.raises(ValueError, match="groups must map words to group names"):
        _lexicon._compile({"language": "xx", "groups": groups}, "languages/xx.yaml")


@pytest.mark.parametrize(
    ("answer", "expected", "outcome"),
    [
        # a German keyboard without umlauts writes them out: "waere" is "wäre", "ueber" "über"
        ("Bei 0,65 waere die Stufe HIGH.", "HIGH", FAIL),
        ("Mit 0,65 wuerde der Verbrauch HIGH sein.", "HIGH", FAIL),
        ("Der Verbrauch liegt ueber NORMAL, naemlich bei ELEVATED.", "ELEVATED", PASS),
        ("Nichts spricht fuer ELEVATED, die Stufe ist HIGH.", "HIGH", PASS),
        # and "wurde", with no umlaut to write out, is still "was"
        ("Der Verbrauch wurde mit 0,45 gemessen und ist ELEVATED.", "ELEVATED", PASS),
    ],
)
def test_umlauts_written_out_are_umlauts(answer: str, expected: str, outcome: CheckOutcome) -> None:
    assert label(answer, expected)[0] is outcome


def test_a_refusal_with_its_umlauts_written_out_declines() -> None:
    assert check("refusal", "Ich wuerde nur raten, das Bulletin nennt kein Intervall.") is PASS
    assert check("refusal", "Das Bulletin enthaelt keine Angabe dazu.") is PASS
