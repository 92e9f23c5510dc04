"""Properties over the tables of what is lacking (issue 25): every phrase of ``not_recorded`` and
``missing_verbs`` of every language, after the asked thing as the subject of its own short clause,
reads as declining, and a hedged figure after it fails no-guess; every word of ``known_words``
after "no <thing>" does too. Not only the sentences a test happened to write."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._lexicon import TABLE_LANGUAGES, _table

CTX = CaseContext(
    context={
        "obs": "Avalanche on 20 January below the Jamtal hut: 25 cm of new snow, the wind sensor was down."
    },
    question="What was the wind speed when the avalanche released?",
)
REFUSAL = compile_assertion(Assertion(type="refusal"))
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

#: A sentence before the clause, so the answer is long enough to be detected in its language
LEAD = {
    "en": "About the avalanche below the hut on the twentieth.",
    "fr": "Pour l'avalanche sous le refuge, le vingt janvier.",
    "de": "Zur Lawine unterhalb der Hütte am zwanzigsten Januar.",
    "es": "Sobre el alud debajo del refugio, el veinte de enero.",
    "pt": "Sobre a avalanche abaixo do refúgio, a vinte de janeiro.",
    "it": "Sulla valanga sotto il rifugio, il venti gennaio.",
    "nl": "Over de lawine onder de hut op twintig januari.",
}
#: The asked thing, as a subject
THING = {
    "en": "The wind speed",
    "fr": "La vitesse du vent",
    "de": "Die Windgeschwindigkeit",
    "es": "La velocidad del viento",
    "pt": "A velocidade do vento",
    "it": "La velocità del vento",
    "nl": "De windsnelheid",
}
#: "No <thing>", for the words of known_words
NO_THING = {
    "en": "No wind speed",
    "fr": "Aucune vitesse de vent",
    "de": "Keine Windgeschwindigkeit",
    "es": "Ninguna velocidad del viento",
    "pt": "Nenhuma velocidade do vento",
    "it": "Nessuna velocità del vento",
    "nl": "Geen windsnelheid",
}
#: A hedged figure after the decline
GUESSED = {
    "en": "Probably about 50 km/h.",
    "fr": "Probablement autour de 50 km/h.",
    "de": "Vermutlich so um die 50 km/h.",
    "es": "Probablemente unos 50 km/h.",
    "pt": "Provavelmente uns 50 km/h.",
    "it": "Probabilmente sui 50 km/h.",
    "nl": "Waarschijnlijk zo'n 50 km/h.",
}


def _plain(phrases: list[str]) -> list[str]:
    return [p for p in phrases if "..." not in p and "*" not in p and p[-1].isalpha()]


LACKING = [
    (lang, f"{THING[lang]} {phrase}")
    for lang in TABLE_LANGUAGES
    for key in ("not_recorded", "missing_verbs")
    for phrase in _plain(_table(lang).get(key, []))
] + [
    (lang, f"{NO_THING[lang]} {word}")
    for lang in TABLE_LANGUAGES
    for word in _plain(_table(lang).get("known_words", []))
]


@pytest.mark.parametrize(("lang", "clause"), LACKING, ids=[f"{lang}:{c}" for lang, c in LACKING])
def test_every_phrase_of_what_is_lacking_declines_and_the_guess_after_it_fails(
    lang: str, clause: str
) -> None:
    answer = f"{LEAD[lang]} {clause}."
    c = REFUSAL.check(answer, CTX)
    assert c.outcome is CheckOutcome.PASS, c.reason
    c = GUESS.check(f"{answer} {GUESSED[lang]}", CTX)
    assert c.outcome is CheckOutcome.FAIL, c.reason
