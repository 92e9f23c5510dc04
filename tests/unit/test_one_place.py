"""One fact, one place: the facts the review found written out in several modules are defined once
and imported; these tests fail when a module spells one out again."""

from __future__ import annotations

import ast
from pathlib import Path

import proctor
from proctor.api import MONITORS_API
from proctor.collector.openapi import document
from proctor.protocol import MAX_ATTEMPTS, RunState

ROOT = Path(proctor.__file__).parent


def _strings(path: Path) -> list[str]:
    """The string literals of a module (f-string parts too), docstrings left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_the_monitors_api_path_is_written_only_where_it_is_defined() -> None:
    """The collector's routes, its OpenAPI document, its client, its notices and the operator's
    status read all build the path from ``MONITORS_API``: a renamed path cannot leave one behind."""
    writers = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if any(MONITORS_API in s for s in _strings(path))
    )
    assert writers == ["api/monitor.py"]


def test_the_openapi_document_lists_the_run_states_and_attempt_limit_of_the_protocol() -> None:
    run = document()["components"]["schemas"]["Run"]["properties"]
    assert run["state"]["enum"] == [state.value for state in RunState]
    assert f"at most {MAX_ATTEMPTS}" in run["attempts"]["description"]
