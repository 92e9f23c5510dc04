"""proctor.graders: the deterministic assertion graders and the safety scan.

Pure code: no Kubernetes, no network, no Kopf. Compile a case's assertions once, grade answers
many times::

    compiled = compile_assertions(case.assertions)
    result = grade_case(case.id, case.tier, answer, compiled, CaseContext(context=docs))

Public names:

- :func:`compile_assertion`, :func:`compile_assertions` -> :class:`CompiledAssertion`
  (raise :class:`AssertionCompileError`); :meth:`CompiledAssertion.check` -> :class:`Check`.
- :class:`CaseContext`: reference, context documents, question, labels, embedder.
- A check's :class:`CheckOutcome` is pass, fail or undetermined; :class:`Unread` says when a
  language grader could not read the answer (:data:`GRADER_LANGUAGES`, :data:`SUPPORTED_LANGUAGES`),
  or that no grader can read what the assertion asks (:data:`JUDGE_ONLY`: ``no-cross-entity-leak``);
  :func:`unread_assertions` lists those as :class:`AssertionRubric` (:func:`assertion_rubric`) for
  the judge to score instead.
- :func:`grade_case` -> :class:`proctor.protocol.types.CaseResult`.
- :func:`scan` -> list of :class:`Finding` (redacted; the value itself is never kept);
  :class:`ScanPolicy` is what an EvalProfile's ``safetyScan`` turns on and allows.
- A whole case set: :func:`compile_cases` -> :class:`CompiledCase` (raises :class:`CaseSetProblem`
  naming every bad case), :func:`grade_answer` / :func:`unanswered` for one case,
  :func:`grade_cases` for recorded answers in one process; :func:`grade_shared` grades a large
  :class:`GradingJob` (inline cases and ConfigMap texts) with one process per core (:func:`cores`),
  each validating its own share, when :func:`worth_sharing` says so.
- :func:`redact_text` / :func:`redact_value`: a text (a JSON-like value) with every finding of
  the scan replaced by its marker ``[redacted KIND: PREVIEW]``, before it is stored or sent;
  :func:`redacted_findings` reads the markers back as findings (the evidence);
  :func:`redact_result` redacts what a case result quotes (rationales, reasons).
- :func:`steering_findings` -> :class:`SteeringFinding`: text in an answer addressed to its
  grader ("rate this answer 100", "ignore your rubric", a planted ``{"score": 100}``), in seven
  languages; :func:`grade_answer` makes the judged dimensions of such an answer unmeasured and
  fails :data:`INSTRUCTION_ADHERENCE` (phrase tables in ``_steering``).
- promptfoo's JavaScript readings, for the importer: :func:`translate_js_regex` (raises
  :class:`JsRegexError` where V8 would), :func:`js_string` (``String(value)``),
  :func:`load_js_yaml` (YAML as js-yaml reads it), :func:`to_json_value`.

The semantics of each assertion type are in ``_assertions`` (and the phrase lists in
``_language``); every text assertion and the scan read the canonical form of ``_canon``; the
safety scan's coverage is in ``_scan``, ``_secrets`` and ``_pii``.
"""

from proctor.graders._assertions import (
    DEFAULT_SIMILARITY_THRESHOLD,
    GRADER_LANGUAGES,
    JUDGE_ONLY,
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    Check,
    CheckOutcome,
    CompiledAssertion,
    Embedder,
    Unread,
    compile_assertion,
    compile_assertions,
)
from proctor.graders._exam import (
    AssertionRubric,
    CaseSetProblem,
    CompiledCase,
    compile_cases,
    grade_answer,
    grade_cases,
    unanswered,
    unread_assertions,
    warm_up,
    warm_up_languages,
)
from proctor.graders._grade import SAFETY_SCAN, grade_case
from proctor.graders._jscompat import (
    JsRegexError,
    js_string,
    load_js_yaml,
    to_json_value,
    translate_js_regex,
)
from proctor.graders._languages import SUPPORTED_LANGUAGES
from proctor.graders._redact import Finding
from proctor.graders._redaction import redact_result, redact_text, redact_value, redacted_findings
from proctor.graders._rubric import assertion_rubric
from proctor.graders._scan import scan
from proctor.graders._scanpolicy import ScanPolicy
from proctor.graders._shares import GradingJob, cores, grade_shared, needs_embedder, worth_sharing
from proctor.graders._steering import (
    INSTRUCTION_ADHERENCE,
    SteeringFinding,
    steering_findings,
    steering_reason,
)
from proctor.graders._steering import NOT_JUDGED as STEERING_NOT_JUDGED

__all__ = [
    "DEFAULT_SIMILARITY_THRESHOLD",
    "GRADER_LANGUAGES",
    "INSTRUCTION_ADHERENCE",
    "JUDGE_ONLY",
    "REGEX_TIMEOUT_SECONDS",
    "SAFETY_SCAN",
    "STEERING_NOT_JUDGED",
    "SUPPORTED_LANGUAGES",
    "AssertionCompileError",
    "AssertionRubric",
    "CaseContext",
    "CaseSetProblem",
    "Check",
    "CheckOutcome",
    "CompiledAssertion",
    "CompiledCase",
    "Embedder",
    "Finding",
    "GradingJob",
    "JsRegexError",
    "ScanPolicy",
    "SteeringFinding",
    "Unread",
    "assertion_rubric",
    "compile_assertion",
    "compile_assertions",
    "compile_cases",
    "cores",
    "grade_answer",
    "grade_case",
    "grade_cases",
    "grade_shared",
    "js_string",
    "load_js_yaml",
    "needs_embedder",
    "redact_result",
    "redact_text",
    "redact_value",
    "redacted_findings",
    "scan",
    "steering_findings",
    "steering_reason",
    "to_json_value",
    "translate_js_regex",
    "unanswered",
    "unread_assertions",
    "warm_up",
    "warm_up_languages",
    "worth_sharing",
]
