"""A band's rule restricted by "only ... when/if" ("X only fits when", "X n'est possible que si",
"X só cabe quando", "es gibt X nur, wenn") is a rule, not a verdict, in every language; the label
the answer then gives is its verdict. Twins: a label with "only" and no condition after it, or a
condition that opens the next sentence, is still named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
F = CheckOutcome.FAIL
INSPECTION = ["PASS", "CONDITIONAL_PASS", "FAIL", "CLOSED"]
EXPORT = ["APPROVED", "APPROVED_WITH_LIMIT", "REJECTED"]


@pytest.mark.parametrize(
    "answer",
    [
        "The rules say PASS only fits when no critical breach was found. There was one, the cold chain,"
        " and that is exactly what CONDITIONAL_PASS is for. That's my result.",
        "Under the rules there is PASS only if no critical breach was found. Here there was one:"
        " CONDITIONAL_PASS.",
        "Nach den Regeln gibt es PASS nur, wenn kein kritischer Verstoß festgestellt wurde. Hier gab es"
        " einen, die Kühlkette, und genau dafür ist CONDITIONAL_PASS da. Das ist mein Ergebnis.",
        "PASS kommt nur dann in Frage, wenn kein kritischer Verstoß vorliegt. Ergebnis: CONDITIONAL_PASS.",
        "Selon la grille, PASS n'est possible que si aucune non-conformité critique n'a été relevée. Il y"
        " en a une (chaîne du froid) : CONDITIONAL_PASS.",
        "Según el reglamento, PASS solo procede cuando no hay ninguna infracción crítica. La hay:"
        " CONDITIONAL_PASS.",
        "A regra diz que PASS só cabe quando não há nenhuma infração crítica. Há uma (cadeia de frio)."
        " Decisão: CONDITIONAL_PASS.",
        "Secondo il regolamento PASS si dà solo se non ci sono violazioni critiche. Qui ce n'è una:"
        " CONDITIONAL_PASS.",
        "Volgens de regels is PASS alleen mogelijk als er geen kritieke overtreding is. Die is er wel:"
        " CONDITIONAL_PASS.",
    ],
)
def test_a_band_only_under_a_condition_is_its_rule(answer: str) -> None:
    outcome, reason = label(answer, "CONDITIONAL_PASS", INSPECTION)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "A regra diz que APPROVED só cabe quando a exportação pedida está dentro da capacidade. Não está"
        " (12 kW pedidos, 8 kW disponíveis). Decisão: APPROVED_WITH_LIMIT.",
        "La norma dice que APPROVED solo cabe cuando la exportación pedida está dentro de la capacidad."
        " No lo está. Decisión: APPROVED_WITH_LIMIT.",
        "La règle veut qu'APPROVED ne soit accordé que si l'export demandé tient dans la capacité. Ce"
        " n'est pas le cas : APPROVED_WITH_LIMIT.",
        "APPROVED alleen als de gevraagde teruglevering binnen de capaciteit valt. Dat is niet zo:"
        " APPROVED_WITH_LIMIT.",
        "APPROVED soltanto quando l'immissione richiesta rientra nella capacità. Non è così:"
        " APPROVED_WITH_LIMIT.",
    ],
)
def test_the_rule_of_the_plain_band_leaves_the_limited_one(answer: str) -> None:
    outcome, reason = label(answer, "APPROVED_WITH_LIMIT", EXPORT)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # "only" with no condition after it: the verdict, with its reason
        "PASS only, the breach was minor.",
        "PASS, nur knapp: der Verstoß war gering.",
        "PASS seulement de justesse : l'écart était mineur.",
        "PASS, solo por poco: la infracción era leve.",
        "PASS, só por pouco: a infração era leve.",
        "PASS, solo di poco: la violazione era lieve.",
        "PASS, alleen maar nipt: de overtreding was klein.",
        # the condition opens the next sentence: the band before it stands
        "PASS. Only if the cold chain fails again will we revisit it.",
        "Ergebnis: PASS. Nur wenn die Kühlkette erneut ausfällt, prüfen wir nach.",
        "Résultat : PASS. Ce n'est que si la chaîne du froid lâche à nouveau qu'on reviendra.",
        "Resultado: PASS. Solo si falla otra vez la cadena de frío volveremos.",
        "Resultado: PASS. Só se a cadeia de frio voltar a falhar é que voltamos lá.",
        "Esito: PASS. Solo se la catena del freddo cede di nuovo torneremo.",
        "Uitslag: PASS. Alleen als de koelketen weer faalt, komen we terug.",
    ],
)
def test_the_verdict_with_only_and_no_condition_stands(answer: str) -> None:
    outcome, reason = label(answer, "PASS", INSPECTION)
    assert outcome is P, reason
