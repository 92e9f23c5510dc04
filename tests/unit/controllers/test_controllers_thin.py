"""The controllers stay Kopf only: short handlers that call a reconciler (the decisions are tested
where they live, in tests/unit/reconcile and tests/unit/gate)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import proctor.controllers as controllers

MODULES = sorted(Path(controllers.__file__).parent.glob("*.py"))
LONGEST = 30


def functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_no_function_is_longer_than_thirty_lines(module: Path) -> None:
    long = {
        f.name: f.end_lineno - f.lineno + 1
        for f in functions(module)
        if f.end_lineno - f.lineno + 1 > LONGEST
    }
    assert long == {}


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_handlers_reach_the_api_only_through_the_reconcilers(module: Path) -> None:
    tree = ast.parse(module.read_text(), filename=str(module))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m.split(".")[0] in {"kubernetes", "httpx", "urllib3"}}
