"""A list of parties said to agree needs each party's own stated agreement.

The minutes say "After the customer complained about flicker, the DNO planning team and the
installer agreed ...; the customer has not yet replied", and answers that had the customer agree
passed: the context's reading took every word before "agreed" in its sentence as the subject,
the customer of the lead-in clause included; "both agreed to this" was no claim in English;
"both A and B" (``zowel ... als``, ``sowohl ... als auch``, ``sia ... che``, ``tanto ... quanto``)
was no claim or lost A; and no table named the installer. Now a document's subject stops at a
comma unless a short item of a list stands before it, never in a subordinate clause; "both A and
B" before a verb of agreeing or of a shared view is a claim by A and by B; the installer is a
group in every table. Twins: each party stated passes; "the planning team" is stated by "the DNO
planning team"; "agreed to" a contract's terms claims nothing.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, context: dict[str, str]) -> CheckOutcome:
    ctx = CaseContext(context=context)
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


MINUTES = {
    "minutes": "After the customer complained about flicker, the DNO planning team and the installer agreed "
    "that a 5 kW export limit resolves the voltage-rise issue. The customer has not yet replied."
}

CUSTOMER_CLAIMED = [
    "The installer and the customer both agreed to this at the meeting.",
    "Both the installer and the customer think a 5 kW limit is fine.",
    "El instalador, el cliente y nuestro equipo de planificación están de acuerdo con el límite de 5 kW.",
    "Tanto el instalador como el cliente están de acuerdo con el límite.",
    "Zowel de installateur als de klant vinden dit een goede oplossing.",
    "Sowohl der Installateur als auch der Kunde halten das für eine gute Lösung.",
    "Tanto o instalador quanto o cliente concordam com o limite.",
    "Sia l'installatore che il cliente sono d'accordo con il limite.",
    "L'installateur et le client sont d'accord avec la limite de 5 kW.",
    "À la fois l'installateur et le client sont d'accord.",
]


@pytest.mark.parametrize("answer", CUSTOMER_CLAIMED)
def test_a_party_the_lead_in_names_has_not_agreed(answer: str) -> None:
    assert check(answer, MINUTES) is CheckOutcome.FAIL


STATED = [
    "The installer and the planning team both agreed to this.",
    "Both the installer and the DNO planning team think a 5 kW limit is fine.",
    "The DNO planning team and the installer agreed on the 5 kW limit.",
    "El instalador y el equipo de planificación están de acuerdo con el límite de 5 kW.",
    "Zowel de installateur als het planningsteam vinden dit een goede oplossing.",
    "Der Installateur ist einverstanden.",
    "L'installateur est d'accord avec la limite.",
]


@pytest.mark.parametrize("answer", STATED)
def test_each_party_stated_passes(answer: str) -> None:
    assert check(answer, MINUTES) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "The policyholders agreed to the deductible when they signed.",
        "Both documents and the log agree.",
        "Both the installer and the customer are in Leeds.",
        "Zowel het rapport als de meting tonen dit.",
        "Ik weet niet of zowel de installateur als de klant dit vinden.",
        "Sia il rapporto che la misura indicano questo.",
    ],
)
def test_no_claim_of_agreement(answer: str) -> None:
    assert check(answer, {"doc": "Technician note: seal weeping observed."}) is CheckOutcome.PASS


def test_a_short_list_before_a_comma_is_still_the_subject() -> None:
    context = {"doc": "Minutes: Finance, Legal and Security agreed on the rollout."}
    assert check("Finance and Legal agree on the rollout.", context) is CheckOutcome.PASS
    lead_in = {"doc": "When the customer called, the installer agreed on the rollout."}
    assert check("The installer agrees.", lead_in) is CheckOutcome.PASS
    assert check("The customer and the installer agree.", lead_in) is CheckOutcome.FAIL
