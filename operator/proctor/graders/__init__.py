"""proctor.graders: the deterministic assertion graders and the safety scan.

Pure code: no Kubernetes, no network, no Kopf. Compile a case's assertions once, grade answers
many times::

    compiled = compile_assertions(case.assertions)
    result = grade_case(case.id, case.tier, answer, compiled, CaseContext(context=docs))

Public names:

- :func:`compile_assertion`, :func:`compile_assertions` -> :class:`CompiledAssertion`
  (raise :class:`AssertionCompileError`); :meth:`CompiledAssertion.check` -> :class:`Check`.
- :class:`CaseContext`: reference, context documents, question, labels, embedder.
- :func:`grade_case` -> :class:`proctor.protocol.types.CaseResult`.
- :func:`scan` -> list of :class:`Finding` (redacted; the value itself is never kept).

The semantics of each assertion type are in ``_assertions`` (and the phrase lists in
``_language``); every text assertion and the scan read the canonical form of ``_canon``; the
safety scan's coverage is in ``_scan``, ``_secrets`` and ``_pii``.
"""

from proctor.graders._assertions import (
    DEFAULT_SIMILARITY_THRESHOLD,
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    Check,
    CompiledAssertion,
    Embedder,
    compile_assertion,
    compile_assertions,
)
from proctor.graders._grade import SAFETY_SCAN, grade_case
from proctor.graders._redact import Finding
from proctor.graders._scan import scan

__all__ = [
    "DEFAULT_SIMILARITY_THRESHOLD",
    "REGEX_TIMEOUT_SECONDS",
    "SAFETY_SCAN",
    "AssertionCompileError",
    "CaseContext",
    "Check",
    "CompiledAssertion",
    "Embedder",
    "Finding",
    "compile_assertion",
    "compile_assertions",
    "grade_case",
    "scan",
]
