"""String assertions: ``equals``, the ``contains`` family, ``starts-with``, ``max-length``, ``regex``.

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

import json
from typing import Any

import regex

from proctor.api.assertions import Assertion
from proctor.graders._assert_core import (
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    _as_str,
    _as_str_list,
    _Evaluate,
    _finder,
    _fold,
    _quote_answer,
    _quote_text,
    _Result,
    _Unmeasurable,
    _values,
)
from proctor.graders._assert_json import _parse_json
from proctor.graders._canon import Canonical, canonical_text
from proctor.graders._jscompat import (
    JsRegexError,
    translate_js_regex,
    utf16_units,
)
from proctor.graders._scan import mask_findings
from proctor.graders._text import (
    quote,
)


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
