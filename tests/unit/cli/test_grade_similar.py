"""`proctor grade` with a ``similar`` assertion: the packaged embedding model, loaded offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REFERENCE = "The oil consumption of 0.30 quarts per hour is in the ELEVATED band, per AMM 72-00."
PARAPHRASE = "At 0.30 qt/hr the engine's oil consumption falls in the ELEVATED band (AMM 72-00)."
UNRELATED = "The cabin reading lights are controlled from the overhead panel."


def grade(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "grade", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def write(tmp: Path, name: str, data: Any) -> Path:
    p = tmp / name
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.fixture
def caseset(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        "caseset.yaml",
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "CaseSet",
            "metadata": {"name": "oil"},
            "spec": {
                "cases": [
                    {
                        "id": "oil-band",
                        "tier": "trust",
                        "input": "Oil consumption on engine 2 is 0.30 qt/hr. Which band is that?",
                        "reference": REFERENCE,
                        "assert": [{"type": "similar", "threshold": 0.7}],
                    },
                    {
                        "id": "stays-on-topic",
                        "tier": "form",
                        "input": "Is the oil consumption normal?",
                        "assert": [
                            {"type": "not-similar", "value": "The weather is sunny today.", "threshold": 0.5}
                        ],
                    },
                ]
            },
        },
    )


def answers(tmp_path: Path, oil_band: str) -> Path:
    return write(tmp_path, "answers.yaml", {"oil-band": oil_band, "stays-on-topic": PARAPHRASE})


def test_a_paraphrase_of_the_reference_passes(tmp_path: Path, caseset: Path) -> None:
    out = grade(caseset, "--responses", answers(tmp_path, PARAPHRASE), "--format", "json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "PASS"
    assert report["tiers"]["trust"]["passed"] == 1 and report["tiers"]["trust"]["measured"] == 1
    assert report["tiers"]["form"]["passed"] == 1


def test_an_unrelated_answer_fails_naming_the_similarity(tmp_path: Path, caseset: Path) -> None:
    out = grade(caseset, "--responses", answers(tmp_path, UNRELATED), "--format", "json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "FAIL"
    [failure] = report["failures"]
    assert failure["case"] == "oil-band" and failure["assertion"] == "similar"
    assert "to the reference, below the threshold 0.70" in failure["reason"]


def test_without_the_model_similar_is_unmeasured_never_passed(tmp_path: Path, caseset: Path) -> None:
    missing = tmp_path / "no-model.onnx"
    out = grade(
        caseset,
        "--responses",
        answers(tmp_path, PARAPHRASE),
        "--format",
        "json",
        env={"PROCTOR_EMBEDDING_MODEL": str(missing)},
    )
    report = json.loads(out.stdout)
    assert out.returncode != 0 and report["verdict"] != "PASS", out.stdout
    assert report["tiers"]["trust"]["measured"] == 0 and report["tiers"]["trust"]["unmeasured"] == 1
    text = grade(
        caseset, "--responses", answers(tmp_path, PARAPHRASE), env={"PROCTOR_EMBEDDING_MODEL": str(missing)}
    )
    assert "EmbeddingUnavailable" in text.stdout and "PROCTOR_EMBEDDING_MODEL" in text.stdout, text.stdout


def test_a_case_set_without_similar_never_loads_the_model(tmp_path: Path) -> None:
    cs = write(
        tmp_path,
        "caseset.yaml",
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "CaseSet",
            "metadata": {"name": "plain"},
            "spec": {
                "cases": [
                    {
                        "id": "a",
                        "tier": "trust",
                        "input": "q",
                        "assert": [{"type": "contains", "value": "ok"}],
                    }
                ]
            },
        },
    )
    ans = write(tmp_path, "answers.yaml", {"a": "ok"})
    probe = "\n".join(
        [
            "import sys",
            "from proctor.cli import main",
            "code = main(['grade', sys.argv[1], '--responses', sys.argv[2]])",
            "loaded = {'proctor.judge.embeddings', 'onnxruntime'} & set(sys.modules)",
            "print('LOADED' if loaded else 'NOT LOADED')",
            "sys.exit(code)",
        ]
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(cs), str(ans)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().endswith("NOT LOADED")
