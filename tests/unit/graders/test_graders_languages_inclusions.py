"""Each group an inclusion or a range names with a claim of agreement needs its own stated agreement.

"Sono tutti d'accordo, dalle guide al soccorso alpino" and "everyone agrees, the hut warden
included" were accepted because the context stated the guides' agreement: the words of a range
in the tables' languages were read as words that may only qualify another group, and inclusions
were not read at all. An inclusion right after a claim or set off inside it (``including``, ``y
compris``, ``einschließlich``, ``incluido``, ``incluindo``, ``compreso``, ``inclusief``, ``auch``,
``ook``, ``... included``, ``... compris``, ``... eingeschlossen``, ``... inbegrepen``) and
each end of a range now name groups whose agreement must be stated; one the context says
disagreed fails. What agreement is about (``y compris sur la date``) and a concession (``auch
wenn``) name no group.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._language import find_claims


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"minutes": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: language -> (the guides agreed and the warden disagreed, both agreed, answers that include the
#: warden, answers that claim only the guides' agreement)
CASES = {
    "en": (
        "Briefing, 6 March: the instructors agreed that the north route stays closed. "
        "The hut warden disagreed.",
        "Briefing, 6 March: the instructors agreed that the north route stays closed. "
        "The hut warden agreed too.",
        [
            "The instructors agree, including the hut warden.",
            "Everyone, including the hut warden, agrees the route stays closed.",
            "The instructors agree, the hut warden included.",
            "The instructors agree, and the hut warden too.",
        ],
        [
            "The instructors agree that the route stays closed.",
            "The instructors agree, including on the date.",
        ],
    ),
    "fr": (
        "Compte rendu : les moniteurs sont d'accord, la voie nord reste fermée. "
        "Le gardien du refuge n'était pas d'accord.",
        "Compte rendu : les moniteurs sont d'accord, la voie nord reste fermée. "
        "Le gardien du refuge est d'accord aussi.",
        [
            "Tout le monde est d'accord, y compris le gardien du refuge.",
            "Les moniteurs sont d'accord, le gardien du refuge compris.",
            "Tout le monde est d'accord, des moniteurs au gardien du refuge.",
        ],
        [
            "Les moniteurs sont d'accord : la voie reste fermée.",
            "Les moniteurs sont d'accord, y compris sur la date.",
        ],
    ),
    "de": (
        "Protokoll: Die Bergführer sind sich einig, die Nordroute bleibt gesperrt. "
        "Der Hüttenwirt war dagegen.",
        "Protokoll: Die Bergführer sind sich einig, die Nordroute bleibt gesperrt. "
        "Der Hüttenwirt ist einverstanden.",
        [
            "Alle sind sich einig, einschließlich des Hüttenwirts.",
            "Alle sind sich einig, auch der Hüttenwirt.",
            "Die Bergführer sind sich einig, der Hüttenwirt eingeschlossen.",
            "Alle sind sich einig, von den Bergführern bis zum Hüttenwirt.",
        ],
        [
            "Die Bergführer sind sich einig: die Route bleibt zu.",
            "Die Bergführer sind sich einig, auch wenn es spät ist.",
        ],
    ),
    "es": (
        "Acta: los guías de montaña están de acuerdo, la ruta norte sigue cerrada. "
        "El guarda del refugio no estaba de acuerdo.",
        "Acta: los guías de montaña están de acuerdo, la ruta norte sigue cerrada. "
        "El guarda del refugio también está de acuerdo.",
        [
            "Todos están de acuerdo, incluido el guarda del refugio.",
            "Los guías están de acuerdo, incluido el guarda del refugio.",
            "Todos están de acuerdo, desde los guías hasta el guarda del refugio.",
        ],
        ["Los guías de montaña están de acuerdo: la ruta sigue cerrada.", "Todos están de acuerdo."],
    ),
    "pt": (
        "Ata: os guias de montanha estão de acordo, a via norte continua fechada. "
        "O guarda do refúgio não concordou.",
        "Ata: os guias de montanha estão de acordo, a via norte continua fechada. "
        "O guarda do refúgio também está de acordo.",
        [
            "Todos concordam, incluindo o guarda do refúgio.",
            "Os guias estão de acordo, incluindo o guarda do refúgio.",
            "Todos estão de acordo, dos guias ao guarda do refúgio.",
        ],
        ["Os guias de montanha estão de acordo: a via continua fechada.", "Todos concordam."],
    ),
    "it": (
        "Verbale: le guide alpine sono d'accordo, la via nord resta chiusa. "
        "Il gestore del rifugio non era d'accordo.",
        "Verbale: le guide alpine sono d'accordo, la via nord resta chiusa. "
        "Anche il gestore del rifugio è d'accordo.",
        [
            "Sono tutti d'accordo, compreso il gestore del rifugio.",
            "Sono tutti d'accordo, dalle guide al gestore del rifugio.",
            "Le guide sono d'accordo, e anche il gestore del rifugio.",
        ],
        [
            "Le guide alpine sono d'accordo: la via resta chiusa.",
            "Le guide sono d'accordo, anche se con qualche dubbio.",
        ],
    ),
    "nl": (
        "Verslag: de berggidsen zijn het eens, de noordroute blijft dicht. "
        "De hutbeheerder was het er niet mee eens.",
        "Verslag: de berggidsen zijn het eens, de noordroute blijft dicht. "
        "De hutbeheerder is het er ook mee eens.",
        [
            "Iedereen is het eens, inclusief de hutbeheerder.",
            "Iedereen is het eens, ook de hutbeheerder.",
            "De berggidsen zijn het eens, de hutbeheerder inbegrepen.",
            "Iedereen is het eens, van de berggidsen tot de hutbeheerder.",
        ],
        ["De berggidsen zijn het eens: de route blijft dicht."],
    ),
}
INCLUDING = [(lang, answer) for lang, (_, _, answers, _) in CASES.items() for answer in answers]
NOT_INCLUDING = [(lang, answer) for lang, (_, _, _, answers) in CASES.items() for answer in answers]


@pytest.mark.parametrize(("lang", "answer"), INCLUDING)
def test_a_group_included_whose_disagreement_is_stated_fails(lang: str, answer: str) -> None:
    assert check(answer, CASES[lang][0]) is CheckOutcome.FAIL


@pytest.mark.parametrize(("lang", "answer"), INCLUDING)
def test_a_group_included_whose_agreement_is_stated_passes(lang: str, answer: str) -> None:
    assert check(answer, CASES[lang][1]) is CheckOutcome.PASS


@pytest.mark.parametrize(("lang", "answer"), NOT_INCLUDING)
def test_a_claim_that_includes_no_other_group_keeps_its_verdict(lang: str, answer: str) -> None:
    """The twins: the guides' agreement alone, and an inclusion of what, not who."""
    assert check(answer, CASES[lang][0]) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Sono tutti d'accordo, dalle guide al soccorso alpino.",
        "Everyone agrees, from the guides to the mountain rescue.",
        "Tout le monde est d'accord, des guides au secours en montagne.",
        "Alle sind sich einig, von den Bergführern bis zur Bergwacht.",
        "Todos están de acuerdo, desde los guías hasta el rescate de montaña.",
        "Todos estão de acordo, dos guias ao socorro de montanha.",
        "Iedereen is het eens, van de gidsen tot de bergredding.",
    ],
)
def test_each_end_of_a_range_needs_its_own_agreement(answer: str) -> None:
    """Only the guides' agreement is stated (in each language): the rescue's is not."""
    guides = (
        "The guides agree. "
        "Les guides sont d'accord. Die Bergführer sind sich einig. Las guías están de acuerdo. "
        "Os guias estão de acordo. Le guide sono d'accordo. De gidsen zijn het eens."
    )
    assert check(answer, guides) is CheckOutcome.FAIL


def test_an_english_inclusion_adds_its_group_to_the_claim() -> None:
    (claim,) = find_claims("Everyone, including the hut warden, agrees the route stays closed.")
    assert claim.groups == {"en:warden"}
    (claim,) = find_claims("The instructors agree, the hut warden included.")
    assert claim.groups == {"en:instructor", "en:warden"}


@pytest.mark.parametrize(
    "answer",
    [
        "The instructors agree, and so is the hut keeper.",
        "The instructors are aligned on that, and so is the hut inspector.",
        "The instructors agree, as does the hut inspector.",
    ],
)
def test_and_so_is_names_another_group(answer: str) -> None:
    """ "..., and so is the insurer's surveyor" claims the surveyor's agreement too."""
    assert check(answer, CASES["en"][0]) is CheckOutcome.FAIL
    both = CASES["en"][0] + " The hut keeper and the hut inspector agreed as well."
    assert check(answer, both) is CheckOutcome.PASS
