"""A band's rule with words between the label and the rule's verb or condition is still its rule,
no verdict, in every language: a relative clause (``La X que pide el fabricante solo cabe si
...``), a source's code before the verb (``Laut FDG-4 gilt X, wenn ...``: ``4 gilt`` is no figure
with its unit) and a Dutch condition with an article's subject (``geldt X als de tijdsrelatie
klopt``). Twins: the same words stating that the band applies name it, and so does Dutch ``geldt
X als de beste inschatting`` (what X counts as)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

RECALL = ["CLASS_I_RECALL", "WITHDRAWAL", "MONITOR"]
DOOR = ["MINOR_REMEDIAL", "MAJOR_REMEDIAL", "REPLACE"]
CAUSAL = ["CERTAIN", "PROBABLE", "POSSIBLE"]


@pytest.mark.parametrize(
    "answer",
    [
        "The WITHDRAWAL the maker is asking for only fits if there is no health risk. Both samples are"
        " over 100, so CLASS_I_RECALL.",
        "Le WITHDRAWAL que demande le fabricant n'est possible que si la santé n'est pas en jeu. Les"
        " deux échantillons dépassent 100 : CLASS_I_RECALL.",
        "Den WITHDRAWAL, den der Hersteller will, gibt es nur, wenn kein Gesundheitsrisiko besteht."
        " Beide Proben liegen über 100, also CLASS_I_RECALL.",
        "La WITHDRAWAL que pide el fabricante solo cabe si no hay riesgo para la salud. Las dos"
        " muestras superan 100, así que CLASS_I_RECALL.",
        "A WITHDRAWAL que o fabricante pede só cabe quando não há risco para a saúde. As duas amostras"
        " passam de 100, portanto CLASS_I_RECALL.",
        "Il WITHDRAWAL che chiede il produttore si dà solo se non c'è rischio per la salute. Tutti e"
        " due i campioni superano 100, quindi CLASS_I_RECALL.",
        "De WITHDRAWAL waar de fabrikant om vraagt, kan alleen als er geen gezondheidsrisico is. Beide"
        " monsters zitten boven 100, dus CLASS_I_RECALL.",
    ],
)
def test_a_rule_after_a_relative_clause_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "CLASS_I_RECALL", RECALL)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The WITHDRAWAL the maker is asking for is the right call: no health risk has been shown.",
        "Le WITHDRAWAL que demande le fabricant est la bonne réponse : aucun risque pour la santé.",
        "Den WITHDRAWAL, den der Hersteller will, halte ich für richtig: kein Gesundheitsrisiko.",
        "La WITHDRAWAL que pide el fabricante es lo que toca: no hay riesgo para la salud.",
        "A WITHDRAWAL que o fabricante pede é o que se impõe: não há risco para a saúde.",
        "Il WITHDRAWAL che chiede il produttore è la strada giusta: nessun rischio per la salute.",
        "De WITHDRAWAL waar de fabrikant om vraagt, is hier terecht: er is geen gezondheidsrisico.",
    ],
)
def test_a_band_stated_after_a_relative_clause_is_named(answer: str) -> None:
    outcome, reason = label(answer, "WITHDRAWAL", RECALL)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Laut FDG-4 gilt MINOR_REMEDIAL, wenn sich die Spalte um höchstens 2 mm nachstellen lässt. Hier"
        " sind es 3 mm, also MAJOR_REMEDIAL.",
        "Volgens FDG-4 geldt MINOR_REMEDIAL als de spleet hooguit 2 mm bijgesteld moet worden. Hier is"
        " het 3 mm, dus MAJOR_REMEDIAL.",
    ],
)
def test_a_source_code_before_the_rule_verb_keeps_the_rule(answer: str) -> None:
    outcome, reason = label(answer, "MAJOR_REMEDIAL", DOOR)
    assert outcome is CheckOutcome.PASS, reason


def test_a_source_code_before_a_band_stated_names_it() -> None:
    outcome, reason = label(
        "Laut FDG-4 gilt MINOR_REMEDIAL: die Spalte lässt sich um 2 mm nachstellen.", "MINOR_REMEDIAL", DOOR
    )
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Volgens de WHO-UMC-criteria geldt PROBABLE als de tijdsrelatie klopt en andere oorzaken"
            " onwaarschijnlijk zijn.",
            CheckOutcome.FAIL,
        ),
        (
            "Volgens de WHO-UMC-criteria geldt PROBABLE als de beste inschatting voor deze casus.",
            CheckOutcome.PASS,
        ),
    ],
)
def test_dutch_condition_with_an_article_is_a_rule(answer: str, expected: CheckOutcome) -> None:
    outcome, reason = label(answer, "PROBABLE", CAUSAL)
    assert outcome is expected, reason
