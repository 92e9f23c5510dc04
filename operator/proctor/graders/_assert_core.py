"""The assertions' common parts: a check's outcome, a case's context, the helpers every family uses.

Part of :mod:`proctor.graders._assertions`: every family's builders (``_assert_*``) use these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from proctor.api.assertions import Assertion
from proctor.graders import _lexicon
from proctor.graders._canon import Canonical, as_browsed, canonical_text
from proctor.graders._language import (
    Grounding,
    LabelMatcher,
    find_claims,
)
from proctor.graders._scan import mask_findings
from proctor.graders._text import (
    find_urls,
    normalize_url,
    quote,
)

#: A ``regex`` search (or a JSON schema's ``pattern``) that runs longer than this makes the check
#: unmeasured ("regex timed out").
REGEX_TIMEOUT_SECONDS = 0.25

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
        """Groups whose agreement a context document states, in English or a language of
        ``_lexicon`` (``""``: agreement with no group named) -> the ids of those documents."""
        out: dict[str, list[str]] = {}
        for doc_id, text in self.context.items():
            lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES, _lexicon.writes_accents(text))
            claimed = [claim.groups for claim in find_claims(self.canonical_context[doc_id], names=False)]
            claimed += [groups for _, _, groups in _lexicon.find_claims(lexes, _lexicon.rules_text(text))]
            for groups in claimed:
                for group in groups or {""}:
                    docs = out.setdefault(group, [])
                    if doc_id not in docs:
                        docs.append(doc_id)
        return {g: tuple(d) for g, d in out.items()}

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


_NOT_SPACE = re.compile(r"\S")


def _skip_space(text: str, start: int, end: int) -> int:
    """Where ``text[start:end]`` starts after its leading whitespace: a quote shows none at its
    edges, so reading it would only spend the quote's length on nothing."""
    m = _NOT_SPACE.search(text, start, end)
    return m.start() if m else max(start, end)


def _quote_answer(c: Canonical, start: int, end: int, limit: int = 80) -> str:
    """A quote of the answer as written where the canonical span ``[start, end)`` came from:
    secrets and personal data masked, cut to ``limit``."""
    start = _skip_space(c.text, start, end)
    cut = min(end, start + limit * 2)
    s, e = c.span(start, cut)
    return _quote_cut(c.original, s, e, cut < end, limit)


def _quote_cut(text: str, start: int, end: int, more: bool, limit: int) -> str:
    """``text[start:end]`` masked and quoted; ``more``: the span was cut before its end, so the
    quote ends in an ellipsis even when collapsed whitespace leaves it shorter than ``limit``
    (a quote of 200 blank lines read as ``""`` would say the answer is empty)."""
    return quote(mask_findings(text, start, end) + ("\u2026" if more else ""), limit)


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
    start = _skip_space(c.original, start, end)
    cut = min(end, start + limit * 2)
    return _quote_cut(c.original, start, cut, cut < end, limit)


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
