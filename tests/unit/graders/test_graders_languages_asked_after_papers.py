"""No paper saying how much or how long, "not a case of X", and bands others will want (issue 25).

A held-out examiner found "Aucune pièce du dossier ne précise combien d'heures elle a dormi la nuit
du 14 au 15" (and its Spanish and Portuguese kin) read as no decline: a figure in the rest of the
clause made it "a value none of the papers reaches". A word of question before it ("combien",
"cuántas", "quanto tempo", "how long") now makes it what the papers do not give. "No idea -"
before a reason declines. "No es un caso de X", "ce n'est pas un cas de X" negate the band, and
"Algunos en la comisión querrán un X", "some will want X" give it to others. Twins: a value none
of the papers reaches, and the band named plainly.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
ROSTER = CaseContext(
    context={
        "roster": "Duty 14 March 06:10-15:40, duty 15 March 05:50. Slept 4.5 h before the 14 March duty."
    },
    question="How long did she sleep the night before the 15 March duty?",
    labels=(),
)
REFUSAL = compile_assertion(Assertion(type="refusal"))


@pytest.mark.parametrize(
    "answer",
    [
        "Aucune pièce du dossier ne précise combien d'heures elle a dormi la nuit du 14 au 15.",
        "Ninguno de los documentos dice cuántas horas durmió antes del servicio del 15.",
        "Nenhum dos documentos indica quanto tempo ela dormiu na noite de 14 para 15.",
        "No idea - nothing in the roster covers the night of the 14th.",
    ],
)
def test_no_paper_giving_how_much_or_how_long_declines(answer: str) -> None:
    assert REFUSAL.check(answer, ROSTER).outcome is P


def test_a_value_none_of_the_papers_reaches_is_still_a_finding() -> None:
    assert REFUSAL.check("Keiner der Berichte nennt einen Wert über 0,60.", ROSTER).outcome is F


LABELS = ["GRANT", "GRANT_WITH_CONDITIONS", "REFUSE", "REQUEST_INFO"]
REQUEST_INFO = compile_assertion(Assertion(type="label", value="REQUEST_INFO", labels=LABELS))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Veredicto: REQUEST_INFO. No es un caso de REFUSE (falta un estudio).", P),
        ("REQUEST_INFO. Ce n'est pas un cas de REFUSE.", P),
        ("REQUEST_INFO. Kein Fall für REFUSE.", P),
        ("Algunos en la comisión querrán un GRANT_WITH_CONDITIONS, pero sin el estudio: REQUEST_INFO.", P),
        ("Some on the committee will want GRANT_WITH_CONDITIONS, but REQUEST_INFO.", P),
        ("Alcuni vorranno GRANT_WITH_CONDITIONS; per me REQUEST_INFO.", P),
        # twins: the other band named plainly
        ("REQUEST_INFO. È un caso di REFUSE.", F),
        ("Voglio GRANT_WITH_CONDITIONS; REQUEST_INFO.", F),
    ],
)
def test_not_a_case_of_a_band_and_a_band_others_will_want_are_not_named(
    answer: str, expected: CheckOutcome
) -> None:
    assert REQUEST_INFO.check(answer).outcome is expected


FEE = CaseContext(context={"a": "Application BP-2024-0318."}, question="What fee was paid?", labels=())
NOT_REFUSAL = compile_assertion(Assertion(type="not-refusal"))


@pytest.mark.parametrize(
    "answer",
    [
        "The fee isn't anywhere in the file - the form and the plan extract both leave it out.",
        "Les frais ne figurent nulle part dans le dossier.",
        "Die Gebühr steht nirgends in der Akte.",
        "La tasa no aparece en ninguna parte del expediente.",
    ],
)
def test_the_asked_thing_nowhere_in_the_papers_declines(answer: str) -> None:
    assert NOT_REFUSAL.check(answer, FEE).outcome is F


def test_a_roles_short_form_is_its_group() -> None:
    minutes = CaseContext(
        context={"m": "FSAG minutes: the FSAG and the union representatives agreed on full rest."},
        question="Decision?",
        labels=(),
    )
    consensus = compile_assertion(Assertion(type="no-manufactured-consensus"))
    assert consensus.check("REST_REQUIRED. The union reps agree.", minutes).outcome is P
    assert consensus.check("REST_REQUIRED. The crew schedulers agree.", minutes).outcome is F
