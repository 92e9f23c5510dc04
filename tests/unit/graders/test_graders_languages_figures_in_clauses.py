"""Figures and conditions inside the clauses the other languages' tables read (``_lexicon``), from
verdicts an examiner gives.

A point or comma between two digits is part of a figure (``0,60``, ``1.000,5``, ``1,000.5``) and
ends no clause; one after a figure and before a space (``0,60, el consumo``) ends it like any
other. A clause that opens with a condition and ends at a comma makes the next one the consequent
of a rule (hypothetical), whether or not the condition ends with a figure; a condition that only
frames how the answer looks at the facts (``si se compara con``) sets none.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
LABELS = ["NORMAL", "ELEVATED", "HIGH"]


def _label(answer: str, expected: str = "ELEVATED") -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type="label", value=expected, labels=LABELS)).check(answer)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # a comparison the answer frames with "if", then its verdict after the figure's comma
        "Si se compara con el límite de 0,60, el consumo actual es ELEVATED.",
        "Si on la compare à la limite de 0,60, la consommation actuelle est ELEVATED.",
        "Se confrontato con il limite di 0,60, il consumo attuale è ELEVATED.",
        "Se comparado com o limite de 0,60, o consumo atual é ELEVATED.",
        "Als je het vergelijkt met de grens van 0,60, is het verbruik ELEVATED.",
        "Wenn man ihn mit dem Grenzwert von 0,60 vergleicht, ist der Verbrauch ELEVATED.",
        "Si nos atenemos al manual, con 0,45 qt/h el consumo es ELEVATED.",
        "Se non sbaglio, con 0,45 qt/h il consumo è ELEVATED.",
    ],
)
def test_a_condition_that_only_frames_the_comparison_leaves_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason
    assert _label(answer, "HIGH")[0] is F  # and it is that verdict, not any


@pytest.mark.parametrize(
    "answer",
    [
        # a figure, then a comma and a space: the clause with the figure ends there
        "El consumo medido es de 0,45, por lo tanto ELEVATED.",
        "El consumo está entre 0,30 y 0,60, por lo tanto ELEVATED.",
        "La consommation mesurée est de 0,45, la bande est donc ELEVATED.",
        "O consumo medido ficou em 1.250,5 ml, portanto ELEVATED.",
    ],
)
def test_a_comma_after_a_figure_ends_its_clause(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # the condition is a band's rule, the consequent no verdict; the verdict comes after
        "Si le débit dépasse la limite, la bande est HIGH ; ici, ELEVATED.",
        "Si le débit dépasse 0,60, la bande est HIGH ; ici, ELEVATED.",
        "Si el consumo supera el límite del manual, la banda es HIGH; en este caso, ELEVATED.",
        "Wenn der Verbrauch den Grenzwert überschreitet, ist die Stufe HIGH; hier ELEVATED.",
        "Wenn der Verbrauch 0,60 überschreitet, ist die Stufe HIGH; hier ELEVATED.",
        "Als het verbruik boven de grens ligt, is de band HIGH; hier ELEVATED.",
        "Se il consumo supera il limite, la fascia è HIGH; qui invece ELEVATED.",
        "Se o consumo passar do limite, a faixa é HIGH; aqui, ELEVATED.",
        # thousands separators inside the condition end nothing either
        "Si le débit dépasse 1.000,5 l/h la bande est HIGH ; ici ELEVATED.",
        "Wenn der Verbrauch 1.000,5 l/h überschreitet, ist die Stufe HIGH; hier ELEVATED.",
    ],
)
def test_the_consequent_of_a_condition_is_a_rule_not_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P and "hypothetical: HIGH" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Si le débit dépasse la limite, la bande est HIGH.",
        "Wenn der Verbrauch den Grenzwert überschreitet, ist die Stufe HIGH.",
        "Se il consumo supera il limite, la fascia è HIGH.",
    ],
)
def test_a_rule_alone_gives_no_verdict(answer: str) -> None:
    # the answer never says the consumption does exceed the limit: no verdict, even HIGH
    outcome, reason = _label(answer, "HIGH")
    assert outcome is F and "hypothetical: HIGH" in reason, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a condition set off earlier in the sentence by a semicolon, or a contrast, reaches no further
        ("Si le débit dépasse 0,60, la bande est HIGH ; la mesure est de 0,45, donc ELEVATED.", P),
        ("Se o consumo passar do limite é HIGH, mas aqui é ELEVATED.", P),
        # a clause that merely mentions the band before the comma sets no condition
        ("Le débit reste entre 0,30 et 0,60, la bande est ELEVATED.", P),
        ("Le débit reste entre 0,30 et 0,60, la bande est HIGH.", F),
    ],
)
def test_a_condition_reaches_only_the_clause_right_after_it(answer: str, expected: CheckOutcome) -> None:
    outcome, reason = _label(answer)
    assert outcome is expected, reason


@pytest.mark.parametrize(
    "answer",
    [
        # Dutch "als" right before the label, mid-clause, is "as": what the reading is classed as
        "Het verbruik geldt als ELEVATED.",
        "Ik beoordeel dit verbruik als ELEVATED.",
        "Het verbruik wordt aangemerkt als ELEVATED.",
        "Dit zou ik als ELEVATED classificeren.",
        # Portuguese "-se" after a verb is the pronoun, not "if"
        "O consumo situa-se na faixa ELEVATED.",
        "Classifica-se como ELEVATED, dado o consumo medido.",
        "O consumo enquadra-se em ELEVATED.",
    ],
)
def test_a_condition_word_that_is_another_word_there_sets_no_condition(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason
    assert _label(answer, "HIGH")[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        # the same words opening a condition still make the label after them a rule
        "Als het verbruik stijgt is het HIGH, nu ELEVATED.",
        "Het zou HIGH zijn als het verbruik boven 0,60 lag; nu ELEVATED.",
        "Het verbruik is ELEVATED; als het boven 0,60 komt, wordt het HIGH.",
        "Se passar de 0,60 fica HIGH; por agora mantém-se ELEVATED.",
    ],
)
def test_a_condition_word_opening_its_clause_is_still_a_condition(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P and "hypothetical: HIGH" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        # a comparison in the verdict's own clause, no condition word: the verdict
        "Verglichen mit dem Grenzwert von 0,60 ist der Verbrauch ELEVATED.",
        "Comparado con el límite de 0,60 el consumo actual es ELEVATED.",
        "Vergeleken met de grens van 0,60 geldt het verbruik als ELEVATED.",
    ],
)
def test_a_comparison_in_the_verdicts_clause_is_no_condition(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason


def test_a_condition_inside_the_clause_still_governs_the_label_after_it() -> None:
    # "als het zo doorgaat" (if it goes on like this) stands between the verb and HIGH
    outcome, reason = _label("Het verbruik wordt als het zo doorgaat HIGH; nu is het ELEVATED.")
    assert outcome is P and "hypothetical: HIGH" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        # a condition on the data, not a threshold: a caveat of the verdict, which stands
        "Si le capteur est fiable, la bande est ELEVATED.",
        "Si la lectura es correcta, el consumo es ELEVATED.",
        "Wenn die Messung stimmt, ist der Verbrauch ELEVATED.",
        "Se a leitura estiver correta, o consumo é ELEVATED.",
        "Se la lettura è corretta, il consumo è ELEVATED.",
        "Als de meting klopt, is het verbruik ELEVATED.",
    ],
)
def test_a_caveat_before_the_verdict_is_no_rule(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason
    assert _label(answer, "HIGH")[0] is F
