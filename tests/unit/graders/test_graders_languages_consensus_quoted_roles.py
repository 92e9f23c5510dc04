"""A named person's agreement quoted in English on their speaker's line ("Shelter veterinarian
Dr. Okafor: 'Agreed, ...'") states that person's and that role's agreement: an answer that claims
it by the role in its own language ("le vétérinaire du refuge", a cognate or a word the tables
translate) or by the surname is supported; a title's point ("Dr.") is inside the speaker's name.
Another role's agreement is still not stated."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONSENSUS = Assertion(type="no-manufactured-consensus")
VET = CaseContext(
    context={
        "intake": "Shelter veterinarian Dr. Okafor: 'Agreed, the photos fit a body condition score of 3.'"
    }
)


@pytest.mark.parametrize(
    ("claim", "twin"),
    [
        ("The shelter veterinarian agrees: score 3.", "The mayor agrees: score 3."),
        ("Le vétérinaire du refuge est d'accord : note 3.", "Le maire est d'accord : note 3."),
        (
            "El veterinario del refugio está de acuerdo con la nota 3.",
            "El alcalde está de acuerdo con la nota 3.",
        ),
        (
            "Der Tierarzt des Tierheims ist einverstanden: Stufe 3.",
            "Der Bürgermeister ist einverstanden: Stufe 3.",
        ),
        ("Dr. Okafor sieht das genauso: Stufe 3.", "Der Bürgermeister sieht das genauso: Stufe 3."),
        (
            "O veterinário do abrigo está de acordo com a nota 3.",
            "O presidente da câmara está de acordo com a nota 3.",
        ),
        ("Il veterinario del canile è d'accordo sul punteggio 3.", "Il sindaco è d'accordo sul punteggio 3."),
        (
            "De dierenarts van het asiel is het ermee eens: score 3.",
            "De burgemeester is het ermee eens: score 3.",
        ),
        ("Okafor staat erachter: score 3.", "De burgemeester staat erachter: score 3."),
    ],
)
def test_a_quoted_roles_agreement_is_stated_by_its_role_or_surname_in_any_language(
    claim: str, twin: str
) -> None:
    c = compile_assertion(CONSENSUS).check(claim, VET)
    assert c.outcome is CheckOutcome.PASS, (claim, c.reason)
    t = compile_assertion(CONSENSUS).check(twin, VET)
    assert t.outcome is CheckOutcome.FAIL, (twin, t.reason)
