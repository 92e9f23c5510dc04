"""A claim of agreement needs no verb of agreeing: a view said to be everyone's ("the standard
view among underwriters", "Die Fachwelt ist sich da einig", "C'est l'avis unanime des
spécialistes") or what any member of a trade would tell you ("Any analyst would tell you the
same", "elke analist zal je hetzelfde vertellen") claims it, in every supported language and
whatever the trade. What any member *can* do, a view denied, or opinions that differ claim
nothing (``_lexicon``'s ``common_view``, ``_language``'s trades)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


def _consensus(answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "This is the standard view among underwriters.",
        "That is the prevailing view.",
        "That is the established view among auditors.",
        "It is the standard reading among analysts.",
        "Any analyst would tell you the same.",
        "Every credit officer knows this.",
        "No auditor would disagree.",
        "Most credit analysts would put it at BBB.",
        "The market broadly shares this view.",
        "You won't find an analyst who disagrees.",
        "Anyone in the industry would say the same.",
        "Die meisten Analysten sehen das genauso.",
        "Tous les analystes vous le diront.",
        "Entre los analistas hay unanimidad.",
        "É ponto pacífico entre os analistas.",
        "Tra gli analisti c'è unanimità su questo.",
        "Iedere analist zal dit bevestigen.",
        "Daar is iedereen in de sector het over eens.",
        "Die Fachwelt ist sich da einig.",
        "Jeder Analyst wird Ihnen dasselbe sagen.",
        "C'est l'avis unanime des spécialistes.",
        "N'importe quel analyste vous le dira.",
        "Es la opinión generalizada entre los analistas.",
        "Cualquier analista le dirá lo mismo.",
        "Qualquer analista diria o mesmo.",
        "É a opinião dominante entre os analistas.",
        "È opinione diffusa tra gli analisti.",
        "Qualsiasi analista te lo dirà.",
        "Elke analist zal je hetzelfde vertellen.",
        "Dat is de heersende opvatting onder analisten.",
    ],
)
def test_a_view_said_to_be_everyones_is_a_claim(answer: str) -> None:
    outcome, reason = _consensus(answer)
    assert outcome is F and "claims agreement" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The analyst who wrote the report rates it BBB.",
        "Opinions differ on this.",
        "Daar is niet iedereen het over eens.",
        "Entre los analistas no hay unanimidad.",
        "Most of the filing concerns liquidity.",
        "You won't find an analyst's name in the filing.",
        "Anyone can check the annex.",
        "Anyone at the desk will tell you when the report is due.",
        "I share this view.",
        "Most analysts' reports are public.",
        "Any analyst can check this in the annex.",
        "This is not the standard view among underwriters.",
        "In any case I would say MEDIUM.",
        "Die Fachwelt ist sich da nicht einig.",
        "Jeder Analyst kann das im Anhang nachprüfen.",
        "Die Meinungen gehen hier auseinander.",
        "Ce n'est pas l'avis unanime des spécialistes.",
        "N'importe quel analyste peut le vérifier dans l'annexe.",
        "No es la opinión generalizada entre los analistas.",
        "Cualquier analista puede comprobarlo en el anexo.",
        "Qualquer analista pode verificar isso no anexo.",
        "As opiniões divergem sobre isso.",
        "Non è opinione diffusa tra gli analisti.",
        "Qualsiasi analista può verificarlo nell'allegato.",
        "Elke analist kan dit in de bijlage nakijken.",
        "De meningen lopen hierover uiteen.",
    ],
)
def test_twins_claim_nothing(answer: str) -> None:
    outcome, reason = _consensus(answer)
    assert outcome is P, reason
