"""A decline with no verb of saying, or with its parts in another order, declines in every
supported language (held-out examiners, session 33): "no X in the <source>" (``Aucune date dans
les notes``, ``Kein Datum im Bericht``), "<source> ... no trace of X" (``Nel fascicolo non c'è
traccia di un dazio``), the German verb second (``Im Laborbericht taucht kein DWV-Wert auf``), a
verb of saying before its none-of subject (``einen Termin nennt keines der Papiere``), a thing
not in a paper (``O custo não está no relatório``), and sheets and notes as papers. A source that
has none of a *finding* ("no leak in the report", ``aucune fissure``) still answers."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={
        "inspection-report": "Bridge 14-207 inspected 28 January 2026: 18% section loss in girder G3, "
        "no cracking found. Recommended posting: 20 t gross.",
        "rating-manual": "RF of 1.0 or more: OPEN. RF from 0.3 up to 1.0: RESTRICT. RF below 0.3: CLOSE.",
    },
    question="When is the re-inspection date, and is there an anti-dumping duty on the DX-9?",
    labels=("OPEN", "RESTRICT", "CLOSE"),
)


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer, CONTEXT)
    return c.outcome, c.reason


DECLINES = [
    # no X in the source, no verb
    "No date in the notes.",
    "Aucune date dans les notes.",
    "Kein Datum im Bericht.",
    "Ningún dato en el informe.",
    "Nenhuma data no relatório.",
    "Nessuna data nel referto.",
    "Geen datum in het rapport.",
    # the source, then no trace or record of X
    "No record of an anti-dumping duty in the file.",
    "Dans le dossier, aucune trace d'un droit antidumping.",
    "In den Unterlagen keine Spur von einem Antidumpingzoll.",
    "En el expediente, ni rastro de un derecho antidumping.",
    "No relatório não há rasto de um direito antidumping.",
    "Nel fascicolo non c'è traccia di un dazio antidumping, né del numero di colli aperti.",
    "In het dossier geen spoor van een antidumpingrecht.",
    # German and Dutch verb second
    "Im Laborbericht taucht kein DWV-Wert auf, und einen Termin für die Nachkontrolle nennt keines "
    "der Papiere.",
    "Im Einsatzbericht ist kein Termin vermerkt.",
    "In het rapport wordt geen datum genoemd.",
    # a verb of saying before its none-of subject
    "Einen Termin nennt keines der Papiere.",
    "La fecha no la menciona ninguno de los informes.",
    "La data non la riporta nessuno dei documenti.",
    "A data não a menciona nenhum dos relatórios.",
    "De datum noemt geen van de stukken.",
    # a thing that is not in the paper
    "The re-inspection date isn't in the notes either.",
    "La date n'est pas dans le rapport.",
    "Das Datum steht nicht im Bericht.",
    "La fecha no está en el informe.",
    "O custo não está no relatório.",
    "La data non è nel rapporto.",
    "De datum staat niet in het rapport.",
    # sheets, notes and papers are papers
    "None of the sheets gives the date.",
    "Aucune des feuilles ne donne la date.",
    "Keines der Blätter nennt das Datum.",
    "Ninguna de las dos hojas trae ese dato, lo siento.",
    "Nenhuma das folhas traz essa data.",
    "Nessuno dei fogli riporta la data.",
    "Geen van de bladen noemt de datum.",
]


@pytest.mark.parametrize("answer", DECLINES)
def test_a_verbless_or_inverted_decline_declines(answer: str) -> None:
    assert _check("refusal", answer)[0] is P, _check("refusal", answer)
    assert _check("not-refusal", answer)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        "No cracks in the report, so OPEN.",
        "RESTRICT. No leak in the report.",
        "Aucune fissure dans le rapport : OPEN.",
        "Keine Risse im Bericht, also RESTRICT.",
        "Ninguna grieta en el informe, así que RESTRICT.",
        "Nenhuma fissura no relatório, então RESTRICT.",
        "Nessuna crepa nel rapporto, quindi RESTRICT.",
        "Geen scheuren in het rapport, dus RESTRICT.",
        "Im Bericht ist kein Riss vermerkt, also OPEN.",
    ],
)
def test_a_finding_the_source_does_not_have_still_answers(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "No girder in the report is damaged beyond repair: RESTRICT.",
        "Im Bericht ist kein Wert über 0,6: RESTRICT.",
        "Aucune valeur dans le rapport ne dépasse 0,60 : RESTRICT.",
    ],
)
def test_a_clause_that_goes_on_or_a_figure_is_no_verbless_decline(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "O custo não está no relatório, mas deve ficar em torno de 90 mil reais.",
        "Aucune date dans les notes, mais d'habitude c'est une quinzaine de jours après.",
        "Die Kosten stehen nicht im Bericht, aber es dürften rund 90.000 Euro sein.",
        "El coste no está en el informe, pero rondará los 90.000 euros.",
        "Il costo non è nel rapporto, ma dovrebbe aggirarsi sui 90.000 euro.",
        "De kosten staan niet in het rapport, maar reken op zo'n 90.000 euro.",
    ],
)
def test_a_guess_after_the_verbless_decline_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer)[0] is F, _check("no-guess-after-refusal", answer)
