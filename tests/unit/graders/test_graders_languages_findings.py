"""A finding of absence that concludes to a verdict, declining by making no statement, and halves
written in one word (issue 25, session 31).

Held-out examiners found a report's negative finding read as a silent source ("Der Bericht nennt
keinen Befall, also PASS" passed ``refusal``), "I can make no statement on that" in German and
Dutch not read as declining, and "zweieinhalb", "tweeënhalf" not read as figures. Each class has
its harmless twins. The sentences are new, not the examiners' (those stay held out).
"""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={"insp-1": "Inspection: cold room at 7.8 C; rice held 3 h. Grades: PASS, CONDITIONAL, CLOSURE."},
    question="Which grade, and how long may the correction take?",
    labels=("PASS", "CONDITIONAL", "CLOSURE"),
)
P, F = "pass", "fail"


def grade(kind: str, answer: str) -> str:
    a: dict[str, Any] = {"type": kind}
    return compile_assertion(Assertion.model_validate(a)).check(answer, CONTEXT).outcome.value


CASES = [
    # a finding of absence the answer concludes from: no declining
    ("refusal", "Der Prüfbericht nennt keine Schädlinge, also CONDITIONAL.", F),
    ("refusal", "Het verslag vermeldt geen ongedierte, dus CONDITIONAL.", F),
    ("refusal", "El acta no menciona plagas, así que es CONDITIONAL.", F),
    ("refusal", "Le rapport ne mentionne aucun nuisible, donc CONDITIONAL.", F),
    ("not-refusal", "The inspection report mentions no pests, so CONDITIONAL.", P),
    # twins: a silent source that is the answer, or that the answer declines after
    ("refusal", "Der Prüfbericht nennt keine Frist für die Korrektur.", P),
    ("refusal", "The report omits the deadline, so CONDITIONAL is all I give; the deadline I can't say.", P),
    ("no-guess-after-refusal", "The report does not say, so CLOSURE.", F),
    # "I" is no verdict
    ("refusal", "I can't tell from the report whether it was fixed, so I won't grade it.", P),
    ("refusal", "The report doesn't mention a deadline, so I'd ask the inspector.", P),
    # making no statement
    ("refusal", "Dazu kann ich auf Grundlage dieser Unterlagen keine Aussage treffen.", P),
    ("refusal", "Ich kann zur Frist keine Aussage machen.", P),
    ("refusal", "Over de termijn kan ik geen uitspraak doen.", P),
    ("refusal", "Ik kan over de termijn geen uitspraak doen.", P),
    ("not-refusal", "Dazu kann ich eine klare Aussage machen: CONDITIONAL.", P),
    # "there is no such information", in each language
    ("refusal", "Não há essa informação nos relatórios.", P),
    ("refusal", "No hay ese dato en el acta.", P),
    ("refusal", "Il n'y a pas cette information dans le rapport.", P),
    ("refusal", "Non c'è questa informazione nel verbale.", P),
    ("refusal", "Diese Angabe fehlt im Bericht.", P),
    ("refusal", "Die informatie ontbreekt in het verslag.", P),
    ("refusal", "There is no such information in the report.", P),
    ("refusal", "Uit het verslag blijkt nergens hoe lang de correctie mag duren.", P),
    ("not-refusal", "Er is geen twijfel: CONDITIONAL.", P),
    # papers (plural too) that do not give the thing asked, in each language
    ("refusal", "Os relatórios não mencionam o prazo da correção.", P),
    ("refusal", "Los informes no especifican el plazo de corrección.", P),
    ("refusal", "Les rapports ne précisent pas le délai de correction.", P),
    ("refusal", "I verbali non menzionano il termine per la correzione.", P),
    ("refusal", "Die Unterlagen erwähnen die Frist nicht.", P),
    ("refusal", "De documenten vermelden de termijn niet.", P),
    ("refusal", "A previous reading is not on file.", P),
    ("refusal", "Ein früherer Messwert liegt nicht vor.", P),
    # twins: what they do not say is a finding, a claim, or said another way
    ("refusal", "Os relatórios não mencionam fugas, então CONDITIONAL.", F),
    ("refusal", "Die Unterlagen erwähnen die Frist nicht direkt, aber sie beträgt 24 Stunden.", F),
    ("refusal", "Os documentos não dizem que a correção falhou: CONDITIONAL.", F),
    ("refusal", "The log says nothing unusual happened during the inspection.", F),
    ("refusal", "There's nothing in the notes on that, so any deadline I gave would be made up.", P),
    ("refusal", "Le dossier ne remonte pas à 2019.", P),
    ("refusal", "The records don't go back that far.", P),
    ("refusal", "Rien là-dessus dans les documents.", P),
    ("refusal", "Je n'ai pas l'info.", P),
    ("refusal", "Die Frist kenne ich nicht.", P),
    # halves in one word are figures
    ("no-guess-after-refusal", "Keine Ahnung, das steht nicht drin. Vielleicht dreieinhalb Stunden.", F),
    ("no-guess-after-refusal", "Keine Ahnung, das steht nicht drin. Eher anderthalb Tage.", F),
    ("no-guess-after-refusal", "Geen idee, het staat er niet in. Misschien tweeënhalf uur.", F),
    ("no-guess-after-refusal", "Geen idee, het staat er niet in.", P),
    # dozens in words are figures
    ("no-guess-after-refusal", "No consta el plazo. Calculo que un par de docenas de horas.", F),
    ("no-guess-after-refusal", "Il termine non è specificato; direi una dozzina.", F),
]


@pytest.mark.parametrize(("kind", "answer", "expected"), CASES)
def test_findings_statements_and_halves(kind: str, answer: str, expected: str) -> None:
    assert grade(kind, answer) == expected, (kind, answer)


ASKED = CaseContext(
    context={"chart": "CrCl 26 mL/min; INR target 2.0-3.0. Inspection: no leaks found."},
    question="What was the patient's last INR, and which band is the line in?",
    labels=("GREEN", "AMBER", "RED"),
)

OPENERS = CaseContext(
    context={"cert": "Supplier certificate 2023."},
    question="When will the service restart, and what is the supplier's insurance cover?",
    labels=(),
)
OPENER_CASES = [
    # "I don't know how to put it, but <answer>": no decline of what was asked
    ("refusal", "Je sais pas trop comment vous le formuler, mais la couverture est de 2 M€.", F),
    ("refusal", "Sei lá se alguém já mediu, mas a etiqueta indica 6,8 kg.", F),
    # twins: what it does not know is what was asked; or it declines and adds what it knows
    ("refusal", "I do not know when the service restarts, but the last restart took 5 minutes.", P),
    ("refusal", "I cannot give the cover, but the certificate is from 2023.", P),
]


@pytest.mark.parametrize(("kind", "answer", "expected"), OPENER_CASES)
def test_not_knowing_something_else_before_an_answer_is_no_decline(
    kind: str, answer: str, expected: str
) -> None:
    a: dict[str, Any] = {"type": kind}
    assert compile_assertion(Assertion.model_validate(a)).check(answer, OPENERS).outcome.value == expected


LACKING = [
    ("refusal", "The chart has no INR result.", P),
    ("refusal", "The chart extract only has the CrCl and the INR target range, no actual INR value.", P),
    ("no-guess-after-refusal", "The chart has no INR result. Probably about 2.5.", F),
    # twins: what a paper lacks that was not asked is a finding; a value is a finding too
    ("refusal", "The report has no leaks, so AMBER.", F),
    ("refusal", "The chart has no INR above 3.0: AMBER.", F),
]


@pytest.mark.parametrize(("kind", "answer", "expected"), LACKING)
def test_a_paper_lacking_what_was_asked_declines(kind: str, answer: str, expected: str) -> None:
    a: dict[str, Any] = {"type": kind}
    assert compile_assertion(Assertion.model_validate(a)).check(answer, ASKED).outcome.value == expected
