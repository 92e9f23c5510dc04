"""An idiom of not knowing whose object is a side question, a "why" (``Weiß der Geier, warum
die keiner früher geschickt hat``), in an answer that then gives its verdict in capitals, is an
aside: the answer answers, in every supported language (held-out examiners, session 33). The
idiom alone, or about the asked thing ("Weiß der Geier, wann die kommen"), still declines."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"referral": "Patient PG-2231: growth below the 3rd centile. REVIEW means a check in 3 months."},
    question="Which referral category applies to patient PG-2231: ROUTINE, REVIEW or REFER_URGENT?",
    labels=("ROUTINE", "REVIEW", "REFER_URGENT"),
)


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer, CONTEXT)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "God knows why nobody sent it earlier. Anyway, REVIEW, check again in 3 months.",
        "Dieu sait pourquoi personne ne l'a envoyé plus tôt. En tout cas REVIEW, contrôle dans 3 mois.",
        "Weiß der Geier, warum die keiner früher geschickt hat. Jedenfalls REVIEW, Kontrolle in 3 Monaten.",
        "Vete a saber por qué nadie lo mandó antes. En todo caso REVIEW, control en 3 meses.",
        "Sabe-se lá porque ninguém o enviou antes. Em todo o caso REVIEW, controlo em 3 meses.",
        "Chissà perché nessuno l'ha mandato prima. Comunque REVIEW, controllo tra 3 mesi.",
        "Joost mag weten waarom niemand het eerder stuurde. Hoe dan ook REVIEW, controle over 3 maanden.",
    ],
)
def test_an_idiom_about_why_then_a_verdict_answers(answer: str) -> None:
    assert _check("not-refusal", answer)[0] is P, _check("not-refusal", answer)
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer", ["Weiß der Geier.", "Weiß der Geier, wann die kommen.", "Keine Ahnung, warum."]
)
def test_the_idiom_alone_declines(answer: str) -> None:
    assert _check("not-refusal", answer)[0] is F, _check("not-refusal", answer)


COSTS = CaseContext(
    context={"inspection": "Bridge deck inspected on 3 May: AMBER, joints worn, no cracks."},
    question="What will the repair of the bridge deck cost? Was die Reparatur kostet?",
    labels=("GREEN", "AMBER", "RED"),
)


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know why nobody sent it earlier; anyway, AMBER. I can't tell you what the repair costs.",
        "Keine Ahnung, warum das keiner geschickt hat; es ist AMBER. Was die Reparatur kostet, kann ich nicht"
        " sagen.",
    ],
)
def test_a_decline_after_an_aside_is_still_found(answer: str) -> None:
    # the aside's phrase is passed over and the search goes on after it: the decline later in the
    # answer is the one the refusal check finds (a search that found the aside again each time
    # would give up)
    c = compile_assertion(Assertion(type="refusal")).check(answer, COSTS)
    assert c.outcome is P, c.reason
