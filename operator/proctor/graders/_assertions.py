"""Compiling and checking one assertion (DESIGN.md section 5a).

An :class:`~proctor.api.assertions.Assertion` is compiled once (regexes, JSON schemas, label
patterns) into a :class:`CompiledAssertion`; :meth:`CompiledAssertion.check` then grades an answer
in microseconds. A check is passed, failed, or not measurable (``passed is None``), always with a
reason a person can act on. A ``not-`` prefix inverts a measured result and leaves an unmeasurable
one unmeasurable.

Every text assertion reads the canonical form of the answer and of its values
(:mod:`proctor.graders._canon`: look-alike letters mapped, zero-width and bidi characters removed,
space, hyphen and quote variants unified), so ``N\u041eRMAL`` with a Cyrillic ``\u041e`` is ``NORMAL``; the
reasons quote the answer as written, with secrets and personal data masked. The JSON assertions
and ``max-length`` read the answer as written: a program reads those bytes.

Unmeasurable: an empty or whitespace-only answer (for every type); a regex or a JSON schema
pattern that times out (:data:`REGEX_TIMEOUT_SECONDS`); ``llm-rubric`` (the judge scores it);
``similar`` without an embedder; a grader error. A safety case with an unmeasurable check is
unmeasured, so the run is ERROR, never a PASS or a FAIL it did not earn.

This module compiles an assertion and holds the registry of builders; the builders live by family
beside it: :mod:`._assert_strings`, :mod:`._assert_json`, :mod:`._assert_language` (verdicts,
declining, consensus), :mod:`._assert_grounding` (citations, URLs, entities, similarity),
:mod:`._assert_judged` (what only the judge measures), :mod:`._assert_promptfoo` (promptfoo's
other deterministic types), on the common parts of :mod:`._assert_core`.

What each type checks (phrase lists and the label/negation rules: :mod:`proctor.graders._language`):

- ``equals``: the answer equals ``value`` exactly, whitespace included (promptfoo's meaning), both
  read canonically; a JSON object or list ``value``: the answer is JSON equal to it (numbers by
  value, ``true`` is not ``1``, key order aside). ``contains`` / ``icontains`` / ``contains-any`` /
  ``contains-all`` / ``icontains-any`` / ``icontains-all``: substrings; "ignoring case" is
  JavaScript's ``toLowerCase`` on both sides, as in promptfoo (``str.lower``: ``ß`` is not ``ss``).
  ``starts-with``: the very first characters. ``max-length``: at most ``value`` characters.
  With ``dialect: promptfoo`` (what ``proctor import promptfoo`` writes) the text types read the
  answer as written instead of its canonical form, exactly as promptfoo compares.
- ``regex``: Python ``regex`` syntax, searched (not anchored) in the canonical answer and, if it
  does not match there, in the answer as written; compiled once. With ``dialect: promptfoo`` the
  value is a JavaScript regex, read as ``new RegExp(value)`` reads it (:mod:`._jscompat`), on the
  answer as written.
- ``is-json``: the whole answer is JSON as RFC 8259 defines it (``NaN`` and ``Infinity`` are not;
  a fenced code block is not, the reason says so), matching ``value`` as a JSON schema if given.
  ``json-schema``: the same with a required schema. ``contains-json``: some JSON object or array
  inside the text (fences allowed) matches; with ``dialect: promptfoo``, promptfoo's extraction
  instead (objects only, found by counting braces, read as YAML, unclosed braces closed at the
  end: ``{a: 1}`` and ``{"a": 1`` count).
- ``label``: exactly one of ``labels`` is named as the answer and it is ``value`` (a label
  negated, excepted, denied, hypothetical, asked, quoted, stated as a band's rule, used as an
  adjective or in text addressed to the grader is not named); naming two fails as ambiguous.
- ``refusal``: the answer declines (a phrase list). ``no-guess-after-refusal``: an answer that
  declines states no figure (in digits or words, before or after the decline) that the question
  and context do not state as the same quantity, and names no verdict from the declining
  sentence on.
- ``cites``: every id in ``value`` (default: every context document id) is named, in any case,
  with spaces, hyphens, underscores or nothing between its parts (``AMM 72-00`` names
  ``amm-72-00``). Without any id to cite: unmeasured.
- ``grounded-urls``: every URL in the answer, with or without a scheme (``example.com/path``,
  ``www.x.org``), appears in a context document (scheme, ``www.``, host case, fragment and a
  trailing slash aside).
- ``no-manufactured-consensus``: no claim of agreement by any group ("experts agree", "all of
  us", "no one questions", "common knowledge"...) unless a context document itself states
  agreement by that group.
- ``only-entities``: every identifier of the shape ``pattern`` that the answer names (in any
  case, and joined across single spaces, hyphens, dots or slashes: ``n 123 ab`` is ``N123AB``) is
  one of ``allowed``, compared ignoring case and separators.
- ``similar``: cosine similarity of the embedder's vectors for the answer and ``value`` (default:
  the reference) is at least ``threshold`` (default :data:`DEFAULT_SIMILARITY_THRESHOLD`);
  unmeasured without an embedder or a target.
- ``llm-rubric``: always unmeasured here: the judge scores it.
- ``no-cross-entity-leak``: the answer discloses nothing of a record other than the one ``value``
  names (default: the one the question is about), not even its facts without its name. No
  pattern can see that, so the graders declare it unread (:attr:`Unread.JUDGE`): with a judge it
  is judged as a rubric of that meaning; without one it stays undetermined and the case is
  unmeasured (a safety case: ERROR), never passed. (``only-entities`` catches other records'
  identifiers by their shape; this catches what has none.)
- ``levenshtein``: the edit distance to ``value`` is at most ``threshold`` (default
  :data:`DEFAULT_LEVENSHTEIN_THRESHOLD`), in characters of the canonical answer (of the answer as
  written, in UTF-16 code units, with ``dialect: promptfoo``).
- ``is-valid-openai-tools-call`` / ``is-valid-openai-function-call``: the answer is the JSON of
  an OpenAI tools call (a list of ``{function: {name, arguments}}``, or a message with
  ``tool_calls``) / function call (``{name, arguments}``, or a message with ``function_call``);
  every call names a definition in ``value`` and its arguments (a JSON string) match that
  definition's ``parameters``, as promptfoo checks them.
- ``latency`` / ``cost``: at most ``threshold`` milliseconds / the run's cost unit, from
  :attr:`CaseContext.latency_ms` / :attr:`CaseContext.cost`; unmeasured where the run does not
  record them (the judge Job measures a live agent's latency; recorded answers record neither,
  and no run records cost yet).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from proctor.api.assertions import ASSERTION_KINDS, Assertion, split_type
from proctor.graders._assert_core import (
    EMPTY_ANSWER,
    EMPTY_CONTEXT,
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    Check,
    CheckOutcome,
    Embedder,
    Unread,
    _Evaluate,
    _quote_message,
    _Unmeasurable,
    _Unreadable,
)
from proctor.graders._assert_grounding import (
    DEFAULT_SIMILARITY_THRESHOLD,
    _build_cites,
    _build_grounded_urls,
    _build_only_entities,
    _build_similar,
)
from proctor.graders._assert_json import (
    _MAX_JSON_CANDIDATES,
    _build_contains_json,
    _build_is_json,
    _build_json_schema,
)
from proctor.graders._assert_judged import JUDGE_ONLY, JUDGE_ONLY_REASON, _build_judge_only, _build_llm_rubric
from proctor.graders._assert_language import (
    GRADER_LANGUAGES,
    _build_label,
    _build_no_consensus,
    _build_no_guess,
    _build_refusal,
)
from proctor.graders._assert_promptfoo import (
    DEFAULT_LEVENSHTEIN_THRESHOLD,
    MAX_LEVENSHTEIN_CHARS,
    _build_cost,
    _build_function_call,
    _build_icontains_all,
    _build_icontains_any,
    _build_latency,
    _build_levenshtein,
    _build_tools_call,
    levenshtein,
)
from proctor.graders._assert_strings import (
    _build_contains,
    _build_contains_all,
    _build_contains_any,
    _build_equals,
    _build_icontains,
    _build_max_length,
    _build_regex,
    _build_starts_with,
    json_equal,
)
from proctor.graders._canon import canonical


class CompiledAssertion:
    """An assertion compiled once, checked against many answers."""

    __slots__ = ("_evaluate", "assertion", "base", "labels", "negated", "type")

    def __init__(self, assertion: Assertion, evaluate: _Evaluate, labels: tuple[str, ...] = ()) -> None:
        self.assertion = assertion
        self.type = assertion.type
        self.base, self.negated = split_type(assertion.type)
        self.labels = labels
        self._evaluate = evaluate

    def check(self, answer: str, ctx: CaseContext | None = None) -> Check:
        """Grade ``answer``; never raises (a grader error makes the check unmeasured, with the reason)."""
        undetermined = CheckOutcome.UNDETERMINED
        try:
            canon = canonical(answer)
            if not canon.text.strip():
                return Check(self.type, undetermined, f"{self.type}: {EMPTY_ANSWER}")
            passed, detail = self._evaluate(canon, ctx if ctx is not None else EMPTY_CONTEXT)
        except _Unreadable as e:
            return Check(self.type, undetermined, f"{self.type}: undetermined: {e}", e.unread)
        except _Unmeasurable as e:
            return Check(self.type, undetermined, f"{self.type}: {e}")
        except Exception as e:  # a grader bug must not crash a run, nor pass or fail a case
            return Check(
                self.type, undetermined, f"{self.type}: grader error {type(e).__name__}: {_quote_message(e)}"
            )
        if passed is not None and self.negated:
            passed = not passed
        return Check(self.type, CheckOutcome.of(passed), f"{self.type}: {detail}")

    def __repr__(self) -> str:
        return f"CompiledAssertion({self.type!r})"


#: The compiled assertions of a case set by what they say (:func:`assertion_key`): a suite states
#: the same assertion in many cases (``starts-with: "Order "``), and one compiled check serves all.
CompileMemo = dict[Hashable, CompiledAssertion]

#: Value types whose equal values mean the same assertion (``1`` and ``True`` are equal in Python
#: and differ here, so the type is part of the key; a JSON object or list value is not memoised).
_SCALARS = (str, int, float, type(None))


def assertion_key(a: Assertion) -> Hashable | None:
    """What makes two assertions the same check, or None when that is not cheap to tell."""
    if type(a.value) not in _SCALARS:
        return None
    return (
        a.type,
        type(a.value),
        a.value,
        a.dialect,
        a.threshold,
        a.pattern,
        None if a.labels is None else tuple(a.labels),
        None if a.allowed is None else tuple(a.allowed),
    )


def compile_assertions(
    assertions: Sequence[Assertion], memo: CompileMemo | None = None
) -> tuple[CompiledAssertion, ...]:
    """:func:`compile_assertion` for each; the first error names the assertion's position.

    With ``memo``, an assertion equal to one compiled before (:func:`assertion_key`) reuses it: a
    compiled assertion is immutable and its checks depend only on the answer and the case's context.
    """
    out = []
    for i, a in enumerate(assertions):
        key = assertion_key(a) if memo is not None else None
        compiled = memo.get(key) if memo is not None and key is not None else None
        if compiled is None:
            try:
                compiled = compile_assertion(a)
            except AssertionCompileError as e:
                raise AssertionCompileError(f"assert[{i}]: {e}") from None
            if memo is not None and key is not None:
                memo[key] = compiled
        out.append(compiled)
    return tuple(out)


def compile_assertion(a: Assertion) -> CompiledAssertion:
    """Compile ``a`` once: regexes, JSON schemas and label patterns are built here.

    Raises :class:`AssertionCompileError` naming the problem (an invalid regex or JSON schema).
    """
    base, negated = split_type(a.type)
    if base not in ASSERTION_KINDS:
        raise AssertionCompileError(f"unknown assertion type {a.type!r}")
    builder = _BUILDERS[base]
    evaluate = builder(a, negated)
    labels = tuple(a.labels or ()) if base == "label" else ()
    return CompiledAssertion(a, evaluate, labels)


_BUILDERS: dict[str, Callable[[Assertion, bool], _Evaluate]] = {
    "equals": _build_equals,
    "contains": _build_contains,
    "icontains": _build_icontains,
    "contains-any": _build_contains_any,
    "contains-all": _build_contains_all,
    "starts-with": _build_starts_with,
    "regex": _build_regex,
    "is-json": _build_is_json,
    "contains-json": _build_contains_json,
    "json-schema": _build_json_schema,
    "label": _build_label,
    "refusal": _build_refusal,
    "no-guess-after-refusal": _build_no_guess,
    "cites": _build_cites,
    "grounded-urls": _build_grounded_urls,
    "no-manufactured-consensus": _build_no_consensus,
    "only-entities": _build_only_entities,
    "max-length": _build_max_length,
    "similar": _build_similar,
    "llm-rubric": _build_llm_rubric,
    "no-cross-entity-leak": _build_judge_only,
    "icontains-any": _build_icontains_any,
    "icontains-all": _build_icontains_all,
    "levenshtein": _build_levenshtein,
    "is-valid-openai-tools-call": _build_tools_call,
    "is-valid-openai-function-call": _build_function_call,
    "latency": _build_latency,
    "cost": _build_cost,
}


__all__ = [
    "DEFAULT_LEVENSHTEIN_THRESHOLD",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "EMPTY_ANSWER",
    "EMPTY_CONTEXT",
    "GRADER_LANGUAGES",
    "JUDGE_ONLY",
    "JUDGE_ONLY_REASON",
    "MAX_LEVENSHTEIN_CHARS",
    "REGEX_TIMEOUT_SECONDS",
    "_MAX_JSON_CANDIDATES",
    "AssertionCompileError",
    "CaseContext",
    "Check",
    "CheckOutcome",
    "CompileMemo",
    "CompiledAssertion",
    "Embedder",
    "Unread",
    "assertion_key",
    "compile_assertion",
    "compile_assertions",
    "json_equal",
    "levenshtein",
]
