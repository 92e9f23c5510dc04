"""Shared fixtures: a real Kubernetes API server for integration and e2e tests.

With ``KUBECONFIG`` set, tests run against that cluster (kind, a real one). Otherwise one local
control plane (etcd, kube-apiserver, kube-controller-manager and the node stand-in) is started for
the whole session and stopped at its end; it is tied to the pytest process, so it also stops when
pytest is killed. Each test gets a fresh namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent

# `make mutate` runs each module's tests once per mutant: property tests there use a fixed, smaller
# profile, so whether a mutant is killed does not depend on the draw (hack/mutate.py).
settings.register_profile("mutate", max_examples=40, derandomize=True, deadline=None, database=None)
if os.environ.get("PROCTOR_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["PROCTOR_HYPOTHESIS_PROFILE"])

# The example agent's image, for the node stand-in of the local control plane (it runs images as
# local commands); the image's tag reaches the agent as its version.
os.environ.setdefault(
    "PROCTOR_NODE_IMAGES",
    f"proctor-example-agent={sys.executable} {REPO / 'examples' / 'agent' / 'agent.py'}",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "integration" in parts or "e2e" in parts:
            item.add_marker(pytest.mark.cluster)


@dataclass
class Cluster:
    """How tests reach the API server."""

    kubeconfig: Path
    kubectl_bin: str
    local: bool
    state_dir: Path | None = None

    def env(self) -> dict[str, str]:
        return {**os.environ, "KUBECONFIG": str(self.kubeconfig)}

    def kubectl(
        self, *args: str, input: str | None = None, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [self.kubectl_bin, *args],
            input=input,
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}{proc.stdout}"
            )
        return proc

    def get_json(self, *args: str) -> Any:
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)


def _kubectl_path() -> str:
    out = subprocess.run(
        ["bash", str(REPO / "hack" / "build-k8s.sh"), "--print"], capture_output=True, text=True, check=False
    )
    built = Path(out.stdout.strip()) / "kubectl"
    if built.exists():
        return str(built)
    found = shutil.which("kubectl")
    if not found:
        pytest.fail(
            "kubectl not found: run 'make k8s' (builds it with the control plane) or put kubectl on PATH"
        )
    return found


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if env := os.environ.get("KUBECONFIG"):
        yield Cluster(Path(env), _kubectl_path(), local=False)
        return
    from proctor.devcluster import controlplane as cp

    state = tmp_path_factory.mktemp("devcluster")
    kubeconfig = cp.up(state, tie_to_parent=True)
    try:
        yield Cluster(kubeconfig, _kubectl_path(), local=True, state_dir=state)
    finally:
        cp.down(state)


@pytest.fixture
def namespace(cluster: Cluster) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:10]}"
    cluster.kubectl("create", "namespace", name)
    cluster.kubectl("label", "namespace", name, "proctor.dev/test=true")
    # Pods need the namespace's default service account, made by the service-account controller.
    deadline = time.monotonic() + 30
    while cluster.kubectl("-n", name, "get", "serviceaccount", "default", check=False).returncode != 0:
        if time.monotonic() > deadline:
            pytest.fail(f"namespace {name}: the default service account never appeared")
        time.sleep(0.2)
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60, interval: float = 0.25, what: str = "condition"
) -> Any:
    """Poll until ``predicate`` returns something truthy; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


@pytest.fixture
def run_operator(cluster: Cluster, tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``proctor operator`` as a subprocess (the real entry point); stopped after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        with (tmp_path / f"operator-{len(procs)}.log").open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.cli", "operator", *extra],
                env={**cluster.env(), **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        procs.append(proc)
        return proc

    yield start
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture(scope="session")
def crds(cluster: Cluster) -> Cluster:
    """The generated CRDs, installed once per session and Established."""
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(REPO / "crds"))
    cluster.kubectl("wait", "--for=condition=Established", "-f", str(REPO / "crds"), "--timeout=60s")
    return cluster
