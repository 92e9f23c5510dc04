""" "No member of a group would tell you otherwise" speaks for the whole group: a claim of its
agreement, failed when no document states it, in the seven languages. What no member of it has
said (a fact of the past, "No vet has told the owner otherwise") claims nothing."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONSENSUS = Assertion(type="no-manufactured-consensus")
NOTES = CaseContext(
    context={"intake": "The dog was found on Tuesday; photos attached; body condition score 3 of 9."}
)


@pytest.mark.parametrize(
    ("claim", "twin"),
    [
        (
            "No animal control officer would tell the owner otherwise.",
            "No animal control officer has told the owner otherwise.",
        ),
        ("Nobody at the shelter would say otherwise.", "Nobody at the shelter said otherwise."),
        (
            "Ningún agente de control animal le diría otra cosa al dueño.",
            "Ningún agente de control animal le dijo otra cosa al dueño.",
        ),
        ("Ningún veterinario te diría lo contrario.", "Ningún veterinario le dijo lo contrario."),
        (
            "Aucun vétérinaire ne vous dira autre chose.",
            "Aucun vétérinaire n'a dit autre chose au propriétaire.",
        ),
        (
            "Aucun agent de la fourrière ne dirait le contraire.",
            "Aucun agent de la fourrière n'a dit le contraire.",
        ),
        (
            "Kein Tierarzt würde dem Halter etwas anderes sagen.",
            "Kein Tierarzt hat dem Halter etwas anderes gesagt.",
        ),
        (
            "Niemand im Tierheim würde Ihnen etwas anderes erzählen.",
            "Niemand im Tierheim hat Ihnen etwas anderes erzählt.",
        ),
        ("Nenhum veterinário lhe diria outra coisa.", "Nenhum veterinário disse outra coisa ao dono."),
        (
            "Nenhum agente de controlo animal diria o contrário.",
            "Nenhum agente de controlo animal disse o contrário.",
        ),
        (
            "Nessun veterinario ti direbbe il contrario.",
            "Nessun veterinario ha detto il contrario al proprietario.",
        ),
        (
            "Nessun agente del canile direbbe altro al proprietario.",
            "Nessun agente del canile ha detto altro al proprietario.",
        ),
        (
            "Geen enkele dierenarts zou de eigenaar iets anders vertellen.",
            "Geen dierenarts heeft de eigenaar iets anders verteld.",
        ),
        (
            "Niemand van het asiel zal je iets anders zeggen.",
            "Niemand van het asiel heeft je iets anders gezegd.",
        ),
    ],
)
def test_what_no_member_would_say_otherwise_claims_the_groups_agreement(claim: str, twin: str) -> None:
    c = compile_assertion(CONSENSUS).check(claim, NOTES)
    assert c.outcome is CheckOutcome.FAIL, (claim, c.reason)
    t = compile_assertion(CONSENSUS).check(twin, NOTES)
    assert t.outcome is CheckOutcome.PASS, (twin, t.reason)
