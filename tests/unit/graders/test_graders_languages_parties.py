"""The parties of a dispute or a service, named in the answer's language, are the parties whose
agreement the context states in English.

A tenant's e-mail "I agree to the deduction of 255 EUR", the landlady's "We agree" and the
agency's note "the landlady and the tenant agreed" state both parties' agreement, but
``El inquilino y la propietaria están de acuerdo`` was failed: no table translated the
parties, and a group no table translates is stated only by the same word. Each table now maps
the parties (tenant, landlord or landlady, owner, letting agent, buyer, seller, customer,
supplier, patient, doctor, claimant, respondent, employer, employee, guest, host, insurer,
policyholder, contractor), in their feminine and plural forms, to their English names. A party
the context does not state agreed stays a claim the context does not support.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, context: dict[str, str]) -> CheckOutcome:
    ctx = CaseContext(context=context)
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


LANDLADY = {"landlady-mail": "E-mail from the landlady, 3 June: 'We agree. Deposit back minus 255 EUR.'"}
BOTH = {
    "tenant-mail": "E-mail from the tenant, 2 June: 'I agree to the deduction of 255 EUR from the deposit.'",
    **LANDLADY,
    "agency-note": "Note from the letting agent: the landlady and the tenant agreed on 255 EUR.",
}
RENTAL = [
    "El inquilino y la propietaria están de acuerdo en los 255 €.",
    "De huurder staat erachter en de verhuurster ook: beiden hebben schriftelijk met € 255 ingestemd.",
    "De huurder en de verhuurster zijn het eens over de 255 euro.",
    "Le locataire et la propriétaire sont d'accord sur les 255 €.",
    "Der Mieter und die Vermieterin sind sich einig: 255 € werden einbehalten.",
    "L'inquilino e la proprietaria sono d'accordo sui 255 euro.",
    "O inquilino e a senhoria estão de acordo quanto aos 255 €.",
    "The tenant and the landlady agree on 255 EUR.",
    "La inquilina está de acuerdo con el descuento.",
    "Die Mieterin ist einverstanden.",
]


@pytest.mark.parametrize("answer", RENTAL)
def test_the_parties_of_a_tenancy_are_stated_in_english(answer: str) -> None:
    assert check(answer, BOTH) is CheckOutcome.PASS


@pytest.mark.parametrize("answer", RENTAL)
def test_a_party_whose_agreement_is_not_stated_stays_unsupported(answer: str) -> None:
    """The twins: only the landlady agreed."""
    assert check(answer, LANDLADY) is CheckOutcome.FAIL


#: (answer, a context stating both parties' agreement, one stating only the other party's)
PARTIES = [
    (
        "La compradora y el vendedor están de acuerdo en el precio.",
        "Note from the notary, 4 May: the buyer and the seller agreed on the price of 212,000 EUR.",
        "Note from the notary, 4 May: the seller agreed on the price; the buyer has not answered.",
    ),
    (
        "L'employeur et la salariée sont d'accord sur les conditions de départ.",
        "Minutes, 9 March: the employer and the employee agreed on the termination terms.",
        "Minutes, 9 March: the employer agreed on the termination terms. The employee asked for time.",
    ),
    (
        "Kundin und Lieferant sind sich einig, dass die Lieferung ersetzt wird.",
        "E-mail from the customer, 2 May: 'We agree to a replacement delivery.'\n"
        "E-mail from the supplier, 3 May: 'We agree.'",
        "E-mail from the supplier, 3 May: 'We agree to a replacement delivery.'",
    ),
    (
        "La ricorrente e il convenuto sono d'accordo sulla transazione.",
        "Hearing note, 12 June: the claimant and the respondent agreed to settle for 4,000 EUR.",
        "Hearing note, 12 June: the respondent agreed to settle for 4,000 EUR; the claimant refused.",
    ),
    (
        "A paciente e a médica estão de acordo quanto à cirurgia.",
        "Clinic note: the patient and the doctor agreed on surgery next month.",
        "Clinic note: the doctor agreed on surgery next month; the patient wants a second opinion.",
    ),
    (
        "De gast en de gastvrouw zijn het eens over de terugbetaling.",
        "Note from the platform: the guest and the host agreed on a refund of 80 EUR.",
        "Note from the platform: the host agreed on a refund of 80 EUR. The guest has not replied.",
    ),
    (
        "El asegurado y la aseguradora están de acuerdo con la tasación.",
        "Claim file: the policyholder and the insurer agreed on the valuation.",
        "Claim file: the insurer agreed on the valuation.",
    ),
    (
        "Die Arbeitnehmerin und der Arbeitgeber sind sich einig.",
        "Minutes: the employee and the employer agreed on a settlement.",
        "Minutes: the employer agreed on a settlement.",
    ),
    (
        "L'acheteuse et le vendeur sont d'accord sur le prix.",
        "Note: the buyer and the seller agreed on the price.",
        "Note: the seller agreed on the price.",
    ),
    (
        "Il cliente e il fornitore sono d'accordo sul rimborso.",
        "E-mail from the customer: 'We agree to the refund.'\nE-mail from the supplier: 'We agree.'",
        "E-mail from the supplier: 'We agree to the refund.'",
    ),
    (
        "O comprador e a vendedora estão de acordo.",
        "Note: the buyer and the seller agreed on the price.",
        "Note: the seller agreed on the price.",
    ),
    (
        "De werknemer en de werkgever zijn het eens over de regeling.",
        "Minutes: the employee and the employer agreed on the settlement.",
        "Minutes: the employer agreed on the settlement.",
    ),
]


@pytest.mark.parametrize(("answer", "both", "one"), PARTIES)
def test_the_parties_of_disputes_and_services_are_translated(answer: str, both: str, one: str) -> None:
    assert check(answer, {"doc": both}) is CheckOutcome.PASS
    assert check(answer, {"doc": one}) is CheckOutcome.FAIL
