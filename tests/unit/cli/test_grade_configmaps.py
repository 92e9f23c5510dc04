"""`proctor grade` reads a CaseSet's casesFrom ConfigMaps from the same file, in YAML or JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from proctor.api import CaseSet, load_manifests


def grade(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "grade", *map(str, args), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )


def documents(refs: list[str]) -> list[dict[str, Any]]:
    caseset = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "t"},
        "spec": {
            "cases": [
                {
                    "id": "inline",
                    "tier": "form",
                    "input": "q",
                    "assert": [{"type": "contains", "value": "ok"}],
                }
            ],
            "casesFrom": [{"name": r, "key": "cases.yaml"} for r in refs],
        },
    }
    more = [
        {"id": "from-map", "tier": "safety", "input": "q", "assert": [{"type": "contains", "value": "ok"}]}
    ]
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "more"},
        "data": {"cases.yaml": yaml.safe_dump(more)},
    }
    return [caseset, config_map]


@pytest.mark.parametrize("syntax", ["yaml", "json-list"])
def test_the_cases_of_a_configmap_in_the_same_file_are_graded(tmp_path: Path, syntax: str) -> None:
    docs = documents(["more"])
    text = (
        yaml.safe_dump_all(docs)
        if syntax == "yaml"
        else json.dumps({"apiVersion": "v1", "kind": "List", "items": docs})
    )
    (tmp_path / "cs.yaml").write_text(text)
    (tmp_path / "answers.json").write_text(json.dumps({"inline": "ok", "from-map": "not it"}))
    out = grade(tmp_path / "cs.yaml", "--responses", tmp_path / "answers.json")
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["cases"] == 2
    assert [f["case"] for f in report["failures"]] == ["from-map"]


def test_a_configmap_the_file_lacks_is_named(tmp_path: Path) -> None:
    (tmp_path / "cs.yaml").write_text(yaml.safe_dump_all(documents(["more", "absent"])))
    (tmp_path / "answers.json").write_text(json.dumps({"inline": "ok", "from-map": "ok"}))
    out = grade(tmp_path / "cs.yaml", "--responses", tmp_path / "answers.json")
    assert out.returncode == 2
    assert out.stdout == ""
    assert "ConfigMap 'absent' not found" in out.stderr


def test_load_manifests_hands_back_the_objects_of_other_kinds_it_was_told_to_ignore() -> None:
    others: list[Any] = []
    text = yaml.safe_dump_all(documents(["more"]))
    (caseset,) = load_manifests(text, ignore_other_kinds=True, others=others)
    assert isinstance(caseset, CaseSet)
    assert [o["kind"] for o in others] == ["ConfigMap"]
    assert yaml.safe_load(others[0]["data"]["cases.yaml"])[0]["id"] == "from-map"
