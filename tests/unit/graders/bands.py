"""The bands the language graders' tests ask ``label`` for, and that check of one answer."""

from __future__ import annotations

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

LABELS = ["NORMAL", "ELEVATED", "HIGH"]


def label(answer: str, expected: str, labels: list[str] = LABELS) -> tuple[CheckOutcome, str]:
    """``label`` expecting ``expected`` among ``labels`` on ``answer``: its outcome and reason."""
    c = compile_assertion(Assertion(type="label", value=expected, labels=labels)).check(answer)
    return c.outcome, c.reason
