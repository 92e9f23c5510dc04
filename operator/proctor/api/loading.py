"""Validate raw manifests (YAML text or dicts) into the models, with errors a person can act on.

Every problem names the kind, the object and the field path, and for a case its id::

    CaseSet oil-monitoring: case 'oil-consumption-boundary': assert[0]: unknown assertion type 'bogus' (...)
    EvalRun nightly: spec.target: set exactly one of endpoint, podTemplate or responses

Bad input is refused, never guessed: a key written twice in a mapping (YAML or JSON) is an error
naming the key and its lines (the last value would silently win: a case could leave the safety
tier); a YAML alias bomb (anchors expanding into more than :data:`MAX_ALIAS_EXPANSION` nodes) is
refused before it is expanded; an answer that is a number, a boolean or a date is an error, not
silently made text (``0.30`` would become ``0.3``).

Errors::

    ManifestError (ValueError)        a manifest, case list or answer map does not validate;
    |                                 .problems lists every problem, each a full sentence
    +-- MissingReferenceError         a ConfigMap or key that casesFrom names does not exist
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, TypeVar

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from proctor.api.caseset import Case, CaseSet
from proctor.api.common import API_VERSION
from proctor.api.monitor import AgentMonitor
from proctor.api.policy import GatePolicy
from proctor.api.profile import EvalProfile
from proctor.api.run import EvalRun

#: Any of the kinds.
Resource = EvalProfile | CaseSet | GatePolicy | EvalRun | AgentMonitor

#: The model of each kind.
RESOURCE_KINDS: Final[dict[str, type[Resource]]] = {
    "EvalProfile": EvalProfile,
    "CaseSet": CaseSet,
    "GatePolicy": GatePolicy,
    "EvalRun": EvalRun,
    "AgentMonitor": AgentMonitor,
}

_R = TypeVar("_R", bound=BaseModel)
_CASE_LIST: Final = TypeAdapter(list[Case])

#: Union tags in pydantic locations that are not field names (a case's input: text or messages).
_UNION_TAGS: Final = {("input", "text"), ("input", "messages")}


class ManifestError(ValueError):
    """A manifest (or case list, or answer map) that does not validate.

    ``problems`` holds one line per problem, each naming the kind, object and field path;
    ``str()`` joins them with newlines.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("\n".join(self.problems))


class MissingReferenceError(ManifestError):
    """A ConfigMap (or one of its keys) that a CaseSet's casesFrom names does not exist."""


# --- error formatting ---------------------------------------------------------------------------


def _path(loc: Sequence[int | str]) -> str:
    out = ""
    prev: int | str | None = None
    for part in loc:
        if (prev, part) in _UNION_TAGS:
            prev = part
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
        prev = part
    return out


def _message(err: ErrorDetails) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required field missing"
    if kind == "extra_forbidden":
        return "unknown field (a typo?)"
    msg = err["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def _case_label(cases: Any, index: int) -> str:
    if isinstance(cases, list) and 0 <= index < len(cases):
        case = cases[index]
        if isinstance(case, Mapping) and isinstance(case.get("id"), str) and case["id"]:
            return f"case {case['id']!r}"
    return f"case #{index + 1}"


def _problems(exc: ValidationError, cases: Any, *, cases_loc: tuple[str | int, ...]) -> list[str]:
    """One line per error; errors inside ``cases_loc[i]`` are named by the case's id."""
    out: list[str] = []
    n = len(cases_loc)
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        msg = _message(err)
        index = loc[n] if len(loc) > n and loc[:n] == cases_loc else None
        if isinstance(index, int):
            rest = _path(loc[n + 1 :])
            label = _case_label(cases, index)
            out.append(f"{label}: {rest}: {msg}" if rest else f"{label}: {msg}")
        else:
            path = _path(loc)
            out.append(f"{path}: {msg}" if path else msg)
    return out


def _raw_duplicate_ids(cases: Any) -> list[str]:
    """Duplicate ids among raw case dicts, worded as the model words them."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for i, case in enumerate(cases if isinstance(cases, list) else []):
        case_id = case.get("id") if isinstance(case, Mapping) else None
        if not isinstance(case_id, str):
            continue
        if case_id in seen:
            out.append(f"spec.cases: duplicate case id {case_id!r} (cases[{seen[case_id]}] and cases[{i}])")
        else:
            seen[case_id] = i
    return out


def _describe(obj: Mapping[str, Any]) -> str:
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "object"
    meta = obj.get("metadata")
    name = None
    if isinstance(meta, Mapping):
        name = meta.get("name") or (f"{meta['generateName']}*" if meta.get("generateName") else None)
    return f"{kind} {name}" if isinstance(name, str) and name else f"{kind} <unnamed>"


# --- manifests ----------------------------------------------------------------------------------


def _validate(model: type[_R], obj: Mapping[str, Any]) -> _R:
    label = _describe(obj)
    problems: list[str] = []
    if obj.get("apiVersion") != API_VERSION:
        problems.append(f"apiVersion must be {API_VERSION}, not {obj.get('apiVersion')!r}")
    meta = obj.get("metadata")
    if not (isinstance(meta, Mapping) and (meta.get("name") or meta.get("generateName"))):
        problems.append("metadata.name is required")
    spec = obj.get("spec")
    cases = spec.get("cases") if isinstance(spec, Mapping) else None
    try:
        resource = model.model_validate(obj)
    except ValidationError as exc:
        # apiVersion was reported above, in words that say what to write instead.
        problems.extend(
            p for p in _problems(exc, cases, cases_loc=("spec", "cases")) if not p.startswith("apiVersion:")
        )
        # pydantic checks ids only once every case validates: report duplicates regardless.
        problems.extend(p for p in _raw_duplicate_ids(cases) if p not in problems)
        raise ManifestError([f"{label}: {p}" for p in problems]) from exc
    if problems:
        raise ManifestError([f"{label}: {p}" for p in problems])
    return resource


def parse_manifest(obj: Any) -> Resource:
    """Validate one manifest dict of any of Proctor's kinds into its model."""
    if not isinstance(obj, Mapping):
        raise ManifestError([f"a manifest must be a mapping, not {type(obj).__name__}"])
    kind = obj.get("kind")
    model = RESOURCE_KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        known = ", ".join(RESOURCE_KINDS)
        raise ManifestError([f"{_describe(obj)}: kind must be one of {known}, not {kind!r}"])
    return _validate(model, obj)


def _parse_kind(model: type[_R], obj: Any) -> _R:
    kind = str(getattr(model, "KIND"))  # noqa: B009 - a ClassVar of the resource models
    if not isinstance(obj, Mapping):
        raise ManifestError([f"a {kind} manifest must be a mapping, not {type(obj).__name__}"])
    if obj.get("kind") != kind:
        raise ManifestError([f"{_describe(obj)}: expected kind {kind}, not {obj.get('kind')!r}"])
    return _validate(model, obj)


def parse_caseset(obj: Any) -> CaseSet:
    """Validate a CaseSet manifest dict (errors name the case id and the field path)."""
    return _parse_kind(CaseSet, obj)


def parse_profile(obj: Any) -> EvalProfile:
    """Validate an EvalProfile manifest dict."""
    return _parse_kind(EvalProfile, obj)


def parse_policy(obj: Any) -> GatePolicy:
    """Validate a GatePolicy manifest dict."""
    return _parse_kind(GatePolicy, obj)


def parse_evalrun(obj: Any) -> EvalRun:
    """Validate an EvalRun manifest dict."""
    return _parse_kind(EvalRun, obj)


def parse_monitor(obj: Any) -> AgentMonitor:
    """Validate an AgentMonitor manifest dict."""
    return _parse_kind(AgentMonitor, obj)


#: libyaml's safe loader when PyYAML was built with it.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Nodes that YAML aliases may add to a document when expanded; more is an alias bomb ("billion
#: laughs"), refused before anything expands it. Ordinary reuse of anchors stays far below.
MAX_ALIAS_EXPANSION: Final = 100_000
_MERGE_TAG: Final = "tag:yaml.org,2002:merge"


class _InputError(Exception):
    """A problem found while reading YAML (a duplicate key, an alias bomb): becomes a ManifestError."""


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """``(distinct nodes, nodes once every alias is expanded)`` of a composed document."""
    size: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in size and not done:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        if done:
            size[key] = 1 + sum(size.get(id(c), 1) for c in children)
            if size[key] - len(size) > MAX_ALIAS_EXPANSION:
                return len(size), size[key]  # a bomb already: no need to add up the rest
            continue
        size[key] = 1  # in progress (a recursive alias counts once)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)
    return len(size), size.get(id(root), 1)


class _StrictLoader(_SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader that refuses duplicate keys and alias bombs."""

    def construct_document(self, node: yaml.Node) -> Any:
        distinct, expanded = _expanded_size(node)
        if expanded - distinct > MAX_ALIAS_EXPANSION:
            raise _InputError(
                f"YAML aliases expand {distinct} nodes into more than {expanded:,} "
                f"(an alias bomb; at most {MAX_ALIAS_EXPANSION:,} added nodes)"
            )
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: PyYAML reports it
                    continue
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise _InputError(f"duplicate key {key!r} at line {line} (first at line {first})")
                seen[key] = line
        return super().construct_mapping(node, deep)


#: Plain scalars that YAML 1.1 (PyYAML, and kubectl's parser) reads as booleans but YAML 1.2
#: (yaml-rs) reads as strings. A document holding one of these words as a value is parsed again
#: by PyYAML, so offline grading reads a file exactly as ``kubectl apply`` would. (Leading-zero
#: octals also differ; no field of these kinds is an integer where that could matter.)
_YAML11_BOOLS = frozenset(["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])
#: (A ``<<`` key is a merge for kubectl and PyYAML, a plain key for yaml-rs: PyYAML reads those too.)
#: Strings yaml-rs returns (it is told not to read dates) that YAML 1.1 may read as a timestamp
#: or a sexagesimal number when unquoted: such a document goes to PyYAML too, which tells quoted
#: from unquoted, so a bare date is a date (and refused where text is expected) on both paths.
_YAML11_SCALAR = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
)


_YAML11_WORDS = _YAML11_BOOLS | {"<<"}
_DIGIT_OR_SIGN = frozenset("0123456789+-")


def _holds_yaml11_scalar(obj: Any) -> bool:
    """Whether a key or value of ``obj`` (as yaml-rs returned it) may read differently in YAML 1.1.

    It visits every string of a case set (10,000 cases: about half a million), so it looks at the
    exact types yaml-rs returns and tests a string's length and first character before anything else.
    """
    stack = [obj]
    while stack:
        o = stack.pop()
        items: Any = (*o, *o.values()) if type(o) is dict else o if type(o) is list else (o,)
        for v in items:
            t = type(v)
            if t is str:
                if 0 < len(v) <= 40 and (
                    v in _YAML11_WORDS or (v[0] in _DIGIT_OR_SIGN and _YAML11_SCALAR.fullmatch(v))
                ):
                    return True
            elif t is dict or t is list:
                stack.append(v)
    return False


#: A ``---`` marker line (``---`` alone, or followed by a blank and anything), at the text's start
#: and after a line break. Each pattern starts with a literal, which Python's engine looks for with
#: a fast scan; a ``^`` in multi-line mode would be tried at every character of a 4 MB file (ten
#: times slower, on the path before the grading processes fork).
_FIRST_DOC_START = re.compile(r"---(?:[ \t][^\n]*)?(?=\n|\Z)")
_DOC_START = re.compile(r"\n---(?:[ \t][^\n]*)?(?=\n|\Z)")
#: A directive (``%YAML``) or an explicit document end (``...``) at a line's start, likewise
_FIRST_DIRECTIVE_OR_END = re.compile(r"%|\.\.\.\s*$", re.MULTILINE)
_DIRECTIVE_OR_END = re.compile(r"\n(?:%|\.\.\.\s*$)", re.MULTILINE)


def _split_documents(text: str) -> list[str]:
    """Split a YAML stream at its ``---`` markers (always at column 0, so never inside a scalar):
    the marker lines' characters go, the line breaks around them stay with the parts."""
    parts: list[str] = []
    start = 0
    first = _FIRST_DOC_START.match(text)
    if first is not None:
        parts.append("")
        start = first.end()
    for m in _DOC_START.finditer(text, start):
        parts.append(text[start : m.start() + 1])
        start = m.end()
    parts.append(text[start:])
    return [p for p in parts if p.strip() and p.strip() != "..."]


def _has_directive_or_end(part: str) -> bool:
    """Whether a line of ``part`` starts with a directive or is an explicit document end."""
    return _FIRST_DIRECTIVE_OR_END.match(part) is not None or _DIRECTIVE_OR_END.search(part) is not None


#: yaml-rs allocates through its own mimalloc, which by default commits its arenas eagerly and keeps
#: what a parse freed: 12-15 MiB more in every process that parsed a large document (the
#: ConfigMaps of a 10,000-case CaseSet), never given back. These make it commit on demand and
#: return freed pages at once, for no measurable time; a value already in the environment wins.
MIMALLOC_OPTIONS: Final = {"MIMALLOC_ARENA_EAGER_COMMIT": "0", "MIMALLOC_PURGE_DELAY": "0"}


@functools.cache
def _yaml_rs() -> tuple[Any, Any]:
    """yaml-rs and its alias limits, imported with the first YAML text (5 MiB of native code the
    operator does without while every manifest it reads is JSON from the API server)."""
    for option, value in MIMALLOC_OPTIONS.items():
        os.environ.setdefault(option, value)  # read by the allocator when the library loads
    import yaml_rs

    return yaml_rs, yaml_rs.AliasLimits(max_total_replayed_events=MAX_ALIAS_EXPANSION)


def _fast_yaml(text: str) -> list[Any] | None:
    """Parse with yaml-rs (native, ~25x faster than libyaml's Python constructor) when it is safe.

    yaml-rs refuses duplicate keys and alias bombs too; those documents go to PyYAML, whose
    strict loader names the key's line (or refuses the bomb before expanding it)."""
    yaml_rs, limits = _yaml_rs()
    docs: list[Any] = []
    for part in _split_documents(text):
        if _has_directive_or_end(part):
            return None  # directives and explicit document ends: leave them to PyYAML
        try:
            doc = yaml_rs.loads(part, parse_datetime=False, alias_limits=limits)
        except (yaml_rs.YAMLDecodeError, RecursionError):
            return None  # PyYAML reports the error (or accepts what yaml-rs does not)
        if _holds_yaml11_scalar(doc):
            return None
        docs.append(doc)
    return docs


class _DuplicateJSONKey(ValueError):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateJSONKey(key)
        out[key] = value
    return out


def _yaml_documents(text: str, source: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        # JSON is YAML, but json.loads is two orders of magnitude faster than any YAML parser.
        try:
            return [json.loads(stripped, object_pairs_hook=_unique_pairs)]
        except _DuplicateJSONKey as dup:
            # PyYAML (below) reads JSON too and names the line; if it cannot, say what we know
            duplicate = f"{source}: duplicate key {dup.args[0]!r} (JSON)"
        except RecursionError:
            raise ManifestError([f"{source}: not valid JSON: nested too deeply"]) from None
        except ValueError:
            duplicate = ""
        else:  # pragma: no cover - returned above
            duplicate = ""
        fast = None
    else:
        duplicate = ""
        fast = _fast_yaml(text)
    if fast is not None:
        return fast
    try:
        return list(yaml.load_all(text, Loader=_StrictLoader))
    except _InputError as exc:
        raise ManifestError([f"{source}: {exc}"]) from None
    except RecursionError:
        raise ManifestError([f"{source}: not valid YAML: nested too deeply"]) from None
    except yaml.YAMLError as exc:
        if duplicate:
            raise ManifestError([duplicate]) from exc
        raise ManifestError([f"{source}: not valid YAML: {exc}"]) from exc


def load_manifests(
    text: str,
    *,
    source: str = "<manifests>",
    ignore_other_kinds: bool = False,
    others: list[Mapping[str, Any]] | None = None,
) -> list[Resource]:
    """Every Proctor object in a (multi-document) YAML or JSON text, validated.

    Empty documents are skipped and ``kind: List`` is expanded. Objects of other kinds (a
    ConfigMap next to a CaseSet) are an error unless ``ignore_other_kinds``; then, with
    ``others``, they are appended to it as read (so the text is not read twice for them). Every
    problem in every document is reported at once, in one :class:`ManifestError`.
    """
    objects: list[Any] = []
    for doc in _yaml_documents(text, source):
        if doc is None:
            continue
        if isinstance(doc, Mapping) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            objects.extend(doc["items"])
        else:
            objects.append(doc)
    out: list[Resource] = []
    problems: list[str] = []
    for obj in objects:
        if ignore_other_kinds and isinstance(obj, Mapping) and obj.get("kind") not in RESOURCE_KINDS:
            if others is not None:
                others.append(obj)
            continue
        try:
            out.append(parse_manifest(obj))
        except ManifestError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ManifestError(problems)
    return out


# --- cases and answers from ConfigMaps ----------------------------------------------------------


def _raw_cases(data: Any, where: str) -> list[Any]:
    """The list of case mappings in ``data`` (text, a list, or ``{cases: [...]}``), not validated."""
    if isinstance(data, str):
        docs = [d for d in _yaml_documents(data, where) if d is not None]
        data = docs[0] if len(docs) == 1 else docs
    if isinstance(data, Mapping) and set(data) == {"cases"}:
        data = data["cases"]
    if not isinstance(data, list):
        raise ManifestError(
            [f"{where}: expected a list of cases (or {{cases: [...]}}), not {type(data).__name__}"]
        )
    return data


def parse_cases(data: Any, *, where: str) -> list[Case]:
    """Cases from a ConfigMap value or file: YAML/JSON text, a list of cases, or ``{cases: [...]}``.

    ``where`` prefixes every problem (e.g. ``"CaseSet oil: ConfigMap more-cases/batch1.yaml"``).
    Duplicate ids within ``data`` are rejected, naming the id.
    """
    data = _raw_cases(data, where)
    try:
        cases = _CASE_LIST.validate_python(data)
    except ValidationError as exc:
        raise ManifestError([f"{where}: {p}" for p in _problems(exc, data, cases_loc=())]) from exc
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        if case.id in seen:
            problems.append(f"{where}: duplicate case id {case.id!r} (cases[{seen[case.id]}] and cases[{i}])")
        seen.setdefault(case.id, i)
    if problems:
        raise ManifestError(problems)
    return cases


#: How many cases of a share become models at a time (:func:`case_batches`): the validated cases
#: of a 2,000-case ConfigMap held at once cost about 5 MiB, a batch of this size a twentieth.
CASE_BATCH: Final = 100


def case_batches(
    data: str, *, where: str, start: Fraction, stop: Fraction, size: int = CASE_BATCH
) -> Iterator[list[Case]]:
    """The cases in ``data`` from fraction ``start`` to ``stop`` of its list (0 <= start <= stop
    <= 1; shares that meet at the same fraction split the list exactly), validated ``size`` at a
    time: the whole text is parsed, only the share becomes models, a batch at a time, so several
    processes can each validate a part of one ConfigMap and none holds all its models. Raises
    :class:`ManifestError` (from the batch that has it) on any problem in the text or the share,
    without the exact words and with no duplicate check: :func:`parse_cases` of the whole text
    says what is wrong."""
    raw = _raw_cases(data, where)
    part = raw[math.floor(len(raw) * start) : math.floor(len(raw) * stop)]
    del raw
    for i in range(0, len(part), size):
        batch = part[i : i + size]
        try:
            yield _CASE_LIST.validate_python(batch)
        except ValidationError as exc:
            raise ManifestError([f"{where}: {p}" for p in _problems(exc, batch, cases_loc=())]) from exc
        part[i : i + size] = [None] * len(batch)  # the raw mappings go as their models did


@dataclass(frozen=True)
class CaseSource:
    """One ConfigMap value a CaseSet's ``casesFrom`` names: where it is (for problems) and its text."""

    #: ``ConfigMap NAME/KEY``
    where: str
    text: str


def case_sources(caseset: CaseSet, config_maps: Mapping[str, Mapping[str, str]]) -> list[CaseSource]:
    """The texts ``caseset``'s ``casesFrom`` names, in order, not parsed; a missing ConfigMap or
    key raises :class:`MissingReferenceError` naming every one."""
    label = f"CaseSet {caseset.metadata.name or '<unnamed>'}"
    out: list[CaseSource] = []
    missing: list[str] = []
    for ref in caseset.spec.cases_from:
        data = config_maps.get(ref.name)
        if data is None:
            missing.append(f"{label}: casesFrom: ConfigMap {ref.name!r} not found")
            continue
        if ref.key is not None and ref.key not in data:
            missing.append(f"{label}: casesFrom: ConfigMap {ref.name!r} has no key {ref.key!r}")
            continue
        keys = [ref.key] if ref.key is not None else sorted(data)
        out += [CaseSource(f"ConfigMap {ref.name}/{key}", data[key]) for key in keys]
    if missing:
        raise MissingReferenceError(missing)
    return out


def resolve_cases(caseset: CaseSet, config_maps: Mapping[str, Mapping[str, str]]) -> list[Case]:
    """Every case of ``caseset``: inline ones, then each ``casesFrom`` ConfigMap's, in order.

    ``config_maps`` maps a ConfigMap name to its ``data``. A missing ConfigMap or key raises
    :class:`MissingReferenceError`; invalid cases and ids duplicated across sources raise
    :class:`ManifestError` naming the id and both sources.
    """
    label = f"CaseSet {caseset.metadata.name or '<unnamed>'}"
    cases: list[Case] = list(caseset.spec.cases)
    origin: dict[str, str] = {c.id: "spec.cases" for c in cases}
    problems: list[str] = []
    for source in case_sources(caseset, config_maps):
        try:
            batch = parse_cases(source.text, where=f"{label}: {source.where}")
        except ManifestError as exc:
            problems.extend(exc.problems)
            continue
        for case in batch:
            if case.id in origin:
                problems.append(
                    f"{label}: duplicate case id {case.id!r} (in {origin[case.id]} and {source.where})"
                )
                continue
            origin[case.id] = source.where
            cases.append(case)
    if problems:
        raise ManifestError(problems)
    return cases


def parse_responses(data: str | Mapping[str, Any], *, where: str = "responses") -> dict[str, str]:
    """Recorded answers: a YAML/JSON map (or the text of one) of case id -> answer text.

    Only text is an answer: numbers, booleans, dates, nulls, lists and maps are refused, naming
    the case (a bare ``0.30`` in YAML is the number 0.3 and ``yes`` a boolean: quote them). A case
    id written twice is refused too (which answer would count?).
    """
    if isinstance(data, str):
        docs = [d for d in _yaml_documents(data, where) if d is not None]
        parsed: Any = docs[0] if len(docs) == 1 else docs
    else:
        parsed = data
    if isinstance(parsed, list) and any(
        isinstance(d, Mapping) and "kind" in d and "apiVersion" in d for d in parsed
    ):
        parsed = next(d for d in parsed if isinstance(d, Mapping) and "kind" in d)
    if not isinstance(parsed, Mapping):
        raise ManifestError([f"{where}: expected a map of case id -> answer, not {type(parsed).__name__}"])
    if isinstance(parsed.get("kind"), str) and "apiVersion" in parsed:
        raise ManifestError(
            [
                f"{where}: this is a {parsed['kind']} manifest, not recorded answers: --responses takes a "
                "map of case id -> answer text (like examples/oil-monitoring/answers/v1-correct.yaml)"
            ]
        )
    out: dict[str, str] = {}
    problems: list[str] = []
    for key, value in parsed.items():
        if not isinstance(value, str):
            what = f"{_kind_of(value)}{_quote_hint(value)}"
            problems.append(f"{where}: case {str(key)!r}: the answer must be text, not {what}")
            continue
        out[str(key)] = value
    if problems:
        raise ManifestError(problems)
    return out


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, datetime.datetime | datetime.date):
        return f"a date ({value.isoformat()})"
    return type(value).__name__


def _quote_hint(value: Any) -> str:
    if isinstance(value, bool):
        return " (quote it: a bare yes/no/true/false is a boolean in YAML)"
    if isinstance(value, datetime.date):
        return " (quote it: written bare, YAML reads it as a date)"
    if isinstance(value, int | float):
        return " (quote it: written bare, YAML reads it as a number, and 0.30 would become 0.3)"
    return ""


def iter_kind(resources: Iterable[Resource], model: type[_R]) -> list[_R]:
    """The resources of one kind, in order (e.g. the CaseSets among loaded manifests)."""
    return [r for r in resources if isinstance(r, model)]
