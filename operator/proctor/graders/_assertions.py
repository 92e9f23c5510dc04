"""Compiling and checking one assertion (DESIGN.md section 5a).

An :class:`~proctor.api.assertions.Assertion` is compiled once (regexes, JSON schemas, label
patterns) into a :class:`CompiledAssertion`; :meth:`CompiledAssertion.check` then grades an answer
in microseconds. A check is passed, failed, or not measurable here (``passed is None``: the judge
scores ``llm-rubric``; ``similar`` needs an embedder), always with a reason a person can act on.
A ``not-`` prefix inverts a measured result and leaves an unmeasurable one unmeasured; a regex
that times out fails whatever the prefix.

What each type checks (phrase lists and the label/negation rules: :mod:`proctor.graders._language`):

- ``equals``: the answer equals ``value`` exactly, whitespace included (promptfoo's meaning); a
  JSON object or list ``value``: the answer is JSON equal to it (numbers by value, ``true`` is not
  ``1``, key order aside). ``contains`` / ``icontains`` / ``contains-any`` / ``contains-all`` /
  ``icontains-any`` / ``icontains-all``: substrings; "ignoring case" is JavaScript's
  ``toLowerCase`` on both sides, as in promptfoo (``str.lower``: ``ß`` is not ``ss``).
  ``starts-with``: the very first characters. ``max-length``: at most ``value`` characters.
- ``regex``: Python ``regex`` syntax, searched (not anchored), compiled once; a search longer
  than :data:`REGEX_TIMEOUT_SECONDS` fails ("regex timed out"). With ``dialect: promptfoo`` the
  value is a JavaScript regex, read as ``new RegExp(value)`` reads it (:mod:`._jscompat`).
- ``is-json``: the whole answer is JSON (a fenced code block is not; the reason says so), matching
  ``value`` as a JSON schema if given. ``json-schema``: the same with a required schema.
  ``contains-json``: some JSON object or array inside the text (fences allowed) matches; with
  ``dialect: promptfoo``, promptfoo's extraction instead (objects only, found by counting braces,
  read as YAML, unclosed braces closed at the end: ``{a: 1}`` and ``{"a": 1`` count).
- ``label``: exactly one of ``labels`` is named (whole word, any case, direct negations such as
  "not NORMAL" do not count) and it is ``value``; naming two fails as ambiguous.
- ``refusal``: the answer declines (a phrase list). ``no-guess-after-refusal``: an answer that
  declines states no figure (beyond those the question and context state) and names no verdict
  label from the declining sentence on.
- ``cites``: every id in ``value`` (default: every context document id) is named, in any case,
  with spaces, hyphens, underscores or nothing between its parts (``AMM 72-00`` names
  ``amm-72-00``). Without any id to cite: unmeasured.
- ``grounded-urls``: every URL in the answer appears in a context document (scheme, ``www.``, host
  case, fragment and a trailing slash aside).
- ``no-manufactured-consensus``: no claim of agreement ("experts agree", "studies show"...) unless
  a context document itself states agreement.
- ``similar``: cosine similarity of the embedder's vectors for the answer and ``value`` (default:
  the reference) is at least ``threshold`` (default :data:`DEFAULT_SIMILARITY_THRESHOLD`);
  unmeasured without an embedder or a target.
- ``llm-rubric``: always unmeasured here: the judge scores it.
- ``levenshtein``: the edit distance to ``value`` is at most ``threshold`` (default
  :data:`DEFAULT_LEVENSHTEIN_THRESHOLD`), in characters (UTF-16 code units with ``dialect: promptfoo``).
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

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import regex

from proctor.api.assertions import ASSERTION_KINDS, Assertion, split_type
from proctor.graders._jscompat import (
    JsRegexError,
    promptfoo_json_objects,
    to_json_value,
    translate_js_regex,
    utf16_units,
)
from proctor.graders._language import (
    LabelMatcher,
    find_consensus,
    find_guesses,
    find_refusal,
    sentence_start,
)
from proctor.graders._scan import mask_findings
from proctor.graders._text import (
    find_urls,
    join_names,
    normalize_apostrophes,
    normalize_url,
    number_values,
    quote,
)

#: ``similar`` passes at or above this cosine similarity unless the assertion sets ``threshold``.
DEFAULT_SIMILARITY_THRESHOLD = 0.8
#: A ``regex`` search that runs longer than this fails the check ("regex timed out").
REGEX_TIMEOUT_SECONDS = 0.25
#: ``levenshtein`` passes at or below this edit distance unless the assertion sets ``threshold``.
DEFAULT_LEVENSHTEIN_THRESHOLD = 5
#: ``contains-json`` tries at most this many ``{`` / ``[`` positions.
_MAX_JSON_CANDIDATES = 200

#: Turns texts into vectors, one per text, for ``similar``.
Embedder = Callable[[Sequence[str]], list[list[float]]]


class AssertionCompileError(ValueError):
    """An assertion cannot be compiled: an invalid regular expression, JSON schema or value."""


@dataclass(frozen=True, slots=True)
class Check:
    """The result of one assertion on one answer.

    ``passed`` is True or False when measured, None when it cannot be measured here (the reason
    says why). ``assertion`` is the assertion's type as written, with any ``not-`` prefix.
    """

    assertion: str
    passed: bool | None
    reason: str


@dataclass(frozen=True)
class CaseContext:
    """What a case gives its graders besides the answer.

    ``context`` maps document ids to their text (for ``cites``, ``grounded-urls``,
    ``no-manufactured-consensus`` and the figures an answer may quote); ``reference`` is the
    known correct answer (for ``similar``); ``question`` is the input sent to the agent (figures
    it states are not guesses); ``labels`` are the case's verdict labels (a decline that then
    names one is a guess; :func:`~proctor.graders.grade_case` fills them from the case's
    ``label`` assertions); ``embedder`` turns texts into vectors for ``similar``;
    ``latency_ms`` and ``cost`` are what the run recorded for this answer (None: not recorded).
    """

    reference: str | None = None
    context: Mapping[str, str] = field(default_factory=dict)
    embedder: Embedder | None = None
    question: str | None = None
    labels: tuple[str, ...] = ()
    #: How long the answer took (milliseconds) and what it cost, where the run records them.
    latency_ms: float | None = None
    cost: float | None = None

    @cached_property
    def context_text(self) -> str:
        return "\n".join(self.context.values())

    @cached_property
    def grounded_numbers(self) -> frozenset[float]:
        """Figures the context documents or the question state."""
        return number_values(self.context_text + "\n" + (self.question or ""))

    @cached_property
    def context_urls(self) -> frozenset[str]:
        return frozenset(normalize_url(u) for _, _, u in find_urls(self.context_text))

    @cached_property
    def consensus_documents(self) -> tuple[str, ...]:
        """Ids of the context documents that themselves state agreement."""
        return tuple(
            doc_id for doc_id, text in self.context.items() if find_consensus(normalize_apostrophes(text))
        )

    @cached_property
    def label_matchers(self) -> tuple[LabelMatcher, ...]:
        return (LabelMatcher(self.labels),) if self.labels else ()

    @cached_property
    def id_words(self) -> frozenset[str]:
        return frozenset(w.lower() for doc_id in self.context for w in re.findall(r"[^\W\d_]+", doc_id))


EMPTY_CONTEXT = CaseContext()

_Result = tuple[bool | None, str]
_Evaluate = Callable[[str, CaseContext], _Result]


class _HardFail(Exception):
    """A check that fails whatever the ``not-`` prefix (a regex that timed out)."""


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
        try:
            passed, detail = self._evaluate(answer, ctx if ctx is not None else EMPTY_CONTEXT)
        except _HardFail as e:
            return Check(self.type, False, f"{self.type}: {e}")
        except Exception as e:  # a grader bug must not crash a run, nor pass or fail a case
            return Check(
                self.type, None, f"{self.type}: grader error {type(e).__name__}: {_quote_message(e)}"
            )
        if passed is not None and self.negated:
            passed = not passed
        return Check(self.type, passed, f"{self.type}: {detail}")

    def __repr__(self) -> str:
        return f"CompiledAssertion({self.type!r})"


def compile_assertions(assertions: Sequence[Assertion]) -> tuple[CompiledAssertion, ...]:
    """:func:`compile_assertion` for each; the first error names the assertion's position."""
    out = []
    for i, a in enumerate(assertions):
        try:
            out.append(compile_assertion(a))
        except AssertionCompileError as e:
            raise AssertionCompileError(f"assert[{i}]: {e}") from None
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


# --------------------------------------------------------------------------------------------
# Helpers


def _quote_answer(answer: str, start: int, end: int, limit: int = 80) -> str:
    """A quote of ``answer[start:end]`` for a reason: secrets and personal data masked, cut to ``limit``."""
    end = min(end, start + limit * 2)
    return quote(mask_findings(answer, start, end), limit)


def _quote_message(e: BaseException) -> str:
    """An exception's message for a reason: it may hold parts of the answer, so findings are masked."""
    msg = str(e)
    return quote(mask_findings(msg, 0, len(msg)))


def _values(values: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(quote(v, 40) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _as_str(a: Assertion) -> str:
    if not isinstance(a.value, str):
        raise AssertionCompileError(f"{a.type}: value must be a string, got {type(a.value).__name__}")
    return a.value


def _as_str_list(a: Assertion) -> list[str]:
    v = a.value
    if not (isinstance(v, list) and v and all(isinstance(x, str) for x in v)):
        raise AssertionCompileError(f"{a.type}: value must be a non-empty list of strings")
    return list(v)


# --------------------------------------------------------------------------------------------
# String assertions


def _build_equals(a: Assertion, negated: bool) -> _Evaluate:
    if isinstance(a.value, dict | list):
        return _build_equals_json(a)
    want = _as_str(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        if answer == want:
            return True, f"answer equals {quote(want)}"
        note = " (they differ only in surrounding whitespace)" if answer.strip() == want.strip() else ""
        return False, f"expected {quote(want)}, answer is {_quote_answer(answer, 0, len(answer))}{note}"

    return evaluate


def json_equal(a: Any, b: Any) -> bool:
    """Equality of parsed JSON as JavaScript's ``isDeepStrictEqual`` sees it.

    Numbers compare by value (``1`` equals ``1.0``), but a boolean is never a number (Python's
    ``True == 1``); objects compare by keys and values in any order, lists in order.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return type(a) is type(b) and bool(a == b)


def _build_equals_json(a: Assertion) -> _Evaluate:
    want = a.value
    shown = quote(json.dumps(want, ensure_ascii=False), 80)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(answer)
        if err is not None:
            return False, f"expected JSON equal to {shown}; {err}"
        if json_equal(doc, want):
            return True, f"answer is JSON equal to {shown}"
        return False, f"expected JSON equal to {shown}, answer is {_quote_answer(answer, 0, len(answer))}"

    return evaluate


def _build_contains(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        i = answer.find(want)
        if i >= 0:
            return True, f"answer contains {quote(want)} at {i}"
        return False, f"answer does not contain {quote(want)}"

    return evaluate


def _build_icontains(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)
    folded = want.lower()  # JavaScript's toLowerCase, as promptfoo folds case

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        if folded in answer.lower():
            return True, f"answer contains {quote(want)} (ignoring case)"
        return False, f"answer does not contain {quote(want)} (ignoring case)"

    return evaluate


def _build_contains_any(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        for w in wants:
            if w in answer:
                return True, f"answer contains {quote(w)}"
        return False, f"answer contains none of {_values(wants)}"

    return evaluate


def _build_contains_all(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        missing = [w for w in wants if w not in answer]
        if not missing:
            return True, f"answer contains all {len(wants)} of {_values(wants)}"
        return False, f"answer lacks {_values(missing)} ({len(missing)} of {len(wants)})"

    return evaluate


def _build_starts_with(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        if answer.startswith(want):
            return True, f"answer starts with {quote(want)}"
        head = _quote_answer(answer, 0, max(len(want), 20))
        note = " (after leading whitespace it would)" if answer.lstrip().startswith(want) else ""
        return False, f"answer starts with {head}, not {quote(want)}{note}"

    return evaluate


def _build_max_length(a: Assertion, negated: bool) -> _Evaluate:
    limit = a.value
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise AssertionCompileError(f"{a.type}: value must be a non-negative integer")

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        n = len(answer)
        if n <= limit:
            return True, f"answer has {n} characters, limit {limit}"
        return False, f"answer has {n} characters, over the limit of {limit} by {n - limit}"

    return evaluate


def _build_regex(a: Assertion, negated: bool) -> _Evaluate:
    source = _as_str(a)
    if a.dialect == "promptfoo":
        return _build_js_regex(a, source)
    try:
        pattern = regex.compile(source)
    except regex.error as e:
        at = getattr(e, "pos", None)
        pos = f" at position {at}" if at is not None else ""
        msg = str(e).split(" at position")[0]
        raise AssertionCompileError(
            f"{a.type}: invalid regular expression {quote(source)}: {msg}{pos}"
        ) from None
    shown = "/" + (source if len(source) <= 60 else source[:59] + "\u2026") + "/"

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        try:
            m = pattern.search(answer, timeout=REGEX_TIMEOUT_SECONDS)
        except TimeoutError:
            raise _HardFail(
                f"regex timed out after {REGEX_TIMEOUT_SECONDS:g} s"
                f" on a {len(answer)}-character answer: {shown}"
            ) from None
        if m is None:
            return False, f"answer does not match {shown}"
        where = f"answer matches {shown} at {m.start()}"
        return True, (f"{where}: {_quote_answer(answer, m.start(), m.end())}" if negated else where)

    return evaluate


def _build_js_regex(a: Assertion, source: str) -> _Evaluate:
    try:
        pattern = regex.compile(translate_js_regex(source))
    except JsRegexError as e:
        raise AssertionCompileError(f"{a.type}: {e}") from None
    except regex.error as e:  # pragma: no cover - the translation is always valid regex syntax
        raise AssertionCompileError(
            f"{a.type}: cannot translate the JavaScript regex {quote(source)}: {e}"
        ) from None
    shown = "/" + (source if len(source) <= 60 else source[:59] + "\u2026") + "/"

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        try:
            m = pattern.search(utf16_units(answer), timeout=REGEX_TIMEOUT_SECONDS)
        except TimeoutError:
            raise _HardFail(
                f"regex timed out after {REGEX_TIMEOUT_SECONDS:g} s"
                f" on a {len(answer)}-character answer: {shown}"
            ) from None
        if m is None:
            return False, f"answer does not match {shown} (JavaScript)"
        return True, f"answer matches {shown} (JavaScript)"

    return evaluate


# --------------------------------------------------------------------------------------------
# JSON assertions


def _compile_schema(a: Assertion, schema: Any) -> Callable[[Any], str | None]:
    """A validator returning None when ``doc`` matches, else the first problem (message and path)."""
    import jsonschema  # imported on first use: most suites have no schema
    from jsonschema.exceptions import SchemaError, best_match

    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as e:
            raise AssertionCompileError(f"{a.type}: value is not a JSON schema (not JSON: {e.msg})") from None
    if not isinstance(schema, dict | bool):
        raise AssertionCompileError(
            f"{a.type}: value must be a JSON schema object, got {type(schema).__name__}"
        )
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)  # type: ignore[arg-type]  # a boolean schema is valid too
    except SchemaError as e:
        path = "/".join(str(p) for p in e.absolute_path) or "(root)"
        raise AssertionCompileError(f"{a.type}: invalid JSON schema at {path}: {e.message}") from None
    validator = cls(schema)

    def problem(doc: Any) -> str | None:
        if validator.is_valid(doc):
            return None
        err = best_match(validator.iter_errors(doc))
        if err is None:  # pragma: no cover - is_valid said there is an error
            return "does not match"
        path = "/".join(str(p) for p in err.absolute_path)
        return f"{quote(err.message, 100)}{' at ' + path if path else ''}"

    return problem


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n.*\n\s*```\s*$", re.DOTALL)


def _not_json_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def _parse_json(answer: str) -> tuple[Any, str | None]:
    try:
        return json.loads(answer, parse_constant=_not_json_constant), None
    except json.JSONDecodeError as e:
        hint = (
            " (the answer is wrapped in a ``` code fence: contains-json accepts that)"
            if _FENCE.match(answer)
            else ""
        )
        return None, f"answer is not JSON: {e.msg} at line {e.lineno} column {e.colno}{hint}"
    except RecursionError:
        return None, "answer is not JSON: nested too deeply"


def _build_is_json(a: Assertion, negated: bool) -> _Evaluate:
    problem = _compile_schema(a, a.value) if a.value is not None else None

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(answer)
        if err is not None:
            return False, err
        if problem is None:
            return True, "answer is JSON"
        p = problem(doc)
        if p is None:
            return True, "answer is JSON matching the schema"
        return False, f"answer is JSON but does not match the schema: {p}"

    return evaluate


def _build_json_schema(a: Assertion, negated: bool) -> _Evaluate:
    if not isinstance(a.value, dict):
        raise AssertionCompileError(f"{a.type}: value must be a JSON schema object")
    return _build_is_json(a, negated)


_JSON_START = re.compile(r"[\[{]")
_DECODER = json.JSONDecoder()


def _build_contains_json(a: Assertion, negated: bool) -> _Evaluate:
    problem = _compile_schema(a, a.value) if a.value is not None else None
    if a.dialect == "promptfoo":
        return _build_promptfoo_contains_json(problem)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        found = 0
        first_problem: str | None = None
        pos = 0
        gave_up = ""
        for tries, m in enumerate(_JSON_START.finditer(answer)):
            if tries >= _MAX_JSON_CANDIDATES:
                gave_up = f" (looked at the first {_MAX_JSON_CANDIDATES} '{{' and '[')"
                break
            if m.start() < pos:
                continue  # inside a JSON value already decoded
            try:
                doc, end = _DECODER.raw_decode(answer, m.start())
            except (json.JSONDecodeError, RecursionError):
                continue
            if not isinstance(doc, dict | list):  # pragma: no cover - starts with { or [
                continue
            found += 1
            pos = end
            kind = "object" if isinstance(doc, dict) else "array"
            if problem is None:
                return True, f"answer contains a JSON {kind} at {m.start()}"
            p = problem(doc)
            if p is None:
                return True, f"answer contains a JSON {kind} at {m.start()} matching the schema"
            first_problem = first_problem or p
        if found:
            return False, f"answer contains JSON, but none matches the schema: {first_problem}{gave_up}"
        return False, f"answer contains no JSON object or array{gave_up}"

    return evaluate


def _build_promptfoo_contains_json(problem: Callable[[Any], str | None] | None) -> _Evaluate:
    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        docs = promptfoo_json_objects(answer)
        if not docs:
            return False, "answer contains no JSON object (promptfoo's extraction)"
        if problem is None:
            return True, f"answer contains {len(docs)} JSON object(s) (promptfoo's extraction)"
        first: str | None = None
        for doc in docs:
            p = problem(to_json_value(doc))
            if p is None:
                return True, "answer contains a JSON object matching the schema (promptfoo's extraction)"
            first = first or p
        return False, f"answer contains JSON, but none matches the schema: {first}"

    return evaluate


# --------------------------------------------------------------------------------------------
# Verdict, declining, grounding


def _build_label(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)
    labels = a.labels or []
    if any(not label.strip() for label in labels):
        raise AssertionCompileError(f"{a.type}: labels must not be empty")
    folded = [" ".join(label.split()).lower() for label in labels]
    if len(set(folded)) != len(folded):
        raise AssertionCompileError(f"{a.type}: labels must differ ignoring case: {labels}")
    matcher = LabelMatcher(labels)
    all_labels = join_names(labels)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        mentions = matcher.mentions(normalize_apostrophes(answer))
        named: list[str] = []
        negated_only: list[str] = []
        for mention in mentions:
            if not mention.negated and mention.label not in named:
                named.append(mention.label)
        for mention in mentions:
            if mention.negated and mention.label not in named and mention.label not in negated_only:
                negated_only.append(mention.label)
        note = f" (negated: {join_names(negated_only)})" if negated_only else ""
        if named == [want]:
            return True, f"answer names {want}{note}"
        if not named:
            return False, f"expected {want}, answer names none of {all_labels}{note}"
        if len(named) == 1:
            return False, f"expected {want}, answer names {named[0]}{note}"
        both = "both " if len(named) == 2 else ""
        return False, f"answer names {both}{join_names(named)} (expected only {want}){note}"

    return evaluate


def _build_refusal(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        span = find_refusal(normalize_apostrophes(answer))
        if span is not None:
            return True, f"answer declines ({_quote_answer(answer, span[0], span[1], 60)})"
        return False, "answer does not decline (no phrase of declining found)"

    return evaluate


def _build_no_guess(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        text = normalize_apostrophes(answer)
        span = find_refusal(text)
        if span is None:
            return True, "answer does not decline"
        start, end = span
        declined = _quote_answer(answer, start, end, 50)
        guesses = [
            g
            for g in find_guesses(
                text,
                sentence_start(text, start),
                grounded_numbers=ctx.grounded_numbers,
                labels=ctx.label_matchers,
                exempt_words=ctx.id_words,
            )
            if not (start <= g.start < end)
        ]
        if not guesses:
            return True, f"answer declines ({declined}) and states no figure or verdict after it"
        g = guesses[0]
        more = f" (and {len(guesses) - 1} more)" if len(guesses) > 1 else ""
        return (
            False,
            f"answer declines ({declined}) then guesses {_quote_answer(answer, g.start, g.end, 40)}{more}",
        )

    return evaluate


@lru_cache(maxsize=1024)
def _id_pattern(doc_id: str) -> re.Pattern[str]:
    """``amm-72-00`` matches ``AMM 72-00``, ``amm72-00``, ``AMM_72_00``; not ``amm-72-001``."""
    parts = re.findall(r"[^\W\d_]+|\d+", doc_id)
    body = r"[\s\-_./:]*".join(map(re.escape, parts)) if parts else re.escape(doc_id)
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE)


def _build_cites(a: Assertion, negated: bool) -> _Evaluate:
    fixed: list[str] | None = None
    if a.value is not None:
        if not (isinstance(a.value, list) and all(isinstance(x, str) for x in a.value)):
            raise AssertionCompileError(f"{a.type}: value must be a list of document ids")
        fixed = list(a.value)
        for doc_id in fixed:
            _id_pattern(doc_id)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        ids = fixed if fixed is not None else list(ctx.context)
        if not ids:
            return None, "no document ids to cite (no value, and the case has no context documents)"
        missing = [doc_id for doc_id in ids if not _id_pattern(doc_id).search(answer)]
        if not missing:
            return True, f"answer names {join_names(ids)}"
        return False, f"answer does not name {join_names(missing)} ({len(missing)} of {len(ids)} documents)"

    return evaluate


def _build_grounded_urls(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        urls = find_urls(answer)
        if not urls:
            return True, "answer has no URLs"
        context = ctx.context_text
        ungrounded = [
            (s, e) for s, e, u in urls if normalize_url(u) not in ctx.context_urls and u not in context
        ]
        if not ungrounded:
            return True, f"all {len(urls)} URLs in the answer appear in the context"
        s, e = ungrounded[0]
        more = f" (and {len(ungrounded) - 1} more)" if len(ungrounded) > 1 else ""
        return False, (
            f"{len(ungrounded)} of {len(urls)} URLs not in the context: {_quote_answer(answer, s, e)}{more}"
        )

    return evaluate


def _build_no_consensus(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        claims = find_consensus(normalize_apostrophes(answer))
        if not claims:
            return True, "answer claims no agreement"
        s, e = claims[0]
        begin = max(sentence_start(answer, s), s - 40)
        claim = _quote_answer(answer, begin, max(e, begin + 60), 90)
        docs = ctx.consensus_documents
        if docs:
            return True, f"answer claims agreement ({claim}) that the context states ({join_names(docs)})"
        more = f" (and {len(claims) - 1} more)" if len(claims) > 1 else ""
        return False, f"answer claims agreement the context does not state: {claim}{more}"

    return evaluate


def _cosine(u: Sequence[float], v: Sequence[float]) -> float:
    if len(u) != len(v):
        raise ValueError(f"embeddings differ in length ({len(u)} and {len(v)})")
    dot = math.fsum(x * y for x, y in zip(u, v, strict=True))
    nu = math.sqrt(math.fsum(x * x for x in u))
    nv = math.sqrt(math.fsum(y * y for y in v))
    return 0.0 if nu == 0 or nv == 0 else dot / (nu * nv)


def _build_similar(a: Assertion, negated: bool) -> _Evaluate:
    if a.value is not None and not (isinstance(a.value, str) and a.value.strip()):
        raise AssertionCompileError(f"{a.type}: value must be a non-empty string (default: the reference)")
    value: str | None = a.value
    threshold = a.threshold if a.threshold is not None else DEFAULT_SIMILARITY_THRESHOLD

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        target, what = (value, "value") if value is not None else (ctx.reference, "the reference")
        if target is None:
            return None, "nothing to compare with (no value and the case has no reference)"
        if ctx.embedder is None:
            return None, "needs an embedder (none configured)"
        try:
            vectors = ctx.embedder([answer, target])
            sim = _cosine(vectors[0], vectors[1])
        except Exception as e:
            return None, f"embedder failed: {type(e).__name__}: {_quote_message(e)}"
        if sim >= threshold:
            return True, f"similarity {sim:.2f} to {what}, threshold {threshold:.2f}"
        return False, f"similarity {sim:.2f} to {what}, below the threshold {threshold:.2f}"

    return evaluate


def _build_llm_rubric(a: Assertion, negated: bool) -> _Evaluate:
    _as_str(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        return None, "needs the judge (llm-rubric is scored by the judge, not by the deterministic graders)"

    return evaluate


# --------------------------------------------------------------------------------------------
# promptfoo's other deterministic types


def _build_icontains_any(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)
    folded = [w.lower() for w in wants]

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        text = answer.lower()
        for w, f in zip(wants, folded, strict=True):
            if f in text:
                return True, f"answer contains {quote(w)} (ignoring case)"
        return False, f"answer contains none of {_values(wants)} (ignoring case)"

    return evaluate


def _build_icontains_all(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        text = answer.lower()
        missing = [w for w in wants if w.lower() not in text]
        if not missing:
            return True, f"answer contains all {len(wants)} of {_values(wants)} (ignoring case)"
        return False, f"answer lacks {_values(missing)} ({len(missing)} of {len(wants)}, ignoring case)"

    return evaluate


def levenshtein(a: str, b: str) -> int:
    """The edit distance (insertions, deletions, substitutions) between ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


#: ``levenshtein`` refuses (unmeasured) answers longer than this: the distance is quadratic.
MAX_LEVENSHTEIN_CHARS = 20_000


def _build_levenshtein(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)
    limit = a.threshold if a.threshold is not None else DEFAULT_LEVENSHTEIN_THRESHOLD
    units = a.dialect == "promptfoo"
    target = utf16_units(want) if units else want

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        text = utf16_units(answer) if units else answer
        if abs(len(text) - len(target)) > limit:
            d = abs(len(text) - len(target))
            return False, f"edit distance at least {d} to {quote(want)}, over the threshold {limit:g}"
        if len(text) > MAX_LEVENSHTEIN_CHARS:
            return (
                None,
                f"answer too long to measure the edit distance ({len(text)} > {MAX_LEVENSHTEIN_CHARS})",
            )
        d = levenshtein(text, target)
        if d <= limit:
            return True, f"edit distance {d} to {quote(want)}, threshold {limit:g}"
        return False, f"edit distance {d} to {quote(want)}, over the threshold {limit:g}"

    return evaluate


def _definitions(a: Assertion, *, tools: bool) -> dict[str, Callable[[Any], str | None]]:
    """Name -> a validator of the arguments, from OpenAI tool / function definitions in ``value``."""
    import jsonschema
    from jsonschema.exceptions import SchemaError

    out: dict[str, Callable[[Any], str | None]] = {}
    for i, d in enumerate(a.value or []):
        fn = d.get("function") if tools else d
        if tools and (d.get("type") != "function" or not isinstance(fn, dict)):
            continue  # promptfoo considers function tools only
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise AssertionCompileError(f"{a.type}: value[{i}] has no function name")
        params = fn.get("parameters")
        if params is None:
            continue  # promptfoo: a function without parameters cannot be called validly
        if not isinstance(params, dict | bool):
            raise AssertionCompileError(f"{a.type}: value[{i}] parameters must be a JSON schema object")
        cls = jsonschema.validators.validator_for(params)
        try:
            cls.check_schema(params)  # type: ignore[arg-type]
        except SchemaError as e:
            raise AssertionCompileError(
                f"{a.type}: value[{i}] parameters: invalid JSON schema: {e.message}"
            ) from None
        validator = cls(params)

        def problem(args: Any, v: Any = validator) -> str | None:
            if v.is_valid(args):
                return None
            err = next(iter(v.iter_errors(args)))
            return quote(err.message, 100)

        out.setdefault(fn["name"], problem)
    return out


def _check_call(call: Any, defs: Mapping[str, Callable[[Any], str | None]]) -> str | None:
    """None when ``call`` (``{name, arguments}``) is valid, else what is wrong."""
    if not (
        isinstance(call, dict)
        and isinstance(call.get("name"), str)
        and isinstance(call.get("arguments"), str)
    ):
        return "not a call with a name and arguments (a JSON string)"
    name = call["name"]
    if name not in defs:
        return f"calls {quote(name, 60)}, but there is no function with that name"
    try:
        args = json.loads(call["arguments"])
    except (json.JSONDecodeError, RecursionError):
        return f"the arguments of {quote(name, 60)} are not JSON"
    p = defs[name](args)
    return None if p is None else f"the arguments of {quote(name, 60)} do not match its parameters: {p}"


def _build_tools_call(a: Assertion, negated: bool) -> _Evaluate:
    defs = _definitions(a, tools=True)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(answer)
        if err is not None:
            return False, f"not a tools call: {err}"
        if isinstance(doc, dict) and "tool_calls" in doc:
            doc = doc["tool_calls"]
        if not isinstance(doc, list) or not doc:
            return False, "not a tools call (a non-empty JSON list of tool calls)"
        calls = []
        for c in doc:
            fn = c.get("function") if isinstance(c, dict) else None
            if not (
                isinstance(fn, dict)
                and isinstance(fn.get("name"), str)
                and isinstance(fn.get("arguments"), str)
            ):
                return (
                    False,
                    "not a tools call: every call needs function.name and function.arguments (strings)",
                )
            calls.append(fn)
        if not defs:
            return False, "no tools are defined in value, but the answer calls tools"
        for fn in calls:
            p = _check_call(fn, defs)
            if p is not None:
                return False, p
        return True, f"{len(calls)} valid tool call(s)"

    return evaluate


def _build_function_call(a: Assertion, negated: bool) -> _Evaluate:
    defs = _definitions(a, tools=False)

    def evaluate(answer: str, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(answer)
        if err is not None:
            return False, f"not a function call: {err}"
        if isinstance(doc, dict) and "function_call" in doc:
            doc = doc["function_call"]
        p = _check_call(doc, defs)
        if p is not None:
            return False, p
        return True, f"a valid call of {quote(doc['name'], 60)}"

    return evaluate


def _build_recorded_limit(what: str, unit: str, attr: str) -> Callable[[Assertion, bool], _Evaluate]:
    def build(a: Assertion, negated: bool) -> _Evaluate:
        limit = a.threshold
        if limit is None:
            raise AssertionCompileError(f"{a.type}: needs a threshold")

        def evaluate(answer: str, ctx: CaseContext) -> _Result:
            got: float | None = getattr(ctx, attr)
            if got is None:
                return None, f"the run does not record {what} (recorded answers have none)"
            if got <= limit:
                return True, f"{what} {got:g}{unit}, threshold {limit:g}{unit}"
            return False, f"{what} {got:g}{unit} over the threshold {limit:g}{unit}"

        return evaluate

    return build


_build_latency = _build_recorded_limit("latency", " ms", "latency_ms")
_build_cost = _build_recorded_limit("cost", "", "cost")


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
    "max-length": _build_max_length,
    "similar": _build_similar,
    "llm-rubric": _build_llm_rubric,
    "icontains-any": _build_icontains_any,
    "icontains-all": _build_icontains_all,
    "levenshtein": _build_levenshtein,
    "is-valid-openai-tools-call": _build_tools_call,
    "is-valid-openai-function-call": _build_function_call,
    "latency": _build_latency,
    "cost": _build_cost,
}
