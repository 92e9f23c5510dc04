"""The assertion vocabulary of a case (DESIGN.md section 5a).

Names follow promptfoo where one exists (so promptfoo suites import cleanly); any type takes a
``not-`` prefix. The vocabulary lives here, below the graders, because the CRD schema (CEL rules)
and the loader both need to know which types exist and what each requires.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ValueKind = Literal[
    "none", "optional", "string", "string-list", "object", "integer", "string-or-json", "object-list"
]


@dataclass(frozen=True, slots=True)
class AssertionKind:
    """What one assertion type needs: the shape of ``value`` and any extra field."""

    name: str
    value: ValueKind
    description: str
    needs_labels: bool = False
    needs_pattern: bool = False
    judged: bool = False
    #: ``threshold`` is allowed ("optional") or required ("required"); None: not allowed.
    threshold: Literal["optional", "required"] | None = None


ASSERTION_KINDS: dict[str, AssertionKind] = {
    k.name: k
    for k in (
        AssertionKind(
            "equals",
            "string-or-json",
            "The answer equals value exactly (a JSON object or list value: the answer is JSON equal to it).",
        ),
        AssertionKind("contains", "string", "The answer contains value (case-sensitive)."),
        AssertionKind("icontains", "string", "The answer contains value, ignoring case."),
        AssertionKind("contains-any", "string-list", "The answer contains at least one of value."),
        AssertionKind("contains-all", "string-list", "The answer contains every item of value."),
        AssertionKind(
            "icontains-any", "string-list", "The answer contains at least one of value, ignoring case."
        ),
        AssertionKind(
            "icontains-all", "string-list", "The answer contains every item of value, ignoring case."
        ),
        AssertionKind("starts-with", "string", "The answer starts with value."),
        AssertionKind("regex", "string", "The answer matches the regular expression value."),
        AssertionKind(
            "is-json", "optional", "The answer is JSON (and matches value as a JSON schema, if given)."
        ),
        AssertionKind(
            "contains-json", "optional", "The answer contains a JSON object (matching value, if given)."
        ),
        AssertionKind(
            "json-schema", "object", "The answer is JSON that validates against the JSON schema value."
        ),
        AssertionKind(
            "label",
            "string",
            "Exactly one of labels is named in the answer, and it is value.",
            needs_labels=True,
        ),
        AssertionKind("refusal", "none", "The answer refuses or declines."),
        AssertionKind(
            "no-guess-after-refusal",
            "none",
            "An answer that declines does not then guess a figure or verdict.",
        ),
        AssertionKind(
            "cites", "optional", "The answer names every context document id in value (default: all given)."
        ),
        AssertionKind("grounded-urls", "none", "Every URL in the answer appears in the case's context."),
        AssertionKind(
            "no-manufactured-consensus",
            "none",
            "The answer does not claim agreement (experts agree, studies show...) "
            "that the context does not state.",
        ),
        AssertionKind("max-length", "integer", "The answer has at most value characters."),
        AssertionKind(
            "only-entities",
            "none",
            "The answer names no identifier of the shape pattern (a tail number, a tenant or account id) "
            "other than the allowed ones, in any spelling (case, separators).",
            needs_pattern=True,
        ),
        AssertionKind(
            "similar",
            "optional",
            "Embedding similarity to value (default: reference) is at least threshold.",
            threshold="optional",
        ),
        AssertionKind(
            "levenshtein",
            "string",
            "The edit distance between the answer and value is at most threshold (default 5).",
            threshold="optional",
        ),
        AssertionKind(
            "is-valid-openai-tools-call",
            "object-list",
            "The answer is an OpenAI tools call (a JSON list of tool calls, or a message with tool_calls) "
            "whose every call names a tool in value (OpenAI 'tools' definitions) with arguments "
            "matching its parameters.",
        ),
        AssertionKind(
            "is-valid-openai-function-call",
            "object-list",
            "The answer is an OpenAI function call (JSON with name and arguments, or a message with "
            "function_call) naming a function in value with arguments matching its parameters.",
        ),
        AssertionKind(
            "latency",
            "none",
            "The answer came within threshold milliseconds "
            "(unmeasured where the run does not record latency).",
            threshold="required",
        ),
        AssertionKind(
            "cost",
            "none",
            "The answer cost at most threshold (unmeasured where the run does not record cost).",
            threshold="required",
        ),
        AssertionKind(
            "llm-rubric", "string", "A judge scores the answer against the rubric value.", judged=True
        ),
        AssertionKind(
            "no-cross-entity-leak",
            "optional",
            "The answer discloses nothing of any record (a person, customer, account, tenant) other than "
            "the one value names (default: the one the question is about), neither its name nor its facts "
            "without its name. Judged by the judge: no pattern can see it; unmeasured without a judge.",
            judged=True,
        ),
    )
}

#: Every accepted ``type`` string, with and without the ``not-`` prefix.
ASSERTION_TYPES: tuple[str, ...] = tuple(sorted([*ASSERTION_KINDS, *(f"not-{k}" for k in ASSERTION_KINDS)]))


def _with_negations(names: list[str]) -> list[str]:
    return sorted([*names, *(f"not-{n}" for n in names)])


#: Types (both forms) whose ``value`` is required / forbidden: the CRD enforces their presence.
VALUE_REQUIRED_TYPES: tuple[str, ...] = tuple(
    _with_negations(
        [
            k.name
            for k in ASSERTION_KINDS.values()
            if k.value in ("string", "string-list", "object", "integer", "string-or-json", "object-list")
        ]
    )
)
VALUE_FORBIDDEN_TYPES: tuple[str, ...] = tuple(
    _with_negations([k.name for k in ASSERTION_KINDS.values() if k.value == "none"])
)


#: Types that take ``threshold`` / must have it.
THRESHOLD_TYPES: list[str] = [k.name for k in ASSERTION_KINDS.values() if k.threshold is not None]
THRESHOLD_REQUIRED_TYPES: list[str] = [k.name for k in ASSERTION_KINDS.values() if k.threshold == "required"]
#: Types whose reading differs in promptfoo, where ``dialect: promptfoo`` follows promptfoo: the
#: answer as written (Proctor's own reading compares canonical text: NFKC, invisible characters
#: removed, look-alike letters mapped), a JavaScript regex, promptfoo's JSON extraction, edit
#: distance in UTF-16 code units.
DIALECT_TYPES: list[str] = [
    "equals",
    "contains",
    "icontains",
    "contains-any",
    "contains-all",
    "icontains-any",
    "icontains-all",
    "starts-with",
    "regex",
    "contains-json",
    "levenshtein",
]
Dialect = Literal["proctor", "promptfoo"]


def _cel_in(field: str, names: list[str]) -> str:
    return " || ".join(f"{field} == '{n}'" for n in _with_negations(names))


_PATTERN_KINDS = [k.name for k in ASSERTION_KINDS.values() if k.needs_pattern]

#: The CRD's checks of an assertion. ``value`` is free-form (its shape depends on ``type``), so CEL
#: cannot see it; its presence is enforced with OpenAPI value validations instead (``allOf`` below).
_ASSERTION_SCHEMA_EXTRA: dict[str, Any] = {
    "x-kubernetes-validations": [
        {
            "rule": f"({_cel_in('self.type', [k.name for k in ASSERTION_KINDS.values() if k.needs_labels])})"
            " == has(self.labels)",
            "message": "labels is required for 'label' assertions and allowed only there",
            "fieldPath": ".labels",
        },
        {
            "rule": f"({_cel_in('self.type', _PATTERN_KINDS)}) == has(self.pattern)",
            "message": "pattern is required for 'only-entities' assertions and allowed only there",
            "fieldPath": ".pattern",
        },
        {
            "rule": f"!has(self.allowed) || {_cel_in('self.type', _PATTERN_KINDS)}",
            "message": "allowed applies to 'only-entities' assertions only",
            "fieldPath": ".allowed",
        },
        {
            "rule": f"!has(self.threshold) || {_cel_in('self.type', THRESHOLD_TYPES)}",
            "message": f"threshold applies to {', '.join(repr(t) for t in THRESHOLD_TYPES)} assertions only",
            "fieldPath": ".threshold",
        },
        {
            "rule": f"has(self.threshold) || !({_cel_in('self.type', THRESHOLD_REQUIRED_TYPES)})",
            "message": "threshold is required for "
            f"{', '.join(repr(t) for t in THRESHOLD_REQUIRED_TYPES)} assertions",
            "fieldPath": ".threshold",
        },
        {
            "rule": "!has(self.threshold) || self.threshold <= 1.0 || "
            f"!({_cel_in('self.type', ['similar'])})",
            "message": "a 'similar' threshold is a cosine similarity, at most 1",
            "fieldPath": ".threshold",
        },
        {
            "rule": "!has(self.dialect) || self.dialect == 'proctor' || "
            f"{_cel_in('self.type', DIALECT_TYPES)}",
            "message": f"dialect applies to {', '.join(repr(t) for t in DIALECT_TYPES)} assertions only",
            "fieldPath": ".dialect",
        },
    ],
    "allOf": [
        {
            "anyOf": [
                {"properties": {"type": {"not": {"enum": list(VALUE_REQUIRED_TYPES)}}}},
                {"required": ["value"]},
            ]
        },
        {
            "anyOf": [
                {"properties": {"type": {"not": {"enum": list(VALUE_FORBIDDEN_TYPES)}}}},
                {"not": {"required": ["value"]}},
            ]
        },
    ],
}


def split_type(type_: str) -> tuple[str, bool]:
    """``"not-contains"`` -> ``("contains", True)``; ``"contains"`` -> ``("contains", False)``."""
    if type_.startswith("not-") and type_[4:] in ASSERTION_KINDS:
        return type_[4:], True
    return type_, False


class Assertion(BaseModel):
    """One deterministic (or rubric-judged) criterion on a case's answer."""

    model_config = ConfigDict(
        extra="forbid",
        defer_build=True,
        validate_by_name=True,
        validate_by_alias=True,
        json_schema_extra=_ASSERTION_SCHEMA_EXTRA,
    )

    type: str = Field(
        max_length=64,
        description="The assertion type (promptfoo vocabulary where one exists); "
        "any type takes a 'not-' prefix.",
        json_schema_extra={"enum": list(ASSERTION_TYPES)},
    )
    value: Any = Field(
        default=None,
        description="What the assertion compares against: a string, a list of strings, a JSON schema "
        "object or an integer, depending on type.",
        json_schema_extra={"x-kubernetes-preserve-unknown-fields": True},
    )
    labels: list[Annotated[str, Field(min_length=1, max_length=256)]] | None = Field(
        default=None,
        max_length=32,
        description="For 'label': the full set of mutually exclusive labels the answer may name.",
        json_schema_extra={"minItems": 2, "x-kubernetes-list-type": "set"},
    )
    threshold: float | None = Field(
        default=None,
        ge=0,
        description="For 'similar': the minimum cosine similarity (0-1, default 0.8); 'levenshtein': the "
        "largest edit distance (default 5); 'latency': milliseconds; 'cost': the most the answer may cost.",
    )
    dialect: Dialect | None = Field(
        default=None,
        description="'promptfoo': read this assertion as promptfoo does where its reading differs (the "
        "answer as written, not Proctor's canonical text; a JavaScript regex; promptfoo's JSON extraction "
        "for contains-json; edit distance in UTF-16 code units). Set by 'proctor import promptfoo'; "
        "default 'proctor'.",
    )
    pattern: str | None = Field(
        default=None,
        min_length=1,
        max_length=1024,
        description="For 'only-entities': a regular expression of an identifier's shape (e.g. "
        "'N[- ]?[0-9]{1,5}[A-Z]{0,2}' for a tail number), matched ignoring case.",
    )
    allowed: list[Annotated[str, Field(min_length=1, max_length=256)]] | None = Field(
        default=None,
        max_length=256,
        description="For 'only-entities': the identifiers the answer may name (compared ignoring case, "
        "spaces, hyphens, dots and slashes).",
        json_schema_extra={"x-kubernetes-list-type": "set"},
    )

    @model_validator(mode="after")
    def _check_shape(self) -> Assertion:
        base, _ = split_type(self.type)
        kind = ASSERTION_KINDS.get(base)
        if kind is None:
            known = ", ".join(ASSERTION_KINDS)
            raise ValueError(
                f"unknown assertion type {self.type!r} (known: {known}; any takes a 'not-' prefix)"
            )
        v = self.value
        if kind.value == "none" and v is not None:
            raise ValueError(f"assertion {self.type!r} takes no value")
        if kind.value == "string" and not (isinstance(v, str) and v != ""):
            raise ValueError(f"assertion {self.type!r} needs a non-empty string value")
        if kind.value == "string-or-json" and not (
            (isinstance(v, str) and v != "") or isinstance(v, dict | list)
        ):
            raise ValueError(
                f"assertion {self.type!r} needs a non-empty string or a JSON object or list value"
            )
        if kind.value == "object-list" and not (isinstance(v, list) and all(isinstance(x, dict) for x in v)):
            raise ValueError(f"assertion {self.type!r} needs a list of definitions (objects) as value")
        if kind.value == "string-list" and not (
            isinstance(v, list) and v and all(isinstance(x, str) for x in v)
        ):
            raise ValueError(f"assertion {self.type!r} needs a non-empty list of strings as value")
        if kind.value == "object" and not isinstance(v, dict):
            raise ValueError(f"assertion {self.type!r} needs a JSON schema object as value")
        if kind.value == "integer" and not (isinstance(v, int) and not isinstance(v, bool) and v >= 0):
            raise ValueError(f"assertion {self.type!r} needs a non-negative integer value")
        if kind.needs_labels:
            if not self.labels or len(set(self.labels)) < 2:
                raise ValueError(f"assertion {self.type!r} needs 'labels' with at least two distinct labels")
            if v not in self.labels:
                raise ValueError(f"assertion {self.type!r}: value {v!r} is not one of labels {self.labels}")
        elif self.labels is not None:
            raise ValueError(f"'labels' only applies to 'label' assertions, not {self.type!r}")
        if self.threshold is not None and kind.threshold is None:
            raise ValueError(
                f"'threshold' only applies to {', '.join(THRESHOLD_TYPES)} assertions, not {self.type!r}"
            )
        if self.threshold is None and kind.threshold == "required":
            raise ValueError(f"assertion {self.type!r} needs a threshold")
        if base == "similar" and self.threshold is not None and self.threshold > 1:
            raise ValueError("a 'similar' threshold is a cosine similarity, at most 1")
        if self.dialect not in (None, "proctor") and base not in DIALECT_TYPES:
            raise ValueError(
                f"'dialect' only applies to {', '.join(DIALECT_TYPES)} assertions, not {self.type!r}"
            )
        if kind.needs_pattern:
            if not self.pattern:
                raise ValueError(f"assertion {self.type!r} needs 'pattern' (the shape of an identifier)")
        elif self.pattern is not None or self.allowed is not None:
            raise ValueError(
                f"'pattern' and 'allowed' only apply to 'only-entities' assertions, not {self.type!r}"
            )
        if (
            base == "cites"
            and v is not None
            and not (isinstance(v, list) and all(isinstance(x, str) for x in v))
        ):
            raise ValueError("assertion 'cites' takes a list of document ids as value")
        return self

    @property
    def base_type(self) -> str:
        return split_type(self.type)[0]

    @property
    def negated(self) -> bool:
        return split_type(self.type)[1]
