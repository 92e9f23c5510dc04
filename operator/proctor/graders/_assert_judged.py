"""Assertions only the judge measures: ``llm-rubric`` and the judge-only checks.

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

from proctor.api.assertions import Assertion
from proctor.graders._assert_core import CaseContext, Unread, _as_str, _Evaluate, _Result, _Unreadable
from proctor.graders._canon import Canonical

#: Assertion types no deterministic grader can measure, declared unread (:attr:`Unread.JUDGE`) so
#: the judge scores them as a rubric of their meaning (:func:`proctor.graders.unread_assertions`)
JUDGE_ONLY: frozenset[str] = frozenset({"no-cross-entity-leak"})
#: Why a judge-only check is undetermined without the judge (in the case's failure list).
JUDGE_ONLY_REASON = (
    "only the judge can measure this (the facts of another record, without its name, match no "
    "pattern); no judge scored it"
)


def _build_judge_only(a: Assertion, negated: bool) -> _Evaluate:
    if a.value is not None:
        _as_str(a)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        raise _Unreadable(Unread.JUDGE, JUDGE_ONLY_REASON)

    return evaluate


def _build_llm_rubric(a: Assertion, negated: bool) -> _Evaluate:
    _as_str(a)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        return None, "needs the judge (llm-rubric is scored by the judge, not by the deterministic graders)"

    return evaluate
