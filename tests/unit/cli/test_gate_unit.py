"""proctor gate without a cluster: when a run is over, and what reaches stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from proctor.cli.gate import finished


def test_a_run_is_over_when_its_finished_condition_says_so() -> None:
    def st(
        finished_status: str | None, phase: str | None = None, verdict: str | None = None
    ) -> dict[str, object]:
        conds = [] if finished_status is None else [{"type": "Finished", "status": finished_status}]
        return {"phase": phase, "verdict": verdict, "conditions": conds}

    assert finished(st("True", "Failed", "ERROR"))
    assert finished(st("True", "PartiallyEvaluated", "ERROR"))
    assert not finished(st("False", "Running"))
    # a run an older operator wrote: its terminal phase and verdict
    assert finished(st(None, "Evaluated", "PASS")) and finished(st(None, "Failed"))
    assert not finished(st(None, "Running")) and not finished(st(None, "Evaluated"))


def test_without_a_kube_config_stdout_stays_empty_and_stderr_says_why(tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("a: b\n")
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "proctor.cli",
            "gate",
            "--caseset",
            "x",
            "--responses",
            str(answers),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env | {"HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert out.stdout == ""  # a pipeline parsing the JSON never reads a warning instead
    assert "no Kubernetes configuration" in out.stderr
    assert "kube_config_path" not in out.stdout + out.stderr
