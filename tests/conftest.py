"""Shared fixtures: a real Kubernetes API server for integration and e2e tests.

With ``KUBECONFIG`` set, tests run against that cluster (kind, a real one). Otherwise one local
control plane (etcd, kube-apiserver, kube-controller-manager and the node stand-in) serves the
whole pytest run, started when the first test needs it and stopped at the end; it is tied to the
pytest process, so it also stops when pytest is killed. Under pytest-xdist (``make test`` runs
``-n``) the workers share that one control plane: the controller process makes a directory for
it, the first worker that needs it starts it there under a file lock (tied to the controller),
the others attach, and the controller stops it when the run ends. The CRDs are installed once.

Each test gets a fresh namespace, so tests share no namespaced state. What is cluster-scoped is
kept apart: ClusterRoles, bindings and webhook configurations are named after the test's
namespace, and a webhook configuration sees only the namespaces its operator watches (``-n``: the
test's own), so tests that register one (marked ``admission``) run beside the others. The harness is
:class:`proctor.testing.cluster.Cluster`, the benchmarks' too.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from databases import db_url, postgres  # noqa: F401 (fixtures: SQLite and a real PostgreSQL)
from proctor.devcluster import controlplane as cp
from proctor.testing.cluster import Cluster, ClusterError, scaled

__all__ = ["REPO", "Cluster", "scaled", "wait_for"]  # the tests import these from here

REPO = Path(__file__).resolve().parent.parent

# Hypothesis's per-example deadline (200 ms) is a timed assertion: on a busy 2-core machine it fails
# tests whose behaviour is right. Speed lives in bench/, so no deadline here.
settings.register_profile("default", deadline=None)
settings.load_profile("default")
# `make mutate` runs each module's tests once per mutant: property tests there use a fixed, smaller
# profile, so whether a mutant is killed does not depend on the draw (hack/mutate.py).
settings.register_profile("mutate", max_examples=40, derandomize=True, deadline=None, database=None)
if os.environ.get("PROCTOR_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["PROCTOR_HYPOTHESIS_PROFILE"])

# The example agent's image, for the node stand-in of the local control plane (it runs images as
# local commands); the image's tag reaches the agent as its version.
# A judge image that ends in error after the judge itself (which has reported): a Job that failed
# after a genuine report (tests/integration/test_forged_verdicts.py). Items are separated by ";".
_PROCTOR = Path(sys.executable).parent / "proctor"
os.environ.setdefault(
    "PROCTOR_NODE_IMAGES",
    f"proctor-example-agent={sys.executable} {REPO / 'examples' / 'agent' / 'agent.py'};"
    f'proctor-fails-after-report=sh -c \'"$0" "$@" || true && exit 3\' {shlex.quote(str(_PROCTOR))}',
)


#: Set by the xdist controller for its workers: the directory of the run's one control plane.
SHARED_DIR_ENV = "PROCTOR_TEST_SHARED_DIR"
#: And the controller's pid: the shared control plane stops when it does.
SHARED_OWNER_ENV = "PROCTOR_TEST_SHARED_OWNER"
_SHARED = pytest.StashKey[Path]()
_FAILED = pytest.StashKey[bool]()
#: The order tests are handed out in: the longest kinds first, the many short unit tests last.
_SUITE_ORDER = {"e2e": 0, "integration": 1}


def _is_xdist_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))


#: httpx's module-level calls (``httpx.post(...)``) a test makes without a timeout of its own.
_HTTPX_CALLS = ("request", "get", "head", "options", "post", "put", "patch", "delete")


def _scale_httpx_defaults() -> None:
    """A test's plain ``httpx.post(url, ...)`` waits httpx's 5 s default, a deadline of its own that
    ``PROCTOR_TEST_TIME_SCALE`` would not stretch: on a busy machine such a request timed out while
    everything else waited longer. Scale that default like every other wait (a call that passes its
    own ``timeout=`` keeps it)."""
    import httpx

    for name in _HTTPX_CALLS:
        defaults = getattr(httpx, name).__kwdefaults__
        if defaults and isinstance(defaults.get("timeout"), httpx.Timeout):
            defaults["timeout"] = httpx.Timeout(scaled(5.0))


def pytest_configure(config: pytest.Config) -> None:
    _scale_httpx_defaults()
    if _is_xdist_controller(config) and SHARED_DIR_ENV not in os.environ:
        shared = Path(tempfile.mkdtemp(prefix="proctor-tests-"))
        config.stash[_SHARED] = shared
        os.environ[SHARED_DIR_ENV] = str(shared)  # the workers, started after this, inherit both
        os.environ[SHARED_OWNER_ENV] = str(os.getpid())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_FAILED] = exitstatus != 0


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller, once every worker is done: stop the shared control plane."""
    shared = config.stash.get(_SHARED, None)
    if shared is None:
        return
    cp.down(shared / "devcluster")
    os.environ.pop(SHARED_DIR_ENV, None)
    os.environ.pop(SHARED_OWNER_ENV, None)
    if config.stash.get(_FAILED, True):
        print(f"\nthe shared control plane's files (logs/) are kept in {shared}")
    else:
        shutil.rmtree(shared, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "integration" in parts or "e2e" in parts:
            item.add_marker(pytest.mark.cluster)
    # the same order in every worker (xdist requires it); a stable sort keeps each file's order
    items.sort(key=lambda i: min((_SUITE_ORDER.get(p, 2) for p in Path(str(i.fspath)).parts), default=2))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock between the processes of one run (the workers)."""
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _shared_cluster(shared: Path) -> Cluster:
    """The run's one control plane: started by the first worker to need it, attached to after."""
    with _locked(shared / "cluster.lock"):
        state = shared / "devcluster"
        if cp.is_running(state):
            return Cluster.attach(state)
        return Cluster.start(state, owner_pid=int(os.environ[SHARED_OWNER_ENV]))


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    env = os.environ.get("KUBECONFIG")
    shared = os.environ.get(SHARED_DIR_ENV)
    try:
        if env:
            harness = Cluster(Path(env))
        elif shared:
            harness = _shared_cluster(Path(shared))
        else:
            harness = Cluster.start(tmp_path_factory.mktemp("devcluster"))
    except ClusterError as e:
        pytest.fail(str(e))
    try:
        yield harness
    finally:
        harness.stop()  # only what it owns: the shared one is the controller's to stop


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


#: Each operator ``run_operator`` started, by pid: where its output goes.
_OPERATOR_LOGS: dict[int, Path] = {}


def assert_running(proc: subprocess.Popen[bytes]) -> None:
    """Fail with the end of the operator's output when it exited (it says why: a port taken, ...)."""
    if proc.poll() is None:
        return
    path = _OPERATOR_LOGS.get(proc.pid)
    said = path.read_text(errors="replace")[-4000:] if path is not None and path.exists() else "(no log)"
    pytest.fail(f"the operator exited with {proc.returncode}:\n{said}")


@pytest.fixture
def run_operator(cluster: Cluster, tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``proctor operator`` as a subprocess (the real entry point); stopped after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        path = tmp_path / f"operator-{len(procs)}.log"
        with path.open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.cli", "operator", *extra],
                env={**cluster.env(), **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        _OPERATOR_LOGS[proc.pid] = path
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


def webhook_configuration(namespace: str) -> str:
    """The MutatingWebhookConfiguration an operator started by :func:`start_operator` registers:
    cluster-scoped, so named after the test's namespace."""
    return f"proctor-gate-{namespace}"


@pytest.fixture
def start_operator(
    cluster: Cluster, namespace: str, tmp_path: Path, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``proctor operator`` watching the test's namespace and wait until it answers its liveness
    probe; ``env``: more settings. With ``webhook=True`` it also serves its admission webhook on this
    machine's loopback (where the local API server reaches it) and has applied its
    MutatingWebhookConfiguration (:func:`webhook_configuration`, deleted after the test)."""
    configuration = webhook_configuration(namespace)

    def start(*, webhook: bool = False, **env: str) -> subprocess.Popen[bytes]:
        probe = cp.free_port()
        settings = {"PROCTOR_METRICS_PORT": "0"}
        if webhook:
            if not cluster.local:
                pytest.skip("the API server must reach the webhook on this machine's loopback")
            settings |= {
                "PROCTOR_WEBHOOK_PORT": str(cp.free_port()),
                "PROCTOR_WEBHOOK_ADDR": "127.0.0.1",
                "PROCTOR_WEBHOOK_URL_HOST": "127.0.0.1",
                "PROCTOR_WEBHOOK_CERT_DIR": str(tmp_path / "certs"),
                "PROCTOR_WEBHOOK_CONFIGURATION": configuration,
            }
        liveness = f"http://127.0.0.1:{probe}/healthz"
        proc = run_operator("-n", namespace, "--liveness", liveness, env=settings | env)

        def ready() -> bool:
            assert_running(proc)
            try:
                with urllib.request.urlopen(liveness, timeout=1):
                    pass
            except OSError:
                return False
            if not webhook:
                return True
            found = cluster.kubectl("get", "mutatingwebhookconfiguration", configuration, check=False)
            return found.returncode == 0

        wait_for(ready, timeout=60, what="the operator and its webhook" if webhook else "the operator")
        return proc

    yield start
    cluster.kubectl("delete", "mutatingwebhookconfiguration", configuration, "--ignore-not-found")


@pytest.fixture(scope="session")
def crds(cluster: Cluster) -> Cluster:
    """The generated CRDs, installed once per run (the first worker to need them) and Established."""
    shared = os.environ.get(SHARED_DIR_ENV)
    if shared is None:
        cluster.install_crds(REPO / "crds")
        return cluster
    with _locked(Path(shared) / "crds.lock"):
        installed = Path(shared) / "crds-installed"
        if not installed.exists():
            cluster.install_crds(REPO / "crds")
            installed.touch()
    return cluster
