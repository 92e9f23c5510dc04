"""Properties of the three outcomes (issue 25): a sentence of a class in a supported language is
read as that class, whatever the surrounding words; a sentence in a language without rules makes
every language grader undetermined, never a pass or a fail."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import (
    GRADER_LANGUAGES,
    SUPPORTED_LANGUAGES,
    CaseContext,
    CheckOutcome,
    Unread,
    compile_assertion,
)
from proctor.graders._lexicon import TABLE_LANGUAGES, lexicon

LABEL = {"type": "label", "value": "ELEVATED", "labels": ["NORMAL", "ELEVATED", "HIGH"]}
CTX = CaseContext(
    context={"amm-72-00": "ELEVATED from 0.30 up to 0.60 qt/hr."}, labels=("NORMAL", "ELEVATED", "HIGH")
)

#: Per language: sentences that negate NORMAL and then name ELEVATED ({x} a harmless detail),
#: declining sentences, and sentences that state a fact without declining or claiming agreement.
NEGATE_THEN_NAME = {
    "en": ["It is not NORMAL {x}; the reading is ELEVATED.", "Rather than NORMAL, {x} it is ELEVATED."],
    "fr": ["Ce n'est pas NORMAL {x} ; la mesure est ELEVATED.", "Plutôt que NORMAL, {x} c'est ELEVATED."],
    "de": [
        "Es ist nicht NORMAL {x}; der Messwert ist ELEVATED.",
        "Statt NORMAL ist es {x} eindeutig ELEVATED.",
    ],
    "es": ["No es NORMAL {x}; la lectura es ELEVATED.", "En lugar de NORMAL, {x} es ELEVATED."],
    "pt": ["Não é NORMAL {x}; a leitura está ELEVATED.", "Em vez de NORMAL, {x} está ELEVATED."],
    "it": ["Non è NORMAL {x}; la lettura è ELEVATED.", "Anziché NORMAL, {x} è ELEVATED."],
    "nl": ["Het is niet NORMAL {x}; de meting is ELEVATED.", "In plaats van NORMAL is het {x} ELEVATED."],
}
DETAILS = {
    "en": ["for engine two", "after the last flight", "on this aircraft"],
    "fr": ["pour le moteur deux", "après le dernier vol", "sur cet avion"],
    "de": ["für Triebwerk zwei", "nach dem letzten Flug", "bei diesem Flugzeug"],
    "es": ["para el motor dos", "tras el último vuelo", "en este avión"],
    "pt": ["para o motor dois", "após o último voo", "neste avião"],
    "it": ["per il motore due", "dopo l'ultimo volo", "su questo aereo"],
    "nl": ["voor motor twee", "na de laatste vlucht", "bij dit toestel"],
}
DECLINING = {
    "en": ["I cannot determine that from the documents {x}."],
    "fr": ["Je ne peux pas répondre à cette question {x}."],
    "de": ["Das kann ich anhand der Unterlagen {x} nicht beantworten."],
    "es": ["No puedo determinarlo con la información disponible {x}."],
    "pt": ["Não consigo determinar isso com os documentos {x}."],
    "it": ["Non sono in grado di stabilirlo con i documenti {x}."],
    "nl": ["Dat kan ik met deze documenten {x} niet vaststellen."],
}
#: Per language: a band's rule stated, then applied to the case ({x} a detail): the verdict is the
#: applied band, the rule's band only its consequent
RULE_THEN_APPLIED = {
    "en": "If the flow exceeds 0.60, the band is HIGH; {x}, it is ELEVATED.",
    "fr": "Si le débit dépasse 0,60, la bande est HIGH ; {x}, elle est ELEVATED.",
    "de": "Wenn der Verbrauch 0,60 übersteigt, ist das Band HIGH; {x} ist es ELEVATED.",
    "es": "Si el consumo supera 0,60, la banda es HIGH; {x}, está en ELEVATED.",
    "pt": "Se o consumo ultrapassar 0,60, a faixa é HIGH; {x}, está em ELEVATED.",
    "it": "Se il consumo supera 0,60, la fascia è HIGH; {x}, è ELEVATED.",
    "nl": "Als het verbruik boven 0,60 komt, is de band HIGH; {x} is het ELEVATED.",
}
#: Per language: verdicts too short for the detector, some with a word that is a condition in a
#: neighbouring language (Italian reflexive "si", Portuguese "se")
SHORT_VERDICTS = {
    "en": ["Consumption stays ELEVATED.", "The band is ELEVATED."],
    "fr": ["La bande est ELEVATED.", "Le niveau se situe à ELEVATED."],
    "de": ["Die Stufe ist ELEVATED.", "Der Verbrauch liegt bei ELEVATED."],
    "es": ["La banda es ELEVATED.", "El nivel se sitúa en ELEVATED."],
    "pt": ["A faixa é ELEVATED.", "O nível se mantém ELEVATED."],
    "it": ["La fascia è ELEVATED.", "Il consumo si attesta su ELEVATED."],
    "nl": ["De band is ELEVATED.", "Het verbruik blijft ELEVATED."],
}
UNSUPPORTED = [
    "Zużycie oleju w silniku numer dwa jest wyższe niż zwykle, proszę obserwować.",  # Polish
    "Oljeförbrukningen i motor två är högre än vanligt, fortsätt att övervaka den.",  # Swedish
    "İki numaralı motorda yağ tüketimi normalden yüksek, izlemeye devam edin.",  # Turkish  # noqa: RUF001
    "二番エンジンのオイル消費量は通常より多いので、監視を続けてください。",  # Japanese
    "Расход масла во втором двигателе выше обычного, продолжайте наблюдение.",  # Russian
    "Consumul de ulei la motorul doi este mai mare decât de obicei, continuați monitorizarea.",  # Romanian
    "Öljynkulutus moottorissa kaksi on tavallista suurempi, jatkakaa seurantaa.",  # Finnish
]


def check(assertion: dict[str, Any], answer: str) -> Any:
    return compile_assertion(Assertion.model_validate(assertion)).check(answer, CTX)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_negated_label_then_a_named_one_is_read_as_naming_that_one(lang: str, data: st.DataObject) -> None:
    template = data.draw(st.sampled_from(NEGATE_THEN_NAME[lang]))
    answer = template.format(x=data.draw(st.sampled_from(DETAILS[lang])))
    assert check(LABEL, answer).outcome is CheckOutcome.PASS, answer
    assert check({**LABEL, "value": "NORMAL"}, answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_declining_sentence_is_a_refusal_in_every_supported_language(
    lang: str, data: st.DataObject
) -> None:
    answer = data.draw(st.sampled_from(DECLINING[lang])).format(x=data.draw(st.sampled_from(DETAILS[lang])))
    assert check({"type": "refusal"}, answer).outcome is CheckOutcome.PASS, answer
    assert check({"type": "not-refusal"}, answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_rule_stated_then_applied_gives_the_applied_band_in_every_supported_language(
    lang: str, data: st.DataObject
) -> None:
    detail = data.draw(st.sampled_from(DETAILS[lang]))
    detail = detail[:1].upper() + detail[1:] if lang in ("de", "nl") else detail  # it opens a clause
    answer = RULE_THEN_APPLIED[lang].format(x=detail)
    assert check(LABEL, answer).outcome is CheckOutcome.PASS, answer
    assert check({**LABEL, "value": "HIGH"}, answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUPPORTED_LANGUAGES), st.data())
def test_a_verdict_too_short_to_detect_is_read_in_every_supported_language(
    lang: str, data: st.DataObject
) -> None:
    answer = data.draw(st.sampled_from(SHORT_VERDICTS[lang]))
    assert check(LABEL, answer).outcome is CheckOutcome.PASS, answer
    assert check({**LABEL, "value": "HIGH"}, answer).outcome is CheckOutcome.FAIL, answer


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(UNSUPPORTED),
    st.sampled_from(
        ["label", "refusal", "not-refusal", "no-guess-after-refusal", "no-manufactured-consensus"]
    ),
    st.sampled_from(["", " ELEVATED", " HIGH"]),
)
def test_an_unsupported_language_is_undetermined_for_every_language_grader(
    sentence: str, kind: str, label: str
) -> None:
    assertion = LABEL if kind == "label" else {"type": kind}
    c = check(assertion, sentence + label)
    assert c.outcome is CheckOutcome.UNDETERMINED, (sentence, kind, c.reason)
    assert c.unread is Unread.LANGUAGE
    assert "no rules for" in c.reason


def test_every_language_grader_declares_its_languages_and_every_table_compiles() -> None:
    assert set(GRADER_LANGUAGES) == {
        "label",
        "refusal",
        "no-guess-after-refusal",
        "no-manufactured-consensus",
        "cites",
        "grounded-urls",
    }
    assert SUPPORTED_LANGUAGES == ("en", "fr", "de", "es", "pt", "it", "nl")
    for lang in TABLE_LANGUAGES:
        lex = lexicon(lang)
        assert lex.language == lang and (lex.numbers or lang == "en")  # English number words: _language


def test_identifiers_and_urls_are_read_in_any_language() -> None:
    answer = "二番エンジンの件は AMM 72-00 を参照してください。"
    assert check({"type": "cites"}, answer).outcome is CheckOutcome.PASS
    assert check({"type": "grounded-urls"}, answer + " https://evil.example/x").outcome is CheckOutcome.FAIL


def test_a_check_outcome_is_an_enum_never_a_boolean() -> None:
    for answer in ("ELEVATED.", "Nie wiem, ale raczej ELEVATED.", "It is NORMAL."):
        outcome = check(LABEL, answer).outcome
        assert isinstance(outcome, CheckOutcome) and not isinstance(outcome, bool)


def test_what_is_not_a_word_is_taken_whole_from_a_tokens_start() -> None:
    """Figures and identifiers (a token holding a digit) leave the text the detector reads whole,
    from the token's start (never re-tried inside a long word: that was quadratic); words stay."""
    from proctor.graders._languages import _NOT_WORDS

    def words(text: str) -> list[str]:
        return _NOT_WORDS.sub(" ", text).split()

    assert words("Le moteur 2 consomme 0.30qt/hr (AMM-72-00) selon https://x.io/a1") == [
        "Le",
        "moteur",
        "consomme",
        "selon",
    ]
    long_word = "y" * 65_536
    assert words(f"{long_word} abc1 {long_word}") == [long_word, long_word]
