"""Grounding assertions: ``cites``, ``grounded-urls``, ``only-entities``, ``similar``.

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import lru_cache

import regex

from proctor.api.assertions import Assertion
from proctor.graders._assert_core import (
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    _Evaluate,
    _quote_answer,
    _quote_message,
    _Result,
    _Unmeasurable,
)
from proctor.graders._canon import Canonical, as_browsed, canonical_text
from proctor.graders._text import (
    find_urls,
    join_names,
    normalize_url,
    quote,
)

#: ``similar`` passes at or above this cosine similarity unless the assertion sets ``threshold``.
DEFAULT_SIMILARITY_THRESHOLD = 0.8


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
