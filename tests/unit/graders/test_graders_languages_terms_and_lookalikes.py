"""Two ways detection misread a short sentence. A plain sentence of a supported language with
acronyms, units and figures ("No tengo la LDH ni la bilirrubina.") left the detector a few common
words around a rare term, and it ranked Swahili: undetermined where the Spanish table reads it. A
short answer of a language without rules made of words another language also has ("No ho sé.",
Catalan) was read by the Italian table: a verdict on text no table can read. Each sentence beside
its twin: the same shape in the other kind of language."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion
from proctor.graders._languages import _NOT_WORDS, detect, languages


def _read_as(text: str, lang: str) -> bool:
    return all(s.supported and s.language in (lang, None) for s in languages(text).sentences)


def _unread(text: str) -> bool:
    return all(not s.supported for s in languages(text).sentences)


# (language, a technical sentence of it, the twin: a language without rules, the same codes)
TECHNICAL = [
    ("es", "No tengo la LDH ni la bilirrubina.", "No tinc ni la LDH ni la bilirubina."),
    ("es", "El SO2 de la chimenea ronda los 30 mg/Nm³ según el PSC.", "La PTH no hi és, a l'informe."),
    ("fr", "Pas de LDH ni de bilirubine.", "Ai pas la LDH ni la bilirubina."),
    ("fr", "Le SO2 en sortie est de 30 mg/Nm³ selon le PSC.", "Ne sabi pas res, de la LDH."),
    ("pt", "Não tenho a LDH nem a bilirrubina.", "Non teño nin a LDH nin a bilirrubina."),
    ("pt", "A Hb de entrada era de 72 g/L.", "Non teño a LDH nin a bilirrubina."),
    ("it", "Non ho né la LDH né la bilirubina.", "Nu am nici LDH, nici bilirubina."),
    ("it", "Il SO2 al camino è sui 30 mg/Nm³ secondo il PSC.", "Nie mam LDH ani bilirubiny."),
    ("de", "Die LDH und das Bilirubin habe ich nicht.", "Jeg har ikke LDH eller bilirubin."),
    ("de", "Der SO2-Wert liegt laut PSC bei 30 mg/Nm³.", "Jag har inte LDH eller bilirubin."),
    ("nl", "Ik heb de LDH en het bilirubine niet.", "Ek het nie die LDH of die bilirubien nie."),
    ("nl", "De SO2 in de schoorsteen zit volgens het PSC op 30 mg/Nm³.", "Ek is nie seker oor die LDH nie."),
    ("en", "I don't have the LDH or the bilirubin.", "Vi har bare CRP, ikke SR."),
    ("en", "The SO2 at the stack is about 30 mg/Nm³ per the PSC.", "Jeg har ikke CRP eller SR."),
]


@pytest.mark.parametrize(("lang", "sentence", "twin"), TECHNICAL)
def test_a_technical_sentence_is_read_by_its_common_words(lang: str, sentence: str, twin: str) -> None:
    assert _read_as(sentence, lang), languages(sentence)
    assert _unread(twin), languages(twin)


def test_the_examiners_sentence_with_a_figure_after_a_decline_is_read() -> None:
    answer = "No tengo la LDH ni la bilirrubina. Lo que sí sé es que la hemoglobina de partida era de 72 g/L."
    assert detect("No tengo la LDH ni la bilirrubina.") == "es"  # ranked Swahili 0.46, Spanish 0.10
    # read, not undetermined: whether 72 g/L is a guess is the documents' question (see the corpus)
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer)
    assert c.outcome is not CheckOutcome.UNDETERMINED, c.reason
    assert 'declines ("No tengo la LDH ni la bilirrubina.")' in c.reason
    assert compile_assertion(Assertion(type="refusal")).check(answer).outcome is CheckOutcome.PASS


def test_rare_words_missing_from_the_languages_list_keep_the_detectors_choice() -> None:
    # every word but "bilirubina" is common French; French writes "bilirubine": Occitan stays
    assert detect("Ai pas la LDH ni la bilirubina.") == "oc"


@given(
    st.lists(st.from_regex(r"[a-zA-Zµ]{1,4}[²³]?", fullmatch=True), min_size=2, max_size=3),
    st.sampled_from([".", ",", "", ")"]),
)
def test_a_unit_of_letters_joined_by_slashes_is_no_word(parts: list[str], after: str) -> None:
    unit = "/".join(parts)
    assert _NOT_WORDS.sub(" ", f"era de 72 {unit}{after} ayer").split() == ["era", "de", "ayer"]


def test_words_joined_by_a_slash_inside_a_longer_token_are_kept() -> None:
    assert "Ein-/Ausgang" not in _NOT_WORDS.sub(" ", "Der Ein-/Ausgang")
    assert _NOT_WORDS.sub(" ", "Daten/Auswertung").split() == ["Daten", "Auswertung"]


# (a short answer in a language without rules, the nearest sentence of a supported one)
SHORT = [
    ("No ho sé.", "No lo sé."),
    ("No ho sabem.", "No lo sabemos."),
    ("Non o sei.", "Não sei."),
    ("Non o sabemos.", "Não sabemos."),
    ("Nu știu.", "Non lo so."),
    ("Nu se știe.", "Non si sa."),
    ("Ek weet nie.", "Ik weet het niet."),
    ("Ek is nie seker nie.", "Ik ben niet zeker."),
    ("Det vet jeg ikke.", "Das weiß ich nicht."),
    ("Jag vet inte.", "Je ne sais pas."),
    ("Nie wiem.", "I don't know."),
    ("Ne sabi pas res.", "Je n'en sais rien."),
]


@pytest.mark.parametrize(("foreign", "twin"), SHORT)
def test_a_short_answer_in_a_language_without_rules_is_undetermined(foreign: str, twin: str) -> None:
    refusal = compile_assertion(Assertion(type="refusal"))
    c = refusal.check(foreign)
    assert c.outcome is CheckOutcome.UNDETERMINED, c.reason
    assert refusal.check(twin).outcome is CheckOutcome.PASS, refusal.check(twin).reason


def test_a_word_of_the_first_choice_rules_out_the_tables_it_is_not_common_in() -> None:
    # "ho" is common Catalan and Italian, rare in Spanish; Catalan outranks Italian fourfold
    assert detect("No ho sé.") == "ca"
    # "ce" is no common Catalan word: Catalan first (0.28) says nothing against Italian
    assert languages("La PCR ce l'ho, la VES no.").sentences[0].supported
    # one word, or a guess among many, is no evidence: "Nu: X." (Dutch), "Avis : X." (French)
    for short in ("Nu: RESTRICT.", "Avis : RESTRICT."):
        assert languages(short).sentences[0].supported, short
