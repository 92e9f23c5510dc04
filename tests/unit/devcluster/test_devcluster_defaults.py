"""Where ``proctor dev`` keeps its state and finds kubectl when nobody says."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.cli.operator import default_liveness
from proctor.devcluster import controlplane as cp


def test_the_state_directory_follows_proctor_dev_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PROCTOR_DEV_DIR", str(tmp_path / "mine"))
    assert cp.default_dir() == tmp_path / "mine"
    monkeypatch.delenv("PROCTOR_DEV_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cp.default_dir() == tmp_path / "cache" / "proctor" / "dev"


def _bin(d: Path, *names: str) -> Path:
    d.mkdir()
    for n in names:
        (d / n).write_text("#!/bin/sh\n")
        (d / n).chmod(0o755)
    return d


def test_kubectl_is_found_beside_the_control_plane_binaries(tmp_path: Path) -> None:
    plane = ("etcd", "kube-apiserver", "kube-controller-manager")
    with_kubectl = _bin(tmp_path / "a", *plane, "kubectl")
    assert cp.find_kubectl(with_kubectl) == with_kubectl / "kubectl"
    assert cp.find_kubectl(_bin(tmp_path / "b", *plane)) is None
    assert cp.find_kubectl(_bin(tmp_path / "c", "kubectl")) is None  # not a control plane's directory


def test_the_operators_liveness_endpoint_moves_with_proctor_liveness(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROCTOR_LIVENESS", raising=False)
    assert default_liveness().endswith(":8180/healthz")
    monkeypatch.setenv("PROCTOR_LIVENESS", "http://127.0.0.1:0/healthz")
    assert default_liveness() == "http://127.0.0.1:0/healthz"
