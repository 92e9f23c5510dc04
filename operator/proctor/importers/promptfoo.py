"""Import a promptfoo suite (``promptfooconfig.yaml``) as a CaseSet manifest.

Each test becomes a case: its id is the test's ``description`` in lower-case kebab form (else
``test-N`` by position, 1-based), its input is the prompt rendered with the test's vars, and its
assertions are the test's plus ``defaultTest``'s. Assertion types shared with promptfoo translate
one to one; anything else (``javascript``, ``python``, ``cost``...) is reported, never dropped
silently. Only plain ``{{ var }}`` substitution is rendered; Nunjucks logic is reported too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from proctor.api.assertions import ASSERTION_KINDS, split_type

_VAR = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
_NUNJUCKS_LOGIC = re.compile(r"\{%|\{\{[^}]*\|")


class ImportProblem(Exception):
    """The promptfoo file cannot be read at all (missing, not YAML, no tests)."""


@dataclass
class ImportResult:
    manifest: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def kebab(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:63].rstrip("-")


def _load_ref(ref: str, base: Path) -> Any:
    path = base / ref.removeprefix("file://")
    if path.suffix in (".yaml", ".yml", ".json"):
        return yaml.safe_load(path.read_text())
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


def _assertion(a: Any, where: str, warn: list[str]) -> dict[str, Any] | None:
    if not isinstance(a, dict) or "type" not in a:
        warn.append(f"{where}: not an assertion ({a!r:.60}), skipped")
        return None
    type_ = str(a["type"])
    base, _ = split_type(type_)
    if base not in ASSERTION_KINDS:
        warn.append(f"{where}: assertion type {type_!r} has no Proctor equivalent, not imported")
        return None
    out: dict[str, Any] = {"type": type_}
    if "value" in a:
        out["value"] = a["value"]
    if base == "similar" and "threshold" in a:
        out["threshold"] = a["threshold"]
    if base == "max-length" and "value" not in a and "threshold" in a:
        out["value"] = a["threshold"]
    for ignored in ("weight", "metric", "provider", "transform", "rubricPrompt"):
        if ignored in a:
            warn.append(f"{where}: {type_} '{ignored}' is not supported, ignored")
    return out


def _tests(cfg: dict[str, Any], base: Path, warn: list[str]) -> list[Any]:
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
                    warn.append(f"tests {t}: cannot read ({e.strerror})")
                    continue
                tests.extend(loaded if isinstance(loaded, list) else [loaded])
            else:
                warn.append(f"tests {t}: only YAML/JSON test files are imported (not CSV or globs)")
        else:
            tests.append(t)
    return tests


def import_promptfoo(path: Path, *, tier: str = "trust", name: str | None = None) -> ImportResult:
    """Translate the promptfoo config at ``path`` into a CaseSet manifest (a plain dict)."""
    try:
        cfg = yaml.safe_load(path.read_text())
    except OSError as e:
        raise ImportProblem(f"{path}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise ImportProblem(f"{path}: not valid YAML: {e}") from e
    if not isinstance(cfg, dict):
        raise ImportProblem(f"{path}: expected a mapping at the top level")
    base = path.parent
    warn: list[str] = []
    prompts = _prompts(cfg, base, warn)
    default = cfg.get("defaultTest") or {}
    if isinstance(default, str):
        default = _load_ref(default, base) or {}
    default_vars = dict(default.get("vars") or {})
    default_asserts = [
        x
        for i, a in enumerate(default.get("assert") or [])
        if (x := _assertion(a, f"defaultTest.assert[{i}]", warn)) is not None
    ]
    cases: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, t in enumerate(_tests(cfg, base, warn), start=1):
        if not isinstance(t, dict):
            warn.append(f"test {n}: not a mapping, skipped")
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
        asserts = [*default_asserts]
        for i, a in enumerate(t.get("assert") or []):
            if (x := _assertion(a, f"{where}.assert[{i}]", warn)) is not None:
                asserts.append(x)
        case: dict[str, Any] = {"id": cid, "tier": tier, "input": text}
        if desc:
            case["category"] = kebab(str(t.get("metadata", {}).get("category", ""))) or "imported"
        if asserts:
            case["assert"] = asserts
        cases.append(case)
    if not cases:
        raise ImportProblem(f"{path}: no test could be imported")
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
    return ImportResult(manifest, warn)
