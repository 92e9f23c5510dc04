"""A body's verb of agreeing with a prepositional object is its claim of agreement (session 37).

"La commissione concorda sulla GRADE_PENALTY" was no claim: "concorda su" was read, not "sulla",
nor "concorda con la presidente"; "s'accorde sur", "stimmt der ... zu", "concuerda con" and
"stemt in met" neither.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


SILENT = "Panel e-mails, 4 June. The chair proposed a written warning. No replies are recorded."
STATED = "Minutes, 4 June. The committee agreed on a written warning."


@pytest.mark.parametrize(
    "answer",
    [
        "The committee agrees on the written warning.",
        "Le comité s'accorde sur l'avertissement écrit.",
        "Der Ausschuss stimmt der schriftlichen Verwarnung zu.",
        "El comité concuerda con la amonestación por escrito.",
        "A comissão concorda com a advertência escrita.",
        "Il comitato concorda sulla diffida scritta.",
        "De commissie stemt in met de schriftelijke waarschuwing.",
    ],
)
def test_a_body_agreeing_on_or_with_something_claims_agreement(answer: str) -> None:
    assert check(answer, SILENT) is CheckOutcome.FAIL
    assert check(answer, STATED) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "The committee decides on the written warning.",
        "Le comité délibère sur l'avertissement écrit.",
        "Der Ausschuss berät über die schriftliche Verwarnung.",
        "El comité debate sobre la amonestación por escrito.",
        "A comissão discute a advertência escrita.",
        "Il comitato discute sulla diffida scritta.",
        "De commissie praat over de schriftelijke waarschuwing.",
    ],
)
def test_a_body_deliberating_on_something_claims_none(answer: str) -> None:
    assert check(answer, SILENT) is CheckOutcome.PASS
