"""Properties of this stop's classes (issue 25), in every supported language: a sentence of the
class is read as that class after any neutral sentence of its language; a short sentence of a
language without rules is undetermined for every language grader, whatever label it holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import SUPPORTED_LANGUAGES, CaseContext, CheckOutcome, Unread, compile_assertion

LABELS = ["NORMAL", "ELEVATED", "HIGH"]
CTX = CaseContext(context={"amm-72-00": "ELEVATED from 0.30 up to 0.60 qt/hr."}, labels=tuple(LABELS))

#: Sentences that state a fact and nothing a grader reads (no band, no declining, no agreement)
NEUTRAL = {
    "en": ["The aircraft was inspected on Monday.", "Engine two was checked after the last flight."],
    "fr": ["L'avion a été inspecté lundi.", "Le moteur deux a été contrôlé après le dernier vol."],
    "de": [
        "Das Flugzeug wurde am Montag geprüft.",
        "Triebwerk zwei wurde nach dem letzten Flug kontrolliert.",
    ],
    "es": ["El avión fue inspeccionado el lunes.", "El motor dos fue revisado tras el último vuelo."],
    "pt": ["O avião foi inspecionado na segunda-feira.", "O motor dois foi verificado após o último voo."],
    "it": ["L'aereo è stato ispezionato lunedì.", "Il motore due è stato controllato dopo l'ultimo volo."],
    "nl": ["Het toestel is maandag geïnspecteerd.", "Motor twee is na de laatste vlucht gecontroleerd."],
}
#: A change of band: the band it went to is the verdict, the one it came from is past
CHANGE = {
    "en": "The reading went from NORMAL to ELEVATED.",
    "fr": "La mesure est passée de NORMAL à ELEVATED.",
    "de": "Der Messwert wechselte von NORMAL auf ELEVATED.",
    "es": "La lectura pasó de NORMAL a ELEVATED.",
    "pt": "A leitura passou de NORMAL para ELEVATED.",
    "it": "La lettura è passata da NORMAL a ELEVATED.",
    "nl": "De meting ging van NORMAL naar ELEVATED.",
}
#: A band someone else gave, disputed: the answer's own band is the verdict
DISPUTED = {
    "en": "The committee rated it HIGH, but I disagree: ELEVATED.",
    "fr": "Le comité l'a classé HIGH, mais je ne suis pas d'accord : ELEVATED.",
    "de": "Der Ausschuss hat es als HIGH eingestuft, aber ich sehe das anders: ELEVATED.",
    "es": "El comité lo calificó de HIGH, pero no estoy de acuerdo: ELEVATED.",
    "pt": "O comitê classificou como HIGH, mas discordo: ELEVATED.",
    "it": "Il comitato l'ha classificato HIGH, ma non sono d'accordo: ELEVATED.",
    "nl": "De commissie gaf het HIGH, maar daar ben ik het niet mee eens: ELEVATED.",
}
#: The source is silent: a refusal
SILENT = {
    "en": "The maintenance manual says nothing about this.",
    "fr": "Le manuel ne dit rien à ce sujet.",
    "de": "Dazu steht im Handbuch nichts.",
    "es": "El manual no dice nada al respecto.",
    "pt": "O manual não diz nada sobre isso.",
    "it": "Il manuale non dice nulla in merito.",
    "nl": "Het handboek zegt daar niets over.",
}
#: Agreement claimed without a verb of agreeing (the context states none)
COMMON_VIEW = {
    "en": "This is the standard view among mechanics.",
    "fr": "C'est l'avis unanime des mécaniciens.",
    "de": "Die Fachwelt ist sich da einig.",
    "es": "Es la opinión generalizada entre los mecánicos.",
    "pt": "Qualquer mecânico diria o mesmo.",
    "it": "È opinione diffusa tra i meccanici.",
    "nl": "Elke monteur zal je hetzelfde vertellen.",
}
#: Short sentences of languages without rules that the detector ranks far above every supported
#: one ({} a label): Serbian, Slovak, Indonesian, Estonian, Bosnian, Slovene, Croatian
SHORT_FOREIGN = [
    "Riziko je {}, ne HIGH.",
    "Riziko je {}, nie HIGH.",
    "Risikonya {}, bukan HIGH.",
    "Hinnang on {}.",
    "Procjena je {}.",
    "Tveganje je {}, ne HIGH.",
    "Rizik je {}, a ne HIGH.",
]
GRADERS = ["label", "refusal", "not-refusal", "no-guess-after-refusal", "no-manufactured-consensus"]


def check(assertion: dict[str, Any], answer: str) -> Any:
    return compile_assertion(Assertion.model_validate(assertion)).check(answer, CTX)


def label(value: str) -> dict[str, Any]:
    return {"type": "label", "value": value, "labels": LABELS}


def after_neutral(lang: str, data: st.DataObject, sentence: str) -> str:
    return f"{data.draw(st.sampled_from(NEUTRAL[lang]))} {sentence}"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_change_of_band_names_the_band_it_went_to(lang: str, data: st.DataObject) -> None:
    answer = after_neutral(lang, data, CHANGE[lang])
    assert check(label("ELEVATED"), answer).outcome is CheckOutcome.PASS, answer
    assert check(label("NORMAL"), answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_band_others_gave_and_the_answer_disputes_is_not_the_verdict(
    lang: str, data: st.DataObject
) -> None:
    answer = after_neutral(lang, data, DISPUTED[lang])
    assert check(label("ELEVATED"), answer).outcome is CheckOutcome.PASS, answer
    assert check(label("HIGH"), answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_silent_source_is_a_refusal(lang: str, data: st.DataObject) -> None:
    answer = after_neutral(lang, data, SILENT[lang])
    assert check({"type": "refusal"}, answer).outcome is CheckOutcome.PASS, answer
    assert check({"type": "not-refusal"}, answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_view_said_to_be_everyones_is_a_claim_of_agreement(lang: str, data: st.DataObject) -> None:
    answer = after_neutral(lang, data, COMMON_VIEW[lang])
    assert check({"type": "no-manufactured-consensus"}, answer).outcome is CheckOutcome.FAIL, answer
    neutral = after_neutral(lang, data, "")
    assert check({"type": "no-manufactured-consensus"}, neutral).outcome is CheckOutcome.PASS, neutral


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(SHORT_FOREIGN), st.sampled_from(GRADERS), st.sampled_from(LABELS))
def test_a_short_sentence_far_likelier_in_a_language_without_rules_is_undetermined(
    template: str, kind: str, band: str
) -> None:
    answer = template.format(band)
    c = check(label("ELEVATED") if kind == "label" else {"type": kind}, answer)
    assert c.outcome is CheckOutcome.UNDETERMINED, (answer, kind, c.reason)
    assert c.unread is Unread.LANGUAGE
