"""Every verb of ``proctor`` on bad input: one line that says what is wrong (and, where it can, what
to type instead), exit 2, never a traceback. A newcomer's first mistakes are these."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EX = REPO / "examples" / "oil-monitoring"


def proctor(
    *args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def no_cluster(tmp_path: Path) -> dict[str, str]:
    """An environment without a kubeconfig, a cluster or a token: what a newcomer's laptop has."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUBERNETES_", "PROCTOR_"))}
    env |= {"KUBECONFIG": str(tmp_path / "no-kubeconfig"), "HOME": str(tmp_path)}
    return env


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def one_error(res: subprocess.CompletedProcess[str]) -> str:
    """The error line of a refused command (exit 2, no traceback, exactly one ``error:`` line)."""
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    errors = [line for line in res.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, res.stderr
    return errors[0]


BAD: list[tuple[str, list[str], str]] = [
    ("no verb", [], "required: COMMAND"),
    ("unknown verb", ["nonsense"], "invalid choice: 'nonsense'"),
    (
        "grade: no such file",
        ["grade", "/nonexistent/cases.yaml", "--responses", "/nonexistent/a.yaml"],
        "No such file",
    ),
    ("grade: a directory", ["grade", str(EX / "caseset.yaml"), "--responses", str(EX)], "Is a directory"),
    (
        "grade: a CaseSet passed as the answers",
        ["grade", str(EX / "caseset.yaml"), "--responses", str(EX / "caseset.yaml")],
        "this is a CaseSet manifest, not recorded answers",
    ),
    (
        "grade: the answers passed as the CaseSet",
        [
            "grade",
            str(EX / "answers" / "v1-correct.yaml"),
            "--responses",
            str(EX / "answers" / "v1-correct.yaml"),
        ],
        "error:",
    ),
    (
        "grade: a policy file without a GatePolicy",
        [
            "grade",
            str(EX / "caseset.yaml"),
            "--responses",
            str(EX / "answers" / "v1-correct.yaml"),
            "--policy",
            str(EX / "caseset.yaml"),
        ],
        "expected exactly one GatePolicy",
    ),
    (
        "grade: unknown format",
        ["grade", str(EX / "caseset.yaml"), "--responses", "x", "--format", "xml"],
        "invalid choice: 'xml'",
    ),
    ("judge: a run without its namespace", ["judge", "--run", "oil-v1"], "--run must be NAMESPACE/NAME"),
    (
        "judge: a shard that is no shard",
        ["judge", "--run", "ns/oil-v1", "--shard", "x"],
        "--shard must be I/N",
    ),
    ("gate: nothing to examine", ["gate"], "required: --caseset"),
    ("baseline: no case set", ["baseline", "freeze"], "required: CASESET"),
    ("import: no such file", ["import", "promptfoo", "/nonexistent/promptfooconfig.yaml"], "No such file"),
    (
        "import: not a promptfoo config",
        ["import", "promptfoo", str(EX / "answers" / "v1-correct.yaml")],
        "error:",
    ),
    ("collector: a path where the URL belongs", ["collector", "--db", "runs.db"], "use sqlite:///runs.db"),
    (
        "collector: an absolute path",
        ["collector", "--db", "/var/tmp/runs.db"],
        "use sqlite:////var/tmp/runs.db",
    ),
    (
        "collector: a database it does not support",
        ["collector", "--db", "mysql://db/runs"],
        "unsupported database 'mysql'",
    ),
    (
        "collector: a directory that does not exist",
        ["collector", "--db", "sqlite:////nonexistent/dir/runs.db"],
        "the directory /nonexistent/dir does not exist",
    ),
    (
        "collector: a listen address without a port",
        ["collector", "--listen", "localhost"],
        "--listen must be HOST:PORT",
    ),
    (
        "collector: a port out of range",
        ["collector", "--listen", "127.0.0.1:99999"],
        "--listen must be HOST:PORT",
    ),
    ("collector: no judging at all", ["collector", "--concurrency", "0"], "must be at least 1"),
    ("collector: a poll that never comes", ["collector", "--poll", "-1"], "positive number of seconds"),
    (
        "collector: no monitors and no cluster",
        ["collector", "--db", "sqlite:///runs.db"],
        "give --monitor FILE --profile FILE, or KUBECONFIG",
    ),
    ("runs: no run named", ["runs", "show"], "required: RUN"),
    ("dev: a bin dir without the binaries", ["dev", "up", "--bin-dir", "/nonexistent"], "no executable etcd"),
    (
        "dev: a state dir under nothing",
        ["dev", "up", "--dir", "/nonexistent/a/b"],
        "/nonexistent/a does not exist",
    ),
    (
        "operator: a liveness that is no URL",
        ["operator", "--liveness", "healthz"],
        "--liveness must be an http URL",
    ),
]


@pytest.mark.parametrize(("args", "says"), [(a, s) for _, a, s in BAD], ids=[name for name, _, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], says: str, no_cluster: dict[str, str], tmp_path: Path
) -> None:
    line = one_error(proctor(*args, env=no_cluster, cwd=tmp_path))
    assert says in line
    assert not list(tmp_path.glob("*.db")), "a refused command created a database"


def test_a_taken_port_names_the_port_and_the_flag(taken_port: int, no_cluster: dict[str, str]) -> None:
    line = one_error(
        proctor("operator", "--liveness", f"http://127.0.0.1:{taken_port}/healthz", env=no_cluster)
    )
    assert f"port {taken_port} on 127.0.0.1 is taken (the liveness endpoint)" in line
    assert "--liveness" in line
    line = one_error(
        proctor(
            "operator",
            "--liveness",
            "http://127.0.0.1:0/healthz",
            env=no_cluster | {"PROCTOR_METRICS_PORT": str(taken_port)},
        )
    )
    assert f"port {taken_port} on 127.0.0.1 is taken (/metrics)" in line and "PROCTOR_METRICS_PORT" in line


def test_the_collector_on_a_taken_port_says_so(
    taken_port: int, no_cluster: dict[str, str], tmp_path: Path
) -> None:
    res = proctor(
        "collector",
        "--db",
        f"sqlite:///{tmp_path / 'runs.db'}",
        "--listen",
        f"127.0.0.1:{taken_port}",
        "--monitor",
        EX / "agentmonitor.yaml",
        "--profile",
        EX / "evalprofile.yaml",
        env=no_cluster | {"PROCTOR_TOKEN": "t" * 32},
    )
    line = one_error(res)
    assert f"127.0.0.1:{taken_port} is taken" in line and "--listen" in line


def test_out_of_cluster_everything_listens_on_loopback() -> None:
    """No surprise listeners: the operator's endpoints default to loopback off a cluster, every address
    in a pod (where the pod's network is its own)."""
    from proctor.cli.operator import default_liveness
    from proctor.gate.webhook import WebhookConfig
    from proctor.k8s.kube import default_listen_host
    from proctor.reconcile.config import OperatorConfig

    assert default_listen_host({}) == "127.0.0.1"
    assert default_listen_host({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}) == "0.0.0.0"
    assert OperatorConfig.from_env({}).metrics_addr == "127.0.0.1"
    assert WebhookConfig.from_env({}).addr == "127.0.0.1"
    assert WebhookConfig.from_env({"PROCTOR_WEBHOOK_ADDR": "0.0.0.0"}).addr == "0.0.0.0"
    assert ":8080/" not in default_liveness(), "the example agent listens on 8080"
