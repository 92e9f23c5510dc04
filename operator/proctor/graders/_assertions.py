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

import json
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import Any

import regex

from proctor.api.assertions import ASSERTION_KINDS, Assertion, split_type
from proctor.graders import _lexicon
from proctor.graders._canon import Canonical, as_browsed, canonical, canonical_text
from proctor.graders._jscompat import (
    JsRegexError,
    promptfoo_json_objects,
    to_json_value,
    translate_js_regex,
    utf16_units,
)
from proctor.graders._language import (
    Claim,
    Grounding,
    LabelMatcher,
    RulesAt,
    Use,
    find_claims,
    find_guesses,
    find_refusal,
    sentence_start,
)
from proctor.graders._languages import (
    SUPPORTED_LANGUAGES,
    Languages,
    Sentence,
    describe,
    languages,
    supported_names,
)
from proctor.graders._scan import mask_findings
from proctor.graders._text import (
    find_urls,
    join_names,
    normalize_url,
    quote,
)

#: ``similar`` passes at or above this cosine similarity unless the assertion sets ``threshold``.
DEFAULT_SIMILARITY_THRESHOLD = 0.8
#: A ``regex`` search (or a JSON schema's ``pattern``) that runs longer than this makes the check
#: unmeasured ("regex timed out").
REGEX_TIMEOUT_SECONDS = 0.25
#: ``levenshtein`` passes at or below this edit distance unless the assertion sets ``threshold``.
DEFAULT_LEVENSHTEIN_THRESHOLD = 5
#: ``contains-json`` tries at most this many ``{`` / ``[`` positions.
_MAX_JSON_CANDIDATES = 200

#: Turns texts into vectors, one per text, for ``similar``.
Embedder = Callable[[Sequence[str]], list[list[float]]]


class AssertionCompileError(ValueError):
    """An assertion cannot be compiled: an invalid regular expression, JSON schema or value."""


class CheckOutcome(StrEnum):
    """What one assertion says of one answer: it passes, it fails, or the grader cannot tell."""

    PASS = "pass"
    FAIL = "fail"
    UNDETERMINED = "undetermined"

    @classmethod
    def of(cls, passed: bool | None) -> CheckOutcome:
        return cls.UNDETERMINED if passed is None else cls.PASS if passed else cls.FAIL


class Unread(StrEnum):
    """Why a grader could not read an answer: the judge may (an undetermined check of these
    causes is judged as a rubric stating the assertion's meaning, when a judge is configured)."""

    #: the answer, or the part the grader must read, is in a language it has no rules for
    LANGUAGE = "language"
    #: the assertion asks what no pattern can see (the facts of another record without its name):
    #: only the judge reads it (:data:`JUDGE_ONLY`)
    JUDGE = "judge"
    #: the answer is in a form the grader does not parse
    FORM = "form"


@dataclass(frozen=True, slots=True)
class Check:
    """The result of one assertion on one answer.

    ``outcome`` is pass, fail or undetermined, with the ``reason`` (why it cannot be measured,
    when undetermined); ``unread`` says when that is because the grader cannot read the answer
    (a language or a form), which the judge can. ``assertion`` is the assertion's type as
    written, with any ``not-`` prefix.
    """

    assertion: str
    outcome: CheckOutcome
    reason: str
    unread: Unread | None = None

    @property
    def passed(self) -> bool | None:
        """True / False when measured, None when undetermined (for callers that only gate on it)."""
        return None if self.outcome is CheckOutcome.UNDETERMINED else self.outcome is CheckOutcome.PASS


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
    def canonical_context(self) -> dict[str, str]:
        return {doc_id: canonical_text(text) for doc_id, text in self.context.items()}

    @cached_property
    def context_text(self) -> str:
        """The context documents, canonical, one after the other."""
        return "\n".join(self.canonical_context.values())

    @cached_property
    def grounding(self) -> Grounding:
        """Figures the context documents or the question state, as quantities."""
        return Grounding([*self.canonical_context.values(), canonical_text(self.question or "")])

    @cached_property
    def grounded_numbers(self) -> frozenset[float]:
        """Every value a figure of the context documents or the question has."""
        return self.grounding.values

    @cached_property
    def context_urls(self) -> frozenset[str]:
        return frozenset(normalize_url(u) for _, _, u in find_urls(self.context_as_browsed))

    @cached_property
    def context_as_browsed(self) -> str:
        """The context documents as a browser reads their URLs (:func:`as_browsed`)."""
        return "\n".join(as_browsed(text) for text in self.context.values())

    @cached_property
    def consensus_groups(self) -> dict[str, tuple[str, ...]]:
        """Groups whose agreement a context document states -> the ids of those documents."""
        out: dict[str, list[str]] = {}
        for doc_id, text in self.canonical_context.items():
            for claim in find_claims(text):
                for group in claim.groups or {""}:
                    docs = out.setdefault(group, [])
                    if doc_id not in docs:
                        docs.append(doc_id)
        return {g: tuple(d) for g, d in out.items()}

    @cached_property
    def foreign_consensus(self) -> tuple[str, ...]:
        """Ids of the context documents that state agreement in a language of ``_lexicon``."""
        lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES)
        return tuple(d for d, text in self.canonical_context.items() if _lexicon.find_claims(lexes, text))

    @cached_property
    def consensus_documents(self) -> tuple[str, ...]:
        """Ids of the context documents that themselves state agreement."""
        return tuple(dict.fromkeys(d for docs in self.consensus_groups.values() for d in docs))

    @cached_property
    def label_matchers(self) -> tuple[LabelMatcher, ...]:
        return (LabelMatcher(self.labels),) if self.labels else ()

    @cached_property
    def id_words(self) -> frozenset[str]:
        return frozenset(w.lower() for doc_id in self.context for w in re.findall(r"[^\W\d_]+", doc_id))


EMPTY_CONTEXT = CaseContext()

_Result = tuple[bool | None, str]
_Evaluate = Callable[[Canonical, CaseContext], _Result]


class _Unmeasurable(Exception):
    """A check that cannot be measured on this answer (a regex that timed out), whatever the prefix."""


class _Unreadable(_Unmeasurable):
    """A check whose grader cannot read this answer (:class:`Unread`), whatever the prefix."""

    def __init__(self, unread: Unread, message: str) -> None:
        super().__init__(message)
        self.unread = unread


#: The reason of every check on an empty or whitespace-only answer.
EMPTY_ANSWER = "the answer is empty: nothing to measure"


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


def _quote_answer(c: Canonical, start: int, end: int, limit: int = 80) -> str:
    """A quote of the answer as written where the canonical span ``[start, end)`` came from:
    secrets and personal data masked, cut to ``limit``."""
    end = min(end, start + limit * 2)
    s, e = c.span(start, end)
    return quote(mask_findings(c.original, s, e), limit)


_WHITESPACE = re.compile(r"\s+")


def _finder(want: str, raw: bool) -> Callable[[str], int]:
    """Where ``want`` first occurs in a text (-1: nowhere). In the canonical dialect a run of
    whitespace in ``want`` matches any run in the text (a line break or two spaces between the
    words of a forbidden phrase still spell it); promptfoo's dialect compares exactly."""
    if raw or not _WHITESPACE.search(want):
        return lambda text: text.find(want)
    pattern = re.compile(r"\s+".join(re.escape(part) for part in _WHITESPACE.split(want)))

    def find(text: str) -> int:
        m = pattern.search(text)
        return m.start() if m else -1

    return find


def _fold(text: str, raw: bool) -> str:
    """Case folded as JavaScript's ``toLowerCase`` does (promptfoo's "ignoring case"). Canonical
    text is folded again after lowering: a look-alike may map in one case and not the other
    (a small Greek sigma reads as ``o``, a capital one does not), and both sides must fold alike."""
    return text.lower() if raw else canonical_text(text.lower())


def _quote_text(c: Canonical, raw: bool, start: int, end: int, limit: int = 80) -> str:
    """:func:`_quote_answer` for a span of the canonical text, or of the answer as written (``raw``)."""
    if not raw:
        return _quote_answer(c, start, end, limit)
    end = min(end, start + limit * 2)
    return quote(mask_findings(c.original, start, end), limit)


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
    shown = _as_str(a)
    raw = a.dialect == "promptfoo"
    want = shown if raw else canonical_text(shown)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.original if raw else c.text
        if text == want:
            return True, f"answer equals {quote(shown)}"
        note = " (they differ only in surrounding whitespace)" if text.strip() == want.strip() else ""
        return False, f"expected {quote(shown)}, answer is {_quote_text(c, raw, 0, len(text))}{note}"

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

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(c.original)
        if err is not None:
            return False, f"expected JSON equal to {shown}; {err}"
        if json_equal(doc, want):
            return True, f"answer is JSON equal to {shown}"
        return False, f"expected JSON equal to {shown}, answer is {_quote_text(c, True, 0, len(c.original))}"

    return evaluate


def _build_contains(a: Assertion, negated: bool) -> _Evaluate:
    shown = _as_str(a)
    raw = a.dialect == "promptfoo"
    find = _finder(shown if raw else canonical_text(shown), raw)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        i = find(c.original if raw else c.text)
        if i >= 0:
            return True, f"answer contains {quote(shown)} at {i if raw else c.offset(i)}"
        return False, f"answer does not contain {quote(shown)}"

    return evaluate


def _build_icontains(a: Assertion, negated: bool) -> _Evaluate:
    shown = _as_str(a)
    raw = a.dialect == "promptfoo"
    find = _finder(_fold(shown if raw else canonical_text(shown), raw), raw)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        if find(_fold(c.original if raw else c.text, raw)) >= 0:
            return True, f"answer contains {quote(shown)} (ignoring case)"
        return False, f"answer does not contain {quote(shown)} (ignoring case)"

    return evaluate


def _build_contains_any(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)
    raw = a.dialect == "promptfoo"
    finds = [_finder(w if raw else canonical_text(w), raw) for w in wants]

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.original if raw else c.text
        for w, find in zip(wants, finds, strict=True):
            if find(text) >= 0:
                return True, f"answer contains {quote(w)}"
        return False, f"answer contains none of {_values(wants)}"

    return evaluate


def _build_contains_all(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)
    raw = a.dialect == "promptfoo"
    finds = [_finder(w if raw else canonical_text(w), raw) for w in wants]

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.original if raw else c.text
        missing = [w for w, find in zip(wants, finds, strict=True) if find(text) < 0]
        if not missing:
            return True, f"answer contains all {len(wants)} of {_values(wants)}"
        return False, f"answer lacks {_values(missing)} ({len(missing)} of {len(wants)})"

    return evaluate


def _build_starts_with(a: Assertion, negated: bool) -> _Evaluate:
    shown = _as_str(a)
    raw = a.dialect == "promptfoo"
    want = shown if raw else canonical_text(shown)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.original if raw else c.text
        if text.startswith(want):
            return True, f"answer starts with {quote(shown)}"
        head = _quote_text(c, raw, 0, max(len(want), 20))
        note = " (after leading whitespace it would)" if text.lstrip().startswith(want) else ""
        return False, f"answer starts with {head}, not {quote(shown)}{note}"

    return evaluate


def _build_max_length(a: Assertion, negated: bool) -> _Evaluate:
    limit = a.value
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise AssertionCompileError(f"{a.type}: value must be a non-negative integer")

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        n = len(c.original)
        if n <= limit:
            return True, f"answer has {n} characters, limit {limit}"
        return False, f"answer has {n} characters, over the limit of {limit} by {n - limit}"

    return evaluate


def _compile_regex(a: Assertion, source: str) -> regex.Pattern[str]:
    try:
        return regex.compile(source)
    except regex.error as e:
        at = getattr(e, "pos", None)
        pos = f" at position {at}" if at is not None else ""
        msg = str(e).split(" at position")[0]
        raise AssertionCompileError(
            f"{a.type}: invalid regular expression {quote(source)}: {msg}{pos}"
        ) from None


def _search(pattern: regex.Pattern[str], text: str, shown: str) -> regex.Match[str] | None:
    try:
        return pattern.search(text, timeout=REGEX_TIMEOUT_SECONDS)
    except TimeoutError:
        raise _Unmeasurable(
            f"regex timed out after {REGEX_TIMEOUT_SECONDS:g} s on a {len(text)}-character answer: {shown}"
        ) from None


def _build_regex(a: Assertion, negated: bool) -> _Evaluate:
    source = _as_str(a)
    if a.dialect == "promptfoo":
        return _build_js_regex(a, source)
    pattern = _compile_regex(a, source)
    shown = "/" + (source if len(source) <= 60 else source[:59] + "\u2026") + "/"

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        m = _search(pattern, c.text, shown)
        if m is not None:
            where = f"answer matches {shown} at {c.offset(m.start())}"
            return True, (f"{where}: {_quote_answer(c, m.start(), m.end())}" if negated else where)
        if c.changed:
            m = _search(pattern, c.original, shown)
            if m is not None:
                where = f"answer matches {shown} at {m.start()} (as written)"
                quoted = quote(mask_findings(c.original, m.start(), min(m.end(), m.start() + 160)))
                return True, (f"{where}: {quoted}" if negated else where)
        return False, f"answer does not match {shown}"

    return evaluate


def _build_js_regex(a: Assertion, source: str) -> _Evaluate:
    try:
        pattern = regex.compile(translate_js_regex(source))
    except JsRegexError as e:
        raise AssertionCompileError(f"{a.type}: {e}") from None
    except regex.error as e:  # JavaScript accepts it, Python refuses it: a repeat count too big
        raise AssertionCompileError(
            f"{a.type}: cannot translate the JavaScript regex {quote(source)}: {e}"
        ) from None
    shown = "/" + (source if len(source) <= 60 else source[:59] + "\u2026") + "/"

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        answer = c.original  # promptfoo reads the answer as written
        try:
            m = pattern.search(utf16_units(answer), timeout=REGEX_TIMEOUT_SECONDS)
        except TimeoutError:
            raise _Unmeasurable(
                f"regex timed out after {REGEX_TIMEOUT_SECONDS:g} s"
                f" on a {len(answer)}-character answer: {shown}"
            ) from None
        if m is None:
            return False, f"answer does not match {shown} (JavaScript)"
        return True, f"answer matches {shown} (JavaScript)"

    return evaluate


# --------------------------------------------------------------------------------------------
# JSON assertions


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


@lru_cache(maxsize=256)
def _schema_regex(source: str) -> regex.Pattern[str]:
    return regex.compile(source)


def _schema_search(source: str, text: str) -> bool:
    try:
        return _schema_regex(source).search(text, timeout=REGEX_TIMEOUT_SECONDS) is not None
    except TimeoutError:
        raise _Unmeasurable(
            f"the schema's pattern {quote(source, 60)} timed out after {REGEX_TIMEOUT_SECONDS:g} s"
        ) from None


def _pattern_keyword(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _schema_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties_keyword(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for k, v in instance.items():
            if _schema_search(pattern, k):
                yield from validator.descend(v, subschema, path=k, schema_path=pattern)


def _compile_schema(a: Assertion, schema: Any) -> Callable[[Any], str | None]:
    """A validator returning None when ``doc`` matches, else the first problem (message and path).

    The schema's ``pattern`` and ``patternProperties`` regexes run with the same timeout as a
    ``regex`` assertion: a pattern that backtracks for ever makes the check unmeasured."""
    import jsonschema  # imported on first use: most suites have no schema
    from jsonschema.exceptions import SchemaError, best_match

    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as e:
            raise AssertionCompileError(f"{a.type}: value is not a JSON schema (not JSON: {e.msg})") from None
        except RecursionError:
            raise AssertionCompileError(f"{a.type}: value is not a JSON schema (nested too deeply)") from None
    if not isinstance(schema, dict | bool):
        raise AssertionCompileError(
            f"{a.type}: value must be a JSON schema object, got {type(schema).__name__}"
        )
    base = jsonschema.validators.validator_for(schema)
    try:
        base.check_schema(schema)  # type: ignore[arg-type]  # a boolean schema is valid too
    except SchemaError as e:
        path = "/".join(str(p) for p in e.absolute_path) or "(root)"
        raise AssertionCompileError(f"{a.type}: invalid JSON schema at {path}: {e.message}") from None
    except RecursionError:
        raise AssertionCompileError(f"{a.type}: invalid JSON schema: nested too deeply") from None
    for source in _schema_patterns(schema):
        try:
            _schema_regex(source)
        except regex.error as e:
            raise AssertionCompileError(
                f"{a.type}: invalid pattern {quote(source, 60)} in the schema: {e}"
            ) from None
    cls = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, {"pattern": _pattern_keyword, "patternProperties": _pattern_properties_keyword}
    )
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


def _schema_patterns(schema: Any) -> Iterator[str]:
    """Every regex a schema holds (``pattern`` values and ``patternProperties`` keys)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            props = node.get("patternProperties")
            if isinstance(props, dict):
                yield from (k for k in props if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n.*\n\s*```\s*$", re.DOTALL)


def _parse_json(answer: str) -> tuple[Any, str | None]:
    try:
        return _DECODER.decode(answer), None
    except json.JSONDecodeError as e:
        hint = (
            " (the answer is wrapped in a ``` code fence: contains-json accepts that)"
            if _FENCE.match(answer)
            else ""
        )
        return None, f"answer is not JSON: {e.msg} at line {e.lineno} column {e.colno}{hint}"
    except ValueError as e:  # NaN, Infinity
        return None, f"answer is not JSON: {e}"
    except RecursionError:
        return None, "answer is not JSON: nested too deeply"


def _build_is_json(a: Assertion, negated: bool) -> _Evaluate:
    problem = _compile_schema(a, a.value) if a.value is not None else None

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(c.original)
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


def _build_contains_json(a: Assertion, negated: bool) -> _Evaluate:
    problem = _compile_schema(a, a.value) if a.value is not None else None
    if a.dialect == "promptfoo":
        return _build_promptfoo_contains_json(problem)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        answer = c.original
        found = 0
        first_problem: str | None = None
        pos = 0
        gave_up = ""
        # the characters failed decodes read, in all: bounded, so the check stays linear
        budget = 4 * len(answer) + 4096
        for tries, m in enumerate(_JSON_START.finditer(answer)):
            if tries >= _MAX_JSON_CANDIDATES or budget <= 0:
                gave_up = f" (looked at the first {tries} '{{' and '[')"
                break
            if m.start() < pos:
                continue  # inside a JSON value already decoded
            try:
                doc, end = _DECODER.raw_decode(answer, m.start())
            except json.JSONDecodeError as e:
                budget -= max(1, e.pos - m.start())
                continue
            except (ValueError, RecursionError):
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
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        docs = promptfoo_json_objects(c.original)
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

#: The languages each language grader reads (README, "Assertions"); None: any language (it reads
#: identifiers or URLs, not words). Text in another language makes the check undetermined.
GRADER_LANGUAGES: dict[str, tuple[str, ...] | None] = {
    "label": SUPPORTED_LANGUAGES,
    "refusal": SUPPORTED_LANGUAGES,
    "no-guess-after-refusal": SUPPORTED_LANGUAGES,
    "no-manufactured-consensus": SUPPORTED_LANGUAGES,
    "cites": None,
    "grounded-urls": None,
}


class _Read:
    """An answer's languages, in the canonical text's offsets."""

    __slots__ = ("c", "langs")

    def __init__(self, c: Canonical) -> None:
        self.c = c
        self.langs: Languages = languages(c.original)

    def sentence(self, pos: int) -> Sentence:
        return self.langs.at(self.c.offset(pos))

    def supported(self, pos: int) -> bool:
        return self.sentence(pos).supported

    @property
    def rules_at(self) -> RulesAt:
        return lambda pos: self.langs.rules_at(self.c.offset(pos))

    def lexicons(self) -> list[_lexicon.Lexicon]:
        return _lexicon.lexicons(self.langs.present)

    def unsupported(self, start: int = 0, end: int | None = None) -> list[Sentence]:
        return self.langs.unsupported(
            self.c.offset(start), None if end is None else self.c.span(start, end)[1]
        )

    def unreadable(self, sentences: list[Sentence], what: str) -> _Unreadable:
        return _Unreadable(
            Unread.LANGUAGE,
            f"{what} is in a language this grader has no rules for ({describe(sentences)}; "
            f"it reads {supported_names()})",
        )


def _declines(r: _Read) -> tuple[int, int] | None:
    """The first phrase of declining in a sentence the graders read (English or a table's)."""
    found = [span for span in (find_refusal(r.c.text), _lexicon.find_refusal(r.lexicons(), r.c.text)) if span]
    readable = [span for span in found if r.supported(span[0])]
    return min(readable) if readable else None


def _build_label(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)
    labels = a.labels or []
    if any(not label.strip() for label in labels):
        raise AssertionCompileError(f"{a.type}: labels must not be empty")
    folded = [" ".join(re.split(r"[\s_-]+", canonical_text(label).strip())).lower() for label in labels]
    if len(set(folded)) != len(folded):
        raise AssertionCompileError(
            f"{a.type}: labels must differ ignoring case, spaces, hyphens and underscores: {labels}"
        )
    matcher = LabelMatcher(labels)
    all_labels = join_names(labels)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        r = _Read(c)
        mentions = matcher.mentions(c.text, r.rules_at)
        # the part it reads: the sentences that mention a label, else the whole answer
        unread = (
            list({r.sentence(m.start) for m in mentions if not r.supported(m.start)})
            if mentions
            else r.unsupported()
        )
        if unread:
            what = "a sentence that mentions a label" if mentions else "the answer"
            raise r.unreadable(sorted(unread, key=lambda s: s.start), what)
        if not any(m.named for m in mentions) and any(m.use is Use.UNMARKED for m in mentions):
            raise _Unreadable(
                Unread.FORM,
                "the answer lists the labels in a table and marks no row (no x, check mark, arrow, "
                "bold or the like): which one it selects is not readable",
            )
        named = list(dict.fromkeys(m.label for m in mentions if m.named))
        unnamed = list(dict.fromkeys(m.label for m in mentions if not m.named and m.label not in named))
        by_use: dict[str, list[str]] = {}
        for m in mentions:
            if m.label in unnamed and m.label not in by_use.setdefault(m.use.value, []):
                by_use[m.use.value].append(m.label)
        shown = "; ".join(f"{use}: {join_names(names)}" for use, names in by_use.items() if names)
        note = f" ({shown})" if shown else ""
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
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        r = _Read(c)
        span = _declines(r)
        if span is not None:
            return True, f"answer declines ({_quote_answer(c, span[0], span[1], 60)})"
        unread = r.unsupported()
        if unread:
            raise r.unreadable(unread, "the answer (it may decline there)")
        return False, "answer does not decline (no phrase of declining found)"

    return evaluate


def _build_no_guess(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.text
        r = _Read(c)
        span = _declines(r)
        unread = r.unsupported()
        if span is None:
            if unread:
                raise r.unreadable(unread, "the answer (it may decline and guess there)")
            return True, "answer does not decline"
        declined = _quote_answer(c, span[0], span[1], 50)
        start = sentence_start(text, span[0])
        found = find_guesses(
            text,
            start,
            grounding=ctx.grounding,
            labels=ctx.label_matchers,
            exempt_words=ctx.id_words,
            refusal=span,
            rules_at=r.rules_at,
        )
        guesses = [(g.start, g.end) for g in found]
        lexes = r.lexicons()
        grounded = ctx.grounded_numbers
        guesses += [
            (s, e)
            for s, e, value in _lexicon.find_number_words(lexes, text, 0)
            if value not in grounded and not span[0] <= s < span[1]
        ]
        guesses += [
            g
            for g in _lexicon.find_guessed_verdicts(lexes, text, start, ctx.id_words)
            if not span[0] <= g[0] < span[1]
        ]
        guesses = sorted({g for g in guesses if r.supported(g[0])})
        if not guesses:
            if unread:
                raise r.unreadable(unread, "part of the answer (it may guess there)")
            return True, f"answer declines ({declined}) and states no figure or verdict"
        s, e = guesses[0]
        more = f" (and {len(guesses) - 1} more)" if len(guesses) > 1 else ""
        when = "then guesses" if s >= span[0] else "but guesses"
        return False, f"answer declines ({declined}) {when} {_quote_answer(c, s, e, 40)}{more}"

    return evaluate


@lru_cache(maxsize=1024)
def _id_pattern(doc_id: str) -> re.Pattern[str]:
    """``amm-72-00`` matches ``AMM 72-00``, ``amm72-00``, ``AMM_72_00``; not ``amm-72-001``."""
    parts = re.findall(r"[^\W\d_]+|\d+", canonical_text(doc_id))
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

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        ids = fixed if fixed is not None else list(ctx.context)
        if not ids:
            return None, "no document ids to cite (no value, and the case has no context documents)"
        missing = [doc_id for doc_id in ids if not _id_pattern(doc_id).search(c.text)]
        if not missing:
            return True, f"answer names {join_names(ids)}"
        return False, f"answer does not name {join_names(missing)} ({len(missing)} of {len(ids)} documents)"

    return evaluate


def _build_grounded_urls(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        urls = find_urls(c.text)
        if not urls:
            return True, "answer has no URLs"
        context = ctx.context_as_browsed

        def grounded(s: int, e: int) -> bool:
            # found in the canonical text, compared as written: a look-alike letter is another host
            written = as_browsed(c.original[slice(*c.span(s, e))])
            if normalize_url(written) in ctx.context_urls:
                return True
            # written in the context, and not as the start of a longer host or word there
            # ("https://docs.acme" is not "https://docs.acme.io")
            at = context.find(written)
            while at >= 0:
                after = context[at + len(written) : at + len(written) + 1]
                if not (after.isalnum() or after in ".-_~%"):
                    return True
                at = context.find(written, at + 1)
            return False

        ungrounded = [(s, e) for s, e, _ in urls if not grounded(s, e)]
        if not ungrounded:
            return True, f"all {len(urls)} URLs in the answer appear in the context"
        s, e = ungrounded[0]
        more = f" (and {len(ungrounded) - 1} more)" if len(ungrounded) > 1 else ""
        return False, (
            f"{len(ungrounded)} of {len(urls)} URLs not in the context: {_quote_answer(c, s, e)}{more}"
        )

    return evaluate


def _supported(groups: frozenset[str], stated: Mapping[str, tuple[str, ...]]) -> bool:
    """A claim is supported when the context states agreement by each of its groups ("mechanics,
    like engineers, agree" needs both; a claim that names no group: by anyone)."""
    if not groups:
        return bool(stated)
    return all(g in stated for g in groups)


def _build_no_consensus(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.text
        r = _Read(c)
        claims = [cl for cl in find_claims(text) if r.supported(cl.start)]
        foreign = [
            Claim(s, e, frozenset())
            for s, e in _lexicon.find_claims(r.lexicons(), text)
            if r.supported(s) and not any(cl.start <= s < cl.end for cl in claims)
        ]
        claims = sorted([*claims, *foreign], key=lambda cl: cl.start)
        unread = r.unsupported()
        if not claims:
            if unread:
                raise r.unreadable(unread, "the answer (it may claim agreement there)")
            return True, "answer claims no agreement"
        stated = ctx.consensus_groups
        if foreign and not stated and ctx.foreign_consensus:
            stated = {"": ctx.foreign_consensus}
        unsupported = [cl for cl in claims if not _supported(cl.groups, stated)]
        if not unsupported and unread:
            raise r.unreadable(unread, "part of the answer (it may claim agreement there)")
        if not unsupported:
            docs = tuple(
                dict.fromkeys(
                    d
                    for cl in claims
                    for g, ids in stated.items()
                    if g in cl.groups or not cl.groups
                    for d in ids
                )
            )
            first = claims[0]
            begin = max(sentence_start(text, first.start), first.start - 40)
            claim = _quote_answer(c, begin, max(first.end, begin + 60), 90)
            return True, f"answer claims agreement ({claim}) that the context states ({join_names(docs)})"
        first = unsupported[0]
        begin = max(sentence_start(text, first.start), first.start - 40)
        claim = _quote_answer(c, begin, max(first.end, begin + 60), 90)
        more = f" (and {len(unsupported) - 1} more)" if len(unsupported) > 1 else ""
        return False, f"answer claims agreement the context does not state: {claim}{more}"

    return evaluate


_ENTITY_TOKEN = re.compile(r"[A-Za-z0-9]+")
_ENTITY_SEPARATORS = frozenset(" -./_")
_MAX_ENTITY_TOKENS = 4
_MAX_ENTITY_LENGTH = 48


def _entity_key(value: str) -> str:
    """An identifier compared ignoring case and separators: ``n-123 ab`` -> ``N123AB``."""
    return "".join(ch for ch in canonical_text(value).upper() if ch.isalnum())


def _entity_spans(pattern: regex.Pattern[str], text: str, shown: str) -> list[tuple[int, int]]:
    """Where ``text`` names an identifier of ``pattern``'s shape: the pattern's matches that are
    whole words, and runs of up to four words joined by single separators that, joined (48
    characters at most), match it whole (``N 123 AB`` for ``N\\d+[A-Z]{2}``).

    Where candidates overlap, a reading that covers the most characters: a piece of a longer
    identifier is no identifier of its own (``N 123`` in ``N 123 AB``), and two identifiers side
    by side stay two (``N12 N-456CD`` is ``N12`` and ``N-456CD``, not a run ``N12 N`` that would
    hide ``N12``). When two readings cover as much, the identifiers of both are checked."""
    found = sorted({(e, s) for s, e in _entity_candidates(pattern, text, shown)})  # by end
    return sorted(set(_best_reading(found, later=False)) | set(_best_reading(found, later=True)))


def _best_reading(found: list[tuple[int, int]], *, later: bool) -> list[tuple[int, int]]:
    """Non-overlapping spans of ``found`` (``(end, start)``, sorted) that cover the most characters;
    of two that cover as much, the one whose last span ends first, or (``later``) last."""
    ends = [e for e, _ in found]
    # best[j]: the characters the best reading of the first j candidates covers; before[j]: when
    # candidate j is in the best reading of the first j+1, how many candidates precede it there
    best = [0]
    before: list[int | None] = []
    for j, (e, s) in enumerate(found):
        p = bisect_right(ends, s)  # the candidates that end before this one starts
        covered = best[p] + e - s
        take = covered >= best[j] if later else covered > best[j]
        before.append(p if take else None)
        best.append(max(covered, best[j]))
    out: list[tuple[int, int]] = []
    j = len(found)
    while j:
        j -= 1
        preceding = before[j]
        if preceding is not None:
            e, s = found[j]
            out.append((s, e))
            j = preceding
    return out


def _whole_words(text: str, s: int, e: int) -> bool:
    return not (s and text[s - 1].isalnum()) and not (e < len(text) and text[e].isalnum())


def _entity_candidates(pattern: regex.Pattern[str], text: str, shown: str) -> Iterator[tuple[int, int]]:
    try:
        for m in pattern.finditer(text, timeout=REGEX_TIMEOUT_SECONDS):
            if m.end() > m.start() and _whole_words(text, m.start(), m.end()):
                yield m.span()
        tokens = [m.span() for m in _ENTITY_TOKEN.finditer(text)]
        for i, (start, end) in enumerate(tokens):  # a run may start at every word: the readings decide
            joined = text[start:end]
            if not pattern.fullmatch(joined, partial=True, timeout=REGEX_TIMEOUT_SECONDS):
                continue  # no identifier starts with this word
            has_digit = any(ch.isdigit() for ch in joined)
            for j in range(i + 1, min(len(tokens), i + _MAX_ENTITY_TOKENS)):
                gap = text[tokens[j - 1][1] : tokens[j][0]]
                if gap not in _ENTITY_SEPARATORS:  # one separator character, nothing else
                    break
                part = text[tokens[j][0] : tokens[j][1]]
                joined += part
                has_digit = has_digit or any(ch.isdigit() for ch in part)
                if len(joined) > _MAX_ENTITY_LENGTH:
                    break
                if has_digit and pattern.fullmatch(joined, timeout=REGEX_TIMEOUT_SECONDS):
                    yield start, tokens[j][1]
    except TimeoutError:
        raise _Unmeasurable(f"the pattern {shown} timed out after {REGEX_TIMEOUT_SECONDS:g} s") from None


def _build_only_entities(a: Assertion, negated: bool) -> _Evaluate:
    source = a.pattern or ""
    try:
        pattern = regex.compile(source, regex.IGNORECASE)
    except regex.error as e:
        raise AssertionCompileError(f"{a.type}: invalid pattern {quote(source)}: {e}") from None
    shown = "/" + (source if len(source) <= 60 else source[:59] + "\u2026") + "/"
    allowed = {_entity_key(v): v for v in (a.allowed or [])}
    named_allowed = join_names(list(allowed.values())) or "none"

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        others: dict[str, tuple[int, int]] = {}
        for s, e in _entity_spans(pattern, c.text, shown):
            key = _entity_key(c.text[s:e])
            if key and key not in allowed and key not in others:
                others[key] = (s, e)
        if not others:
            return True, f"answer names no identifier of the shape {shown} but {named_allowed}"
        s, e = next(iter(others.values()))
        more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
        return False, (
            f"answer names {_quote_answer(c, s, e, 40)}, an identifier of the shape {shown} "
            f"that is not allowed (allowed: {named_allowed}){more}"
        )

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

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        target, what = (value, "value") if value is not None else (ctx.reference, "the reference")
        if target is None:
            return None, "nothing to compare with (no value and the case has no reference)"
        if ctx.embedder is None:
            return None, "needs an embedder (none configured)"
        try:
            vectors = ctx.embedder([c.text, canonical_text(target)])
            sim = _cosine(vectors[0], vectors[1])
        except Exception as e:
            return None, f"embedder failed: {type(e).__name__}: {_quote_message(e)}"
        if sim >= threshold:
            return True, f"similarity {sim:.2f} to {what}, threshold {threshold:.2f}"
        return False, f"similarity {sim:.2f} to {what}, below the threshold {threshold:.2f}"

    return evaluate


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


# --------------------------------------------------------------------------------------------
# promptfoo's other deterministic types


def _build_icontains_any(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)
    raw = a.dialect == "promptfoo"
    finds = [_finder(_fold(w if raw else canonical_text(w), raw), raw) for w in wants]

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = _fold(c.original if raw else c.text, raw)
        for w, find in zip(wants, finds, strict=True):
            if find(text) >= 0:
                return True, f"answer contains {quote(w)} (ignoring case)"
        return False, f"answer contains none of {_values(wants)} (ignoring case)"

    return evaluate


def _build_icontains_all(a: Assertion, negated: bool) -> _Evaluate:
    wants = _as_str_list(a)
    raw = a.dialect == "promptfoo"
    finds = [_finder(_fold(w if raw else canonical_text(w), raw), raw) for w in wants]

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = _fold(c.original if raw else c.text, raw)
        missing = [w for w, find in zip(wants, finds, strict=True) if find(text) < 0]
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
    units = a.dialect == "promptfoo"  # promptfoo: the answer as written, in UTF-16 code units
    target = utf16_units(want) if units else canonical_text(want)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = utf16_units(c.original) if units else c.text
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

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(c.original)
        if err is not None:
            return False, f"not a tools call: {err}"
        if isinstance(doc, dict) and "tool_calls" in doc:
            doc = doc["tool_calls"]
        if not isinstance(doc, list) or not doc:
            return False, "not a tools call (a non-empty JSON list of tool calls)"
        calls: list[dict[str, Any]] = []
        for call in doc:
            fn = call.get("function") if isinstance(call, dict) else None
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

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        doc, err = _parse_json(c.original)
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

        def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
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
