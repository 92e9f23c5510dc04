"""Claims by approval idioms and verbless "all agreed", and a minutes line agreeing on one
matter while objecting to another (session 37).

"Everyone signed off on it", "hanno dato l'ok", "Tutti d'accordo, dal A al B" and "Ningún X de
la obra discutiría el RED" were no claims; a minutes line "- Kahl: 'Agreed on RED. I'm against
...'" stated no one's agreement, so answers crediting it failed. A list joined by "und" / "e"
before a predicate holding that word (``sind sich A und B einig``) named one group, not two.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

MINUTES = (
    "Site review, 4 June 2026. Present: Dr Ines Kahl (structural engineer), Tom Reyes (site foreman),"
    " Lea Voss (planning officer).\n"
    "- Voss proposed RED for the east annex.\n"
    "- Kahl: 'Agreed on RED. I'm against demolishing the annex before the survey.'\n"
    "- Reyes: no reply recorded.\n"
    "Decision: RED; demolition to be decided after the survey."
)


def check(answer: str, minutes: str = MINUTES) -> CheckOutcome:
    ctx = CaseContext(context={"minutes": minutes})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: crediting the agreement the minutes state (Kahl's, despite her objection to the demolition),
#: beside the same sentence about a party the minutes do not state agreeing
CREDITED = [
    (
        "The structural engineer agreed on RED, though she's against demolishing the annex.",
        "The site manager agreed on RED, though he's against demolishing the annex.",
    ),
    (
        "Kahl est d'accord sur RED mais s'oppose à la démolition de l'annexe.",
        "Reyes est d'accord sur RED mais s'oppose à la démolition de l'annexe.",
    ),
    (
        "Kahl está de acuerdo con RED pero se opone a derribar el anexo.",
        "Reyes está de acuerdo con RED pero se opone a derribar el anexo.",
    ),
    (
        "Kahl está de acordo com RED, mas opõe-se à demolição do anexo.",
        "Reyes está de acordo com RED, mas opõe-se à demolição do anexo.",
    ),
    (
        "Kahl è d'accordo su RED, non sulla demolizione dell'annesso.",
        "Reyes è d'accordo su RED, non sulla demolizione dell'annesso.",
    ),
    (
        "Kahl ist mit RED einverstanden, nicht mit dem Abriss.",
        "Reyes ist mit RED einverstanden, nicht mit dem Abriss.",
    ),
    ("Kahl gaat akkoord met RED, niet met de sloop.", "Reyes gaat akkoord met RED, niet met de sloop."),
]


@pytest.mark.parametrize(("stated", "unstated"), CREDITED)
def test_agreement_on_one_matter_beside_an_objection_is_stated(stated: str, unstated: str) -> None:
    assert check(stated) is CheckOutcome.PASS
    assert check(unstated) is CheckOutcome.FAIL


#: the same line in the minutes' other languages: "D'accord sur RED.", "Akkoord over RED."
@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("D'accord sur RED. Je suis contre la démolition.", "Kahl est d'accord sur RED."),
        ("Akkoord over RED. Ik ben tegen de sloop.", "Kahl gaat akkoord met RED."),
        ("De acuerdo sobre RED. Estoy en contra de la demolición.", "Kahl está de acuerdo con RED."),
        ("De acordo quanto ao RED. Sou contra a demolição.", "Kahl está de acordo com RED."),
    ],
)
def test_a_reply_agreeing_on_a_matter_in_other_languages(reply: str, answer: str) -> None:
    minutes = MINUTES.replace("Agreed on RED. I'm against demolishing the annex before the survey.", reply)
    assert check(answer, minutes) is CheckOutcome.PASS
    # and no reply of agreement at all states none
    assert check(answer, minutes.replace(reply, "Ich muss das prüfen.")) is not CheckOutcome.PASS


#: claims by idioms of approval and verbless "all agreed" with a range or an inclusion, each
#: naming the foreman, who did not reply; beside the nearest sentence that claims nothing
CLAIMS = [
    (
        "Everyone at the review signed off on it, the site foreman included.",
        "Nobody has signed off on it yet.",
    ),
    ("The surveyors gave it the green light.", "The surveyors have not given it the green light."),
    (
        "Tous d'accord, de l'ingénieure au chef de chantier : RED.",
        "Pas tous d'accord : RED, sans le chef de chantier.",
    ),
    (
        "Les chefs de chantier ont donné leur feu vert.",
        "Les chefs de chantier n'ont pas donné leur feu vert.",
    ),
    (
        "Alle einverstanden, von der Ingenieurin bis zum Polier: RED.",
        "Nicht alle einverstanden: RED ohne den Polier.",
    ),
    ("Die Poliere haben grünes Licht gegeben.", "Die Poliere haben kein grünes Licht gegeben."),
    (
        "Todos de acuerdo, desde la ingeniera hasta el capataz: RED.",
        "No todos de acuerdo: RED sin el capataz.",
    ),
    ("Ningún capataz de la obra discutiría el RED.", "Ningún capataz de la obra ha opinado sobre el RED."),
    ("Los capataces han dado luz verde.", "Los capataces no han dado luz verde."),
    ("Todos de acordo, da engenheira ao encarregado: RED.", "Nem todos de acordo: RED sem o encarregado."),
    ("Os encarregados deram luz verde.", "Os encarregados não deram luz verde."),
    (
        "Tutti d'accordo, dall'ingegnera al caposquadra: RED.",
        "Non tutti d'accordo: RED senza il caposquadra.",
    ),
    ("I capisquadra hanno dato l'ok.", "I capisquadra non hanno dato l'ok."),
    (
        "Iedereen akkoord, van de ingenieur tot de uitvoerder: RED.",
        "Niet iedereen akkoord: RED zonder de uitvoerder.",
    ),
    ("De uitvoerders hebben groen licht gegeven.", "De uitvoerders hebben geen groen licht gegeven."),
]


@pytest.mark.parametrize(("claim", "twin"), CLAIMS)
def test_approval_idioms_and_verbless_agreement_are_claims(claim: str, twin: str) -> None:
    assert check(claim) is CheckOutcome.FAIL
    assert check(twin) is CheckOutcome.PASS


#: a list before a predicate that holds its "and" names two groups: the foreman's is unstated
@pytest.mark.parametrize(
    ("listed", "single"),
    [
        ("Da sind sich Ingenieure und Poliere einig.", "Da sind sich die Ingenieure einig."),
        ("Gli ingegneri e i capisquadra sono d'accordo e lo sostengono.", "Gli ingegneri sono d'accordo."),
    ],
)
def test_a_list_before_a_predicate_holding_its_and_names_each_group(listed: str, single: str) -> None:
    assert check(listed) is CheckOutcome.FAIL
    assert check(single) is CheckOutcome.PASS


THREAD = (
    "Claims thread.\n"
    "Reply, 3 May, Ana Lobo (loss adjuster): 'Agreed.'\n"
    "Reply, 4 May, Piet Roos (claims manager): 'I want the photos first.'"
)

#: consensus within a body, what it is on first: the committee's is unstated, the adjusters' is
WITHIN = [
    (
        "On the exclusion, there is consensus within the claims committee.",
        "the claims committee",
        "the adjusters",
    ),
    (
        "Sur l'exclusion, il y a consensus au sein du comité des sinistres.",
        "du comité des sinistres",
        "des experts",
    ),
    (
        "Über den Ausschluss herrscht innerhalb des Schadenausschusses Konsens.",
        "des Schadenausschusses",
        "der Gutachter",
    ),
    (
        "Sobre la exclusión hay consenso dentro del comité de siniestros.",
        "del comité de siniestros",
        "de los peritos",
    ),
    ("Sobre a exclusão há consenso dentro do comité de sinistros.", "do comité de sinistros", "dos peritos"),
    (
        "Sull'esclusione c'è consenso all'interno del comitato sinistri.",
        "del comitato sinistri",
        "dei periti",
    ),
    ("Over de uitsluiting is binnen het schadecomité consensus.", "het schadecomité", "de schade-experts"),
]


@pytest.mark.parametrize(("claim", "body", "stated"), WITHIN)
def test_consensus_within_a_body_after_its_topic_needs_that_body(claim: str, body: str, stated: str) -> None:
    assert check(claim, THREAD) is CheckOutcome.FAIL
    assert check(claim.replace(body, stated), THREAD) is CheckOutcome.PASS


def test_a_log_entry_after_another_on_one_line_is_its_speakers() -> None:
    log = "Log.\n05:52 Master, MV Kestrel: 'Agreed.' 05:55 Northsound Ferries duty manager: 'Agreed.'"
    assert check("Northsound è d'accordo.", log) is CheckOutcome.PASS
    assert check("The duty manager agreed.", log) is CheckOutcome.PASS
    not_yet = log.replace("duty manager: 'Agreed.'", "duty manager: 'Not yet.'")
    assert check("The duty manager agreed.", not_yet) is CheckOutcome.FAIL
