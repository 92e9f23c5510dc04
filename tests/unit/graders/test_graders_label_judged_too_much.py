"""A band judged too much or too little through a verb of opinion after it (``X vind ik te
optimistisch``, ``X me parece demasiado``, ``X finde ich zu``), or set aside as not enough
(``No basta con X``, ``X reicht nicht``, ``X isn't enough``), is denied in every language; a
note in brackets or a word of "alone" may stand after the band. Twins: the same verbs of opinion
with no word of excess or lack, and "enough" not negated, leave the band named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

POOL = ["SAFE", "SAFE_WITH_MONITORING", "ADJUST", "CLOSE_POOL"]
DUTY = ["STANDARD_RATE", "ANTI_DUMPING_DUTY", "EXEMPT"]


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: SAFE_WITH_MONITORING. Plain SAFE strikes me as too rosy with that much stabiliser.",
        "Avis : SAFE_WITH_MONITORING. Un SAFE tout court me paraît trop optimiste avec ce stabilisant.",
        "Urteil: SAFE_WITH_MONITORING. Einfach SAFE finde ich bei der Cyanursäure zu optimistisch.",
        "Dictamen: SAFE_WITH_MONITORING. Un SAFE a secas me parece demasiado optimista con ese"
        " ácido cianúrico.",
        "Parecer: SAFE_WITH_MONITORING. Um SAFE simples parece-me demasiado otimista com este estabilizante.",
        "Giudizio: SAFE_WITH_MONITORING. Un SAFE secco mi sembra troppo ottimista con quell'acido.",
        "Oordeel: SAFE_WITH_MONITORING. Gewoon SAFE vind ik te optimistisch met dat cyanuurzuur.",
    ],
)
def test_a_band_an_opinion_finds_too_much_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "SAFE_WITH_MONITORING", POOL)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: ANTI_DUMPING_DUTY. STANDARD_RATE (4.5 %) isn't enough when the price undercuts"
        " normal value.",
        "Verdict : ANTI_DUMPING_DUTY. Le STANDARD_RATE (4,5 %) ne suffit pas, le prix est sous la"
        " valeur normale.",
        "Ergebnis: ANTI_DUMPING_DUTY. STANDARD_RATE (4,5 %) reicht nicht, der Preis liegt unter dem"
        " Normalwert.",
        "Veredicto: ANTI_DUMPING_DUTY. No basta con STANDARD_RATE (4,5 %): el precio está por debajo"
        " del valor normal.",
        "Veredito: ANTI_DUMPING_DUTY. Não basta o STANDARD_RATE (4,5 %): o preço está abaixo do valor"
        " normal.",
        "Esito: ANTI_DUMPING_DUTY. Non basta lo STANDARD_RATE (4,5 %), il prezzo è sotto il valore normale.",
        "Uitkomst: ANTI_DUMPING_DUTY. STANDARD_RATE (4,5 %) is niet genoeg, de prijs ligt onder de"
        " normale waarde.",
    ],
)
def test_a_band_set_aside_as_not_enough_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "ANTI_DUMPING_DUTY", DUTY)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    ("answer", "labels"),
    [
        ("Verdict: SAFE_WITH_MONITORING. Plain SAFE strikes me as defensible too.", POOL),
        ("Avis : SAFE_WITH_MONITORING, et SAFE tout court me paraît correct aussi.", POOL),
        ("Urteil: SAFE_WITH_MONITORING. Einfach SAFE finde ich auch vertretbar.", POOL),
        ("Dictamen: SAFE_WITH_MONITORING. Un SAFE a secas me parece también razonable.", POOL),
        ("Veredito: ANTI_DUMPING_DUTY. Basta o STANDARD_RATE (4,5 %) para as outras linhas.", DUTY),
        ("Esito: ANTI_DUMPING_DUTY. Basta lo STANDARD_RATE (4,5 %) per le altre voci.", DUTY),
        ("Uitkomst: ANTI_DUMPING_DUTY. STANDARD_RATE (4,5 %) is genoeg voor de andere regels.", DUTY),
    ],
)
def test_an_opinion_with_no_excess_or_lack_leaves_both_named(answer: str, labels: list[str]) -> None:
    outcome, reason = label(answer, labels[1], labels)
    assert outcome is CheckOutcome.FAIL, reason
