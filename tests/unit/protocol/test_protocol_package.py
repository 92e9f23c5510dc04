"""The package's shape: one public namespace, and nothing but the standard library underneath."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import proctor.protocol as protocol
from proctor.protocol import Verdict

PACKAGE_DIR = Path(protocol.__file__).parent


def test_all_is_exactly_the_public_names() -> None:
    public = {name for name in dir(protocol) if not name.startswith("_")} - {"types"}
    assert set(protocol.__all__) == public
    assert len(protocol.__all__) == len(set(protocol.__all__))


@pytest.mark.parametrize("module", sorted(PACKAGE_DIR.glob("*.py")), ids=lambda p: p.name)
def test_imports_only_the_standard_library_and_itself(module: Path) -> None:
    tree = ast.parse(module.read_text(), filename=str(module))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module)
    foreign = {
        name
        for name in imported
        if name.split(".")[0] not in sys.stdlib_module_names
        and not (name == "proctor.protocol" or name.startswith("proctor.protocol."))
    }
    assert foreign == set()


def test_verdict_codes_are_the_exit_codes() -> None:
    assert {v.name: v.exit_code for v in Verdict} == {"PASS": 0, "FAIL": 1, "ERROR": 2, "WARN": 3}
