"""A label in brackets after a negated verb it glosses is what is not done (issue 25).

``Não dá para fechar (CLOSE) sem documentação, e MONITOR não chega ... Parecer: FILE_SAR`` named
CLOSE as a verdict: the brackets gloss the verb, and the verb is negated. Beside a label named
plainly, such a label is read as negated, in every language; alone it stays named, because the
brackets may gloss the whole negated phrase ("not safe to drink (DO_NOT_DRINK)"). A pronoun of
negation ("nothing stops us closing (CLOSE)") negates nothing.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LABELS = ["OPEN", "CLOSE", "REVIEW", "DO_NOT_DRINK", "REJECT", "APPROVE"]
CONTEXT = CaseContext(context={"log": "Ticket 7: customer silent for 11 days."}, question="Which action?")


def label(value: str) -> object:
    return compile_assertion(Assertion(type="label", value=value, labels=LABELS))


@pytest.mark.parametrize(
    "answer",
    [
        "We can't close it (CLOSE) yet, so REVIEW.",
        "Wir können das nicht schließen (CLOSE); also REVIEW.",
        "On ne peut pas fermer (CLOSE) : REVIEW.",
        "No se puede cerrar (CLOSE), queda en REVIEW.",
        "Não dá para fechar (CLOSE). Fica em REVIEW.",
        "Non si può chiudere (CLOSE): REVIEW.",
        "We kunnen het niet sluiten (CLOSE), dus REVIEW.",
    ],
)
def test_a_negated_verbs_gloss_beside_a_plain_label_is_not_the_verdict(answer: str) -> None:
    c = label("REVIEW").check(answer, CONTEXT)
    assert c.outcome is CheckOutcome.PASS, c.reason
    assert label("CLOSE").check(answer, CONTEXT).outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        # alone, the brackets may gloss the whole negated phrase
        ("The water is not safe to drink (DO_NOT_DRINK).", "DO_NOT_DRINK"),
        ("We cannot approve it (REJECT).", "REJECT"),
        # no negation before the gloss, or only a pronoun of negation
        ("We close it (CLOSE), no need for REVIEW.", "CLOSE"),
        ("Não há motivo para manter aberto: fechar (CLOSE).", "CLOSE"),
        ("Keine weiteren Fragen, wir schließen (CLOSE).", "CLOSE"),
    ],
)
def test_a_gloss_alone_or_not_negated_stays_named(answer: str, value: str) -> None:
    c = label(value).check(answer, CONTEXT)
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_a_pronoun_of_negation_does_not_set_the_gloss_aside() -> None:
    """ "Nothing stops us closing (CLOSE)" says CLOSE: beside another label, the answer names both."""
    c = label("REVIEW").check("Nothing stops us closing (CLOSE). Verdict: REVIEW.", CONTEXT)
    assert c.outcome is not CheckOutcome.PASS, c.reason
