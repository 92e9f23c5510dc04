"""hack/mutate-exclusions.toml, the mutants make mutate does not count: each entry is well formed,
names its kind and reason, and still points at code that exists (a stale entry hides nothing, and
a file that does not parse stops make mutate before it starts)."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CORE = REPO / "operator" / "proctor"
ENTRIES = tomllib.loads((REPO / "hack" / "mutate-exclusions.toml").read_text())["exclude"]
SOURCES = {
    str(p.relative_to(CORE)): p.read_text().splitlines()
    for room in ("protocol", "graders")
    for p in (CORE / room).glob("*.py")
}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e['module']}:{e['line'][:40]}")
def test_each_exclusion_is_well_formed_and_points_at_code(entry: dict[str, object]) -> None:
    assert set(entry) <= {"module", "operator", "line", "kind", "reason", "before", "offset", "previous"}
    assert entry["kind"] in ("equivalent", "wording")
    assert isinstance(entry["reason"], str) and len(entry["reason"]) > 20
    re.compile(str(entry.get("operator", ".*")))  # no operator: every operator on the line
    if entry.get("before"):
        re.compile(str(entry["before"]))
    assert entry.get("offset", 0) in (0, 1, -1)
    modules = [m for m in SOURCES if fnmatch.fnmatch(m, str(entry["module"]))]
    assert modules, f"no module matches {entry['module']}"
    assert any(str(entry["line"]) in line for m in modules for line in SOURCES[m]), "no such line: stale"
