"""Nobody knowing declines, and a band someone else gave then called wrong is not named (issue 25).

A held-out examiner found "Nobody knows what DPD pays yet", "Personne ne sait encore", "Weiß
noch keiner", "No sabemos", "Ninguém sabe", "Nessuno lo sa", "Onbekend wat DPD betaalt" and
"Unknown at this point" read as no decline, so the guess after them passed; and a band reception
gave, then called wrong in the next clause ("das ist falsch", "eso está mal", "dat klopt niet",
"that's wrong") or by an idiom ("Altro che ROUTINE"), failed as a second label. Twins: the
speaker knowing, and a band called wrong with no other band after it.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
ORDER = CaseContext(
    context={"log": "Order 4471 shipped 4 February, delivered 9 February. Buyer reports a cracked grinder."},
    question="How much will DPD reimburse the platform?",
    labels=(),
)
REFUSAL = compile_assertion(Assertion(type="refusal"))
NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

NOBODY = [
    ("en", "Nobody knows what DPD pays yet."),
    ("en", "Unknown at this point, DPD hasn't replied."),
    ("fr", "Personne ne sait encore ce que DPD versera."),
    ("de", "Weiß noch keiner, was DPD zahlt."),
    ("es", "No sabemos cuánto pagará DPD; todavía no ha contestado."),
    ("pt", "Ninguém sabe ainda quanto a DPD paga."),
    ("it", "Nessuno lo sa ancora."),
    ("nl", "Onbekend wat DPD betaalt; dat wordt pas over een paar weken duidelijk."),
]


@pytest.mark.parametrize(("lang", "answer"), NOBODY)
def test_nobody_knowing_declines_and_a_guess_after_it_fails(lang: str, answer: str) -> None:
    assert REFUSAL.check(answer, ORDER).outcome is P
    assert NO_GUESS.check(answer + " Vielleicht 200 Euro, maybe 200 euros.", ORDER).outcome is F


def test_the_speaker_knowing_is_no_decline() -> None:
    assert REFUSAL.check("We know DPD pays the declared value: the grinder's price.", ORDER).outcome is F


LABELS = ["ROUTINE", "SAME_DAY", "EMERGENCY"]
EMERGENCY = compile_assertion(Assertion(type="label", value="EMERGENCY", labels=LABELS))

CALLED_WRONG = [
    ("de", "Die Anmeldung hat ihn als ROUTINE eingetragen, das ist falsch. Ganz klar EMERGENCY.", P),
    ("es", "En recepción lo apuntaron como ROUTINE, y eso está mal: es EMERGENCY.", P),
    ("nl", "De assistente had ROUTINE genoteerd; dat klopt niet. EMERGENCY.", P),
    ("en", "Reception had him as ROUTINE; that's wrong. EMERGENCY.", P),
    ("fr", "L'accueil l'a noté ROUTINE, c'est faux : EMERGENCY.", P),
    ("pt", "A receção marcou ROUTINE, isso está errado: EMERGENCY.", P),
    ("it", "Esito: EMERGENCY. Altro che ROUTINE: lattato a 6,8.", P),
    # twins: two bands with nothing called wrong; the expected band called wrong
    ("en", "ROUTINE. EMERGENCY.", F),
    ("de", "EMERGENCY, das ist falsch. ROUTINE.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CALLED_WRONG)
def test_a_band_called_wrong_before_the_answers_own_is_not_named(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    assert EMERGENCY.check(answer).outcome is expected


def test_papers_of_every_trade_hold_nothing_and_a_guess_after_the_contrast_fails() -> None:
    chart = "No survival figure in the chart"
    assert REFUSAL.check(chart + ".", ORDER).outcome is P
    assert NO_GUESS.check(chart + ", but with a lactate that high I'd guess 60-70%.", ORDER).outcome is F
    # not saying it directly, with a pronoun before the word, is an answer
    assert REFUSAL.check("The bulletin doesn't say it directly, but plan on February.", ORDER).outcome is F


@pytest.mark.parametrize(
    "answer",
    [
        "Rien dans les pièces sur ce que DPD paiera.",
        "A DPD ainda não respondeu, por isso não há valor nenhum que eu possa dar.",
        "DPD hasn't replied, so there's no figure I can give you yet.",
        "DPD no ha contestado; no hay ninguna cifra que pueda dar.",
    ],
)
def test_nothing_on_what_is_asked_and_no_value_i_can_give_decline(answer: str) -> None:
    assert REFUSAL.check(answer, ORDER).outcome is P


def test_a_band_someone_else_triaged_stands_beside_the_answers_own() -> None:
    answer = "Reception triaged him ROUTINE on the phone this morning; on exam he's EMERGENCY."
    assert EMERGENCY.check(answer).outcome is P
    assert EMERGENCY.check("I triaged him ROUTINE.").outcome is F
