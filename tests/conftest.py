"""Shared fixtures: a real Kubernetes API server for integration and e2e tests.

With ``KUBECONFIG`` set, tests run against that cluster (kind, a real one). Otherwise one local
control plane (etcd, kube-apiserver, kube-controller-manager and the node stand-in) is started for
the whole session and stopped at its end; it is tied to the pytest process, so it also stops when
pytest is killed. Each test gets a fresh namespace. The harness is :class:`proctor.testing.cluster.Cluster`,
the benchmarks' too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from databases import db_url, postgres  # noqa: F401 (fixtures: SQLite and a real PostgreSQL)
from proctor.testing.cluster import Cluster, ClusterError, scaled

__all__ = ["REPO", "Cluster", "scaled", "wait_for"]  # the tests import these from here

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


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    try:
        env = os.environ.get("KUBECONFIG")
        harness = Cluster(Path(env)) if env else Cluster.start(tmp_path_factory.mktemp("devcluster"))
    except ClusterError as e:
        pytest.fail(str(e))
    try:
        yield harness
    finally:
        harness.stop()  # only what it started itself


@pytest.fixture
def namespace(cluster: Cluster) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:10]}"
    # pods need the namespace's default service account, made by the service-account controller
    cluster.create_namespace(name, labels={"proctor.dev/test": "true"}, timeout=30)
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60, interval: float = 0.25, what: str = "condition"
) -> Any:
    """Poll until ``predicate`` returns something truthy; fail with ``what`` after ``timeout``
    (seconds on an idle machine: scaled by ``PROCTOR_TEST_TIME_SCALE``, see :func:`scaled`)."""
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    pytest.fail(f"timed out after {limit:g}s waiting for {what} (last: {last!r})")


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
    cluster.install_crds(REPO / "crds")
    return cluster
