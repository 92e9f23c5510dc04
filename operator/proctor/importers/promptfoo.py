"""Import a promptfoo suite (``promptfooconfig.yaml``) as a CaseSet manifest, with promptfoo's meaning.

Each test becomes a case: its id is the test's ``description`` in lower-case kebab form (else
``test-N`` by position, 1-based), its input is the prompt rendered with the test's vars, and its
assertions are ``defaultTest``'s plus the test's. Each assertion is translated so that Proctor's
verdict is promptfoo's (``tests/integration/test_promptfoo_agreement.py`` runs promptfoo itself):

- the config is read as promptfoo reads YAML (js-yaml: ``yes`` is a string, a duplicate key is
  an error); values are rendered with the test's vars (``{{ var }}``; a missing var is empty);
- non-string values become the text promptfoo compares with (``String(value)``: ``equals: 0.30``
  means ``"0.3"``); a comma-separated string for ``contains-any`` and the like is split as
  promptfoo splits it; an object for ``equals`` is compared as JSON;
- the text types (``equals``, ``contains`` and the like, ``starts-with``), ``regex``,
  ``contains-json`` and ``levenshtein`` carry ``dialect: promptfoo`` (the answer as written, not
  Proctor's canonical text; a JavaScript regex; promptfoo's JSON extraction; UTF-16 edit
  distance); a regex JavaScript rejects is reported here (promptfoo would fail it on every answer);
- the OpenAI tools / function-call checks take the tools / functions of the first provider.

What cannot be translated (custom code: ``javascript``, ``python``; a ``transform``; a value
promptfoo itself rejects) is named in :attr:`ImportResult.untranslatable`, never dropped
silently; a test none of whose assertions can be translated is left out (imported, it would
always pass) and named in :attr:`ImportResult.left_out`. Only plain ``{{ var }}`` substitution is
rendered in prompts; Nunjucks logic is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from proctor.api.assertions import ASSERTION_KINDS, DIALECT_TYPES, Assertion
from proctor.graders import (
    AssertionCompileError,
    JsRegexError,
    compile_assertion,
    js_string,
    load_js_yaml,
    to_json_value,
    translate_js_regex,
)

_VAR = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
_NUNJUCKS_LOGIC = re.compile(r"\{%|\{\{[^}]*\|")


class ImportProblem(Exception):
    """The promptfoo file cannot be read at all (missing, not YAML, no tests)."""


@dataclass
class ImportResult:
    """The CaseSet, and what could not be imported with promptfoo's meaning.

    ``untranslatable`` names each assertion left out and why; ``left_out`` names each test that
    was not imported at all (none of its assertions could be: imported, it would always pass).
    The import is partial when either is non-empty.
    """

    manifest: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    untranslatable: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return bool(self.untranslatable or self.left_out)


class _Dumper(yaml.SafeDumper):
    """Quotes every string a YAML 1.1 or 1.2 reader could take for a number, boolean or null."""


def _reads_back(text: str) -> bool:
    """Whether ``text`` written plain reads back as the same string under YAML 1.1 and 1.2."""
    if not text or "\n" in text or len(text) >= 64:
        return True
    for load in (load_js_yaml, yaml.safe_load):
        try:
            if load(text) != text:
                return False
        except yaml.YAMLError:
            return True  # not a plain scalar at all: the dumper quotes it itself
    return True


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = None if _reads_back(text) else '"'
    if style is None and "\n" in text:
        style = "|"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_manifest(manifest: dict[str, Any]) -> str:
    """The manifest as YAML that any YAML reader reads back the same (``"1e+21"`` stays text)."""
    return yaml.dump(manifest, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def kebab(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:63].rstrip("-")


def _load_ref(ref: str, base: Path) -> Any:
    path = base / ref.removeprefix("file://")
    if path.suffix in (".yaml", ".yml", ".json"):
        return load_js_yaml(path.read_text())
    return path.read_text()


def _prompts(cfg: dict[str, Any], base: Path, warn: list[str]) -> list[str]:
    raw = cfg.get("prompts") or []
    if isinstance(raw, str):
        raw = [raw]
    out: list[str] = []
    for p in raw:
        if isinstance(p, dict):
            p = p.get("raw") or p.get("id") or ""
        if not isinstance(p, str):
            continue
        if p.startswith("file://"):
            try:
                loaded = _load_ref(p, base)
            except OSError as e:
                warn.append(f"prompt {p}: cannot read ({e.strerror})")
                continue
            if not isinstance(loaded, str):
                warn.append(
                    f"prompt {p}: chat-format prompt files are not rendered; the vars become the input"
                )
                continue
            p = loaded
        out.append(p)
    if len(out) > 1:
        warn.append(f"{len(out)} prompts: each case uses the first; promptfoo would evaluate every prompt")
    return out


def _render(template: str, vars_: dict[str, Any]) -> str:
    return _VAR.sub(lambda m: str(vars_.get(m.group(1), m.group(0))), template)


#: promptfoo's types that only custom code can decide: never translatable.
CUSTOM_CODE_TYPES = frozenset({"javascript", "python", "ruby", "webhook"})
#: promptfoo's types whose reading differs from Proctor's own (the answer as written rather than
#: canonical text, a JavaScript regex, promptfoo's JSON extraction, UTF-16 edit distance): imported
#: with ``dialect: promptfoo``.
_DIALECT = frozenset(DIALECT_TYPES)
_LIST_TYPES = frozenset({"contains-any", "contains-all", "icontains-any", "icontains-all"})
_CONTAINS_TYPES = frozenset({"contains", "icontains"})
#: promptfoo's handlers for these never read the ``not-`` prefix: ``not-X`` grades as ``X``.
_IGNORES_NOT = frozenset({"is-valid-openai-tools-call", "is-valid-openai-function-call"})
#: Options that change what an assertion grades: an assertion with one is not imported.
_CHANGES_MEANING = ("transform", "contextTransform", "provider", "rubricPrompt", "config")


class Untranslatable(Exception):
    """One assertion cannot be imported with promptfoo's meaning; the message says why."""


def _csv(value: str) -> list[str]:
    """promptfoo's ``parseCommaSeparatedValues``: ``a, "b, c"`` -> ``["a", "b, c"]``."""
    out: list[str] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i] == "," or value[i].isspace()):
            i += 1
        if i >= n:
            break
        if value[i] == '"':
            j = i + 1
            field: list[str] = []
            while j < n:
                if value[j] == '"':
                    if j + 1 < n and value[j + 1] == '"':
                        field.append('"')
                        j += 2
                        continue
                    break
                field.append(value[j])
                j += 1
            out.append("".join(field))
            i = j + 1
            while i < n and value[i].isspace():
                i += 1
            if i < n and value[i] != ",":
                raise Untranslatable("promptfoo rejects it: expected a comma after a quoted field")
        else:
            j = value.find(",", i)
            j = n if j < 0 else j
            out.append(value[i:j].strip())
            i = j
    return out


def _render_value(text: str, vars_: dict[str, Any]) -> str:
    """Nunjucks' ``{{ var }}`` as promptfoo renders an assertion value (a missing var renders empty)."""
    if _NUNJUCKS_LOGIC.search(text):
        raise Untranslatable("its value uses Nunjucks filters or tags")

    def sub(m: re.Match[str]) -> str:
        v = vars_.get(m.group(1))
        if v is None:
            return ""
        shown = js_string(v)
        if shown is None:
            raise Untranslatable(f"its value renders the var {m.group(1)!r}, which is not text")
        return shown

    return _VAR.sub(sub, text)


def _text(value: Any, vars_: dict[str, Any], *, numbers: bool) -> str:
    if isinstance(value, str):
        return _render_value(value, vars_)
    if numbers and isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        text = js_string(value)
        assert text is not None
        return text
    raise Untranslatable(f"promptfoo rejects its value {value!r:.40} (it needs a string)")


def _schema(value: Any, base: Path) -> Any:
    if isinstance(value, str):
        if value.startswith("file://"):
            value = _load_ref(value, base)
        else:
            try:
                value = load_js_yaml(value)
            except yaml.YAMLError as e:
                raise Untranslatable(f"its schema is not YAML: {e}") from None
    if not isinstance(value, dict | bool):
        raise Untranslatable("promptfoo rejects its value (a JSON schema object or its text)")
    return to_json_value(value)


def _provider_config(cfg: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    providers = cfg.get("providers") or []
    if isinstance(providers, str | dict):
        providers = [providers]
    if not providers:
        return "", {}
    first = providers[0]
    if isinstance(first, str):
        return first, {}
    if isinstance(first, dict):
        pid = str(first.get("id") or "")
        conf = first.get("config") or {}
        return pid, conf if isinstance(conf, dict) else {}
    return "", {}


def _translate(a: dict[str, Any], vars_: dict[str, Any], ctx: _Config) -> dict[str, Any]:
    """One promptfoo assertion as a Proctor assertion with the same verdict, or Untranslatable."""
    type_ = str(a["type"])
    base = type_.removeprefix("not-")
    if base in CUSTOM_CODE_TYPES:
        raise Untranslatable(f"{type_!r} is custom code, which only promptfoo can run")
    if base not in ASSERTION_KINDS:
        raise Untranslatable(f"assertion type {type_!r} has no Proctor equivalent")
    for key in _CHANGES_MEANING:
        if key in a:
            raise Untranslatable(f"its {key!r} changes what is graded, and Proctor does not run it")
    v = a.get("value")
    out: dict[str, Any] = {"type": type_}
    if isinstance(v, str) and v.startswith("file://") and base not in ("is-json", "contains-json"):
        raise Untranslatable("its value is loaded from a file or script at run time")
    if base == "equals":
        if isinstance(v, dict | list):
            out["value"] = to_json_value(
                [_render_value(x, vars_) if isinstance(x, str) else x for x in v]
                if isinstance(v, list)
                else v
            )
        else:
            text = _render_value(v, vars_) if isinstance(v, str) else js_string(v)
            if text is None:
                raise Untranslatable(f"promptfoo compares with String({v!r:.40}), which is not portable")
            if text == "":
                raise Untranslatable("it expects an empty answer, which Proctor never grades as a pass")
            out["value"] = text
    elif base in _CONTAINS_TYPES:
        text = _text(v, vars_, numbers=True)
        if text == "":
            raise Untranslatable("promptfoo rejects an empty value")
        out["value"] = text
    elif base in _LIST_TYPES:
        if not v:
            raise Untranslatable("promptfoo rejects an empty value")
        items = _csv(_render_value(v, vars_)) if isinstance(v, str) else v
        if not isinstance(items, list):
            raise Untranslatable("promptfoo rejects its value (a list, or a comma-separated string)")
        texts = []
        for x in items:
            t = _render_value(x, vars_) if isinstance(x, str) else js_string(x)
            if t is None:
                raise Untranslatable(f"promptfoo compares with String({x!r:.40}), which is not portable")
            texts.append(t)
        if not texts:
            raise Untranslatable("its value is an empty list (contains-all of nothing always passes)")
        out["value"] = texts
    elif base in ("starts-with", "regex", "levenshtein", "similar", "llm-rubric"):
        if base == "similar" and v is None:
            raise Untranslatable("a similar assertion needs a value")
        out["value"] = _text(v, vars_, numbers=False)
        if out["value"] == "":
            raise Untranslatable("promptfoo rejects an empty value")
        if base == "regex":
            try:
                translate_js_regex(out["value"])
            except JsRegexError as e:
                raise Untranslatable(
                    f"JavaScript rejects the regex (promptfoo fails it every time): {e}"
                ) from None
    elif base in ("is-json", "contains-json"):
        if v is not None and v != "":
            out["value"] = _schema(v, ctx.base)
    elif base == "is-valid-openai-tools-call":
        tools = ctx.provider_config.get("tools")
        if isinstance(tools, str) and tools.startswith("file://"):
            tools = _load_ref(tools, ctx.base)
        if tools is not None and not isinstance(tools, list):
            raise Untranslatable("the provider's tools are not a list")
        out["value"] = to_json_value(tools or [])
    elif base == "is-valid-openai-function-call":
        if not ctx.provider_id.startswith(("openai:", "azure:")):
            raise Untranslatable(
                f"promptfoo checks function calls with the provider ({ctx.provider_id!r} cannot)"
            )
        functions = ctx.provider_config.get("functions")
        if isinstance(functions, str) and functions.startswith("file://"):
            functions = _load_ref(functions, ctx.base)
        if functions is not None and not isinstance(functions, list):
            raise Untranslatable("the provider's functions are not a list")
        out["value"] = to_json_value(functions or [])
    elif v is not None:
        out["value"] = v
    if base in ("similar", "levenshtein", "latency", "cost") and "threshold" in a:
        out["threshold"] = a["threshold"]
    if base in ("latency", "cost") and "threshold" not in a:
        raise Untranslatable(f"promptfoo rejects a {base} assertion without a threshold")
    if base == "max-length" and "value" not in a and "threshold" in a:
        out["value"] = a["threshold"]
    if base in _DIALECT:
        out["dialect"] = "promptfoo"
    if base in _IGNORES_NOT and type_ != base:
        out["type"] = base
        ctx.notes.append(
            f"promptfoo ignores the 'not-' of {type_!r} (it grades it as {base!r}): imported as {base!r}"
        )
    try:
        compile_assertion(Assertion.model_validate(out))
    except AssertionCompileError as e:
        raise Untranslatable(str(e)) from None
    except ValueError as e:  # pydantic's ValidationError: the last line is the problem
        raise Untranslatable(str(e).strip().splitlines()[1].strip()) from None
    return out


def _assertion(
    a: Any, where: str, vars_: dict[str, Any], ctx: _Config, res: ImportResult
) -> dict[str, Any] | None:
    if not isinstance(a, dict) or "type" not in a:
        res.untranslatable.append(f"{where}: not an assertion ({a!r:.60})")
        return None
    try:
        out = _translate(a, vars_, ctx)
    except Untranslatable as e:
        res.untranslatable.append(f"{where}: {a['type']}: {e}, not imported")
        return None
    res.warnings.extend(f"{where}: {n}" for n in ctx.notes)
    ctx.notes.clear()
    for ignored in ("weight", "metric"):
        if ignored in a:
            res.warnings.append(f"{where}: {a['type']} '{ignored}' is not supported, ignored")
    return out


@dataclass
class _Config:
    base: Path
    provider_id: str
    provider_config: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def _tests(cfg: dict[str, Any], base: Path, res: ImportResult) -> list[Any]:
    raw = cfg.get("tests")
    if raw is None:
        raise ImportProblem("the config has no 'tests'")
    items = raw if isinstance(raw, list) else [raw]
    tests: list[Any] = []
    for t in items:
        if isinstance(t, str):
            if t.endswith((".yaml", ".yml", ".json")):
                try:
                    loaded = _load_ref(t, base)
                except OSError as e:
                    res.left_out.append(f"tests {t}: cannot read ({e.strerror}): left out")
                    continue
                except yaml.YAMLError as e:
                    res.left_out.append(f"tests {t}: not valid YAML ({e}): left out")
                    continue
                tests.extend(loaded if isinstance(loaded, list) else [loaded])
            else:
                res.left_out.append(f"tests {t}: only YAML/JSON test files are imported (not CSV or globs)")
        else:
            tests.append(t)
    return tests


def import_promptfoo(path: Path, *, tier: str = "trust", name: str | None = None) -> ImportResult:
    """Translate the promptfoo config at ``path`` into a CaseSet manifest (a plain dict)."""
    try:
        cfg = load_js_yaml(path.read_text())
    except OSError as e:
        raise ImportProblem(f"{path}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise ImportProblem(f"{path}: not valid YAML: {e}") from e
    if not isinstance(cfg, dict):
        raise ImportProblem(f"{path}: expected a mapping at the top level")
    base = path.parent
    res = ImportResult({})
    warn = res.warnings
    prompts = _prompts(cfg, base, warn)
    provider_id, provider_config = _provider_config(cfg)
    providers = cfg.get("providers")
    if isinstance(providers, list) and len(providers) > 1:
        warn.append(
            f"{len(providers)} providers: the OpenAI tool and function checks use the first one's definitions"
        )
    ctx = _Config(base, provider_id, provider_config)
    default = cfg.get("defaultTest") or {}
    if isinstance(default, str):
        default = _load_ref(default, base) or {}
    default_vars = dict(default.get("vars") or {})
    default_raw = list(default.get("assert") or [])
    cases: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    default_transform = isinstance(default.get("options"), dict) and "transform" in default["options"]
    for n, t in enumerate(_tests(cfg, base, res), start=1):
        if not isinstance(t, dict):
            res.left_out.append(f"test {n}: not a mapping: left out")
            continue
        desc = t.get("description")
        cid = kebab(str(desc)) if desc else ""
        cid = cid or f"test-{n}"
        if cid in seen:
            seen[cid] += 1
            warn.append(f"test {n}: id {cid!r} repeats, renamed {cid}-{seen[cid]}")
            cid = f"{cid}-{seen[cid]}"
        else:
            seen[cid] = 1
        where = f"test {n} ({cid})"
        vars_ = {**default_vars, **(t.get("vars") or {})}
        if prompts:
            if _NUNJUCKS_LOGIC.search(prompts[0]):
                warn.append(f"{where}: prompt uses Nunjucks filters or tags; only {{{{ var }}}} was rendered")
            text = _render(prompts[0], vars_)
        elif len(vars_) == 1:
            text = str(next(iter(vars_.values())))
        else:
            text = "\n".join(f"{k}: {v}" for k, v in vars_.items())
        options = t.get("options")
        if default_transform or (isinstance(options, dict) and "transform" in options):
            res.left_out.append(
                f"{where}: left out: its output 'transform' changes what every assertion grades"
            )
            continue
        defaults = [
            x
            for i, a in enumerate(default_raw)
            if (x := _assertion(a, f"defaultTest.assert[{i}] in {where}", vars_, ctx, res)) is not None
        ]
        own_raw = list(t.get("assert") or [])
        own = [
            x
            for i, a in enumerate(own_raw)
            if (x := _assertion(a, f"{where}.assert[{i}]", vars_, ctx, res)) is not None
        ]
        asserts = [*defaults, *own]
        if not asserts or (own_raw and not own):
            # Without its own checks the case would pass where promptfoo may fail it.
            why = (
                "none of its assertions could be imported"
                if own_raw or default_raw
                else "it has no assertions"
            )
            res.left_out.append(f"{where}: left out: {why}")
            continue
        case: dict[str, Any] = {"id": cid, "tier": tier, "input": text}
        if desc:
            case["category"] = kebab(str(t.get("metadata", {}).get("category", ""))) or "imported"
        case["assert"] = asserts
        cases.append(case)
    if not cases:
        raise ImportProblem(
            f"{path}: no test could be imported:\n  " + "\n  ".join([*res.untranslatable, *res.left_out])
        )
    set_name = name or kebab(str(cfg.get("description") or path.parent.name or path.stem)) or "imported"
    manifest = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {
            "name": set_name,
            "annotations": {"proctor.dev/imported-from": f"promptfoo:{path.name}"},
        },
        "spec": {"cases": cases},
    }
    res.manifest = manifest
    return res
