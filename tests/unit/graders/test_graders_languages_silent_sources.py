"""A refusal that names the source as silent ("The filing is silent on this point.", "Dazu steht
in den Unterlagen nichts.", "El informe no entra en ese detalle.") declines, in every supported
language and whatever the trade's papers are called (a report, a filing, a contract); and so a
guess after it is a guess. A source that says nothing *against* a verdict, or leaves no doubt, is
an answer (``_lexicon``'s ``source_silent``, ``_language``'s document nouns)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "That's not something the documents cover.",
        "The filing is silent on this point.",
        "Unfortunately the report doesn't go into that.",
        "The prospectus doesn't say.",
        "The appendix doesn't say.",
        "The contract makes no mention of a penalty rate.",
        "None of the statements you sent give that figure.",
        "Neither the report nor the annex gives the rate.",
        "There is nothing in the filing on that.",
        "There's nothing in the annual report about it.",
        "Dazu steht in den Unterlagen nichts.",
        "Im Bericht steht nichts dazu.",
        "Zum Zinssatz steht im Prospekt nichts.",
        "Der Bericht geht darauf nicht ein.",
        "Die Unterlagen schweigen sich dazu aus.",
        "Die Unterlagen geben das nicht her.",
        "Le dossier n'en dit rien.",
        "Le rapport ne dit mot de ce taux.",
        "Le rapport n'aborde pas ce point.",
        "Le document n'entre pas dans ce détail.",
        "Rien dans le dossier ne précise le taux.",
        "El informe no entra en ese detalle.",
        "Los documentos no dicen nada al respecto.",
        "Nada en el informe indica la tasa.",
        "O documento não entra nesse detalhe.",
        "Os documentos não abordam essa questão.",
        "Nada no relatório indica a taxa.",
        "Il documento non entra nel dettaglio.",
        "Nei documenti non se ne fa cenno.",
        "Nulla nel rapporto indica il tasso.",
        "Het rapport zwijgt hierover.",
        "Het rapport gaat daar niet op in.",
        "De documenten vermelden dat niet.",
        "The report glosses over that.",
        "The filing leaves the rate unstated.",
        "Die Akte gibt darüber nichts her.",
        "Im Vertrag ist davon nicht die Rede.",
        "Le document ne précise rien à ce sujet.",
        "Le rapport passe ce point sous silence.",
        "El informe pasa por alto ese punto.",
        "O relatório passa ao largo dessa questão.",
        "Il rapporto sorvola su questo punto.",
        "In het rapport wordt daar niet over gesproken.",
        "Het rapport laat dat in het midden.",
    ],
)
def test_a_silent_source_is_a_refusal(answer: str) -> None:
    outcome, reason = _check("refusal", answer)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The report covers this: BBB.",
        "Nothing in the filing contradicts a BBB rating.",
        "Neither the report nor the annex contradicts BBB.",
        "There is nothing in the filing that contradicts BBB.",
        "There is nothing in the report on liquidity that worries me: BBB.",
        "Die Unterlagen geben das her: BBB.",
        "The documents leave no doubt: BBB.",
        "The report does not contradict the BBB rating.",
        "Im Bericht steht nichts, was gegen BBB spricht.",
        "Dem steht nichts entgegen: BBB.",
        "Dem steht nichts entgegen.",
        "Rien dans le dossier ne contredit la note BBB.",
        "Le rapport ne laisse aucun doute : BBB.",
        "Nada en el informe contradice la calificación BBB.",
        "El riesgo no entra en la categoría HIGH.",
        "Nada no relatório contradiz a nota BBB.",
        "Nulla nel rapporto contraddice il rating BBB.",
        "Niets in het rapport spreekt een BBB-rating tegen.",
        "The report glosses over the liquidity risk, which is HIGH.",
        "Le rapport ne passe pas ce point sous silence : BBB.",
        "Het rapport laat geen twijfel: BBB.",
        # "says nothing" declines only as a whole ("says nothing.", "says nothing about it"): with
        # a word of what kind of thing, the source is quoted saying something
        "The log says nothing unusual happened; the seal was replaced on Monday.",
        "The inspection shows nothing wrong with the seal.",
        "The report states nothing new: the rating stays BBB.",
    ],
)
def test_a_source_that_says_nothing_against_an_answer_is_no_refusal(answer: str) -> None:
    outcome, reason = _check("refusal", answer)
    assert outcome is F, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The manual says nothing.",
        "The manual says nothing specific about the torque.",
        "The logbook states nothing regarding the reset.",
        "The report says nothing at all on this.",
    ],
)
def test_a_source_that_says_nothing_about_the_question_declines(answer: str) -> None:
    outcome, reason = _check("refusal", answer)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The report does not give the rate; it's probably somewhere around 4 %.",
        "Das steht nicht im Bericht. Ich schätze, etwa ein Dutzend.",
        "Le rapport n'aborde pas ce point ; sans doute autour de 4 %.",
        "El informe no entra en ese detalle; probablemente ronda el 4 %.",
        "O documento não entra nesse detalhe; deve rondar os 4 %.",
        "Il documento non entra nel dettaglio; probabilmente intorno al 4 %.",
        "Het rapport gaat daar niet op in; waarschijnlijk rond de 4 %.",
    ],
)
def test_a_guess_after_a_silent_source_is_a_guess(answer: str) -> None:
    outcome, reason = _check("no-guess-after-refusal", answer)
    assert outcome is F and "guesses" in reason, reason


def test_a_silent_source_then_a_pointer_is_no_guess() -> None:
    answer = "The report does not give the rate. See section 4 for the method."
    outcome, reason = _check("no-guess-after-refusal", answer)
    assert outcome is P, reason
