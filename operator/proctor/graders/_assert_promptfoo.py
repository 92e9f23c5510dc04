"""promptfoo's other deterministic types: ``icontains-any``/``-all``, ``levenshtein``, OpenAI tools
and function calls, ``latency`` and ``cost``.

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from proctor.api.assertions import Assertion
from proctor.graders._assert_core import (
    AssertionCompileError,
    CaseContext,
    _as_str,
    _as_str_list,
    _Evaluate,
    _finder,
    _fold,
    _Result,
    _values,
)
from proctor.graders._assert_json import _parse_json
from proctor.graders._canon import Canonical, canonical_text
from proctor.graders._jscompat import (
    utf16_units,
)
from proctor.graders._text import (
    quote,
)

#: ``levenshtein`` passes at or below this edit distance unless the assertion sets ``threshold``.
DEFAULT_LEVENSHTEIN_THRESHOLD = 5


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
