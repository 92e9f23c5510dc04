"""JSON assertions: ``is-json``, ``json-schema``, ``contains-json`` (and promptfoo's extraction).

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import regex

from proctor.api.assertions import Assertion
from proctor.graders._assert_core import (
    REGEX_TIMEOUT_SECONDS,
    AssertionCompileError,
    CaseContext,
    _Evaluate,
    _Result,
    _Unmeasurable,
)
from proctor.graders._canon import Canonical
from proctor.graders._jscompat import (
    promptfoo_json_objects,
    to_json_value,
)
from proctor.graders._text import (
    quote,
)

#: ``contains-json`` tries at most this many ``{`` / ``[`` positions.
_MAX_JSON_CANDIDATES = 200


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
