"""The public namespace of proctor.api, and what it may not import."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import proctor.api

ROOT = Path(__file__).resolve().parents[3]


def test_all_is_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(proctor.api).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert sorted(proctor.api.__all__) == sorted(public)
    assert len(set(proctor.api.__all__)) == len(proctor.api.__all__)


def test_the_api_imports_no_kopf_kubernetes_or_httpx() -> None:
    code = (
        "import sys, proctor.api, proctor.api.crdgen\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'kopf', 'kubernetes', 'httpx'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_crdgen_runs_as_a_module_and_finds_no_drift() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "proctor.api.crdgen", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "up to date" in out.stdout
