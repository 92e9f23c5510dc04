"""`proctor dev up` / `down` as a person uses them: a shell gets its prompt back, nothing is orphaned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import REPO, Cluster, wait_for
from proctor.devcluster import controlplane as cp

PROCTOR = [sys.executable, "-m", "proctor.cli"]


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if text in cmd and ") Z " not in stat:
            found.append(f"{pid}: {cmd[:120]}")
    return found


def test_up_prints_kubeconfig_and_down_leaves_nothing_running(tmp_path: Path, cluster: Cluster) -> None:
    state = tmp_path / "dev"
    up = subprocess.run(
        [*PROCTOR, "dev", "up", "--dir", str(state)],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "KUBECONFIG"},
        check=False,
    )
    assert up.returncode == 0, up.stderr
    assert up.stdout.strip() == f"export KUBECONFIG={state / 'kubeconfig'}"
    try:
        nodes = subprocess.run(
            [cluster.kubectl_bin, "get", "nodes", "-o", "name"],
            capture_output=True,
            text=True,
            env={**os.environ, "KUBECONFIG": str(state / "kubeconfig")},
            check=True,
        )
        assert "node/proctor-node" in nodes.stdout
        assert _processes_mentioning(str(state)), "the control plane should be running in the background"
    finally:
        down = subprocess.run(
            [*PROCTOR, "dev", "down", "--dir", str(state)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert down.returncode == 0, down.stderr
    wait_for(lambda: not _processes_mentioning(str(state)), timeout=20, what="every process to stop")


def test_ctrl_c_during_up_stops_everything(tmp_path: Path) -> None:
    # Mid-start for certain, however busy the machine: etcd is the real one, the API server a
    # stand-in that never answers, so the start cannot finish before the interrupt.
    real = cp.find_binaries(build=False)
    bins = tmp_path / "bin"
    bins.mkdir()
    for name in ("etcd", "kube-controller-manager"):
        (bins / name).symlink_to(real / name)
    never = bins / "kube-apiserver"
    never.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time; time.sleep(3600)' \"$@\"\n")
    never.chmod(0o755)
    state = tmp_path / "dev"
    proc = subprocess.Popen(
        [*PROCTOR, "dev", "up", "--dir", str(state), "--bin-dir", str(bins)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "KUBECONFIG"},
        # Ctrl-C as at a shell: an xdist worker ignores SIGINT, and its children would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _interrupt_mid_start(proc, state)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if _processes_mentioning(str(state)):
            cp.down(state)  # the supervisor runs in its own session


def _interrupt_mid_start(proc: subprocess.Popen[bytes], state: Path) -> None:
    wait_for(
        lambda: (state / "state.json").exists() and "kube-apiserver" in (state / "state.json").read_text(),
        timeout=60,
        interval=0.05,
        what="the start to reach the API server",
    )
    assert _processes_mentioning(str(state)), "etcd and the API server should be starting"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0, err
    wait_for(
        lambda: not _processes_mentioning(str(state)), timeout=30, what="every process to stop after Ctrl-C"
    )


def test_failed_start_says_why_and_leaves_nothing(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("etcd", "kube-apiserver", "kube-controller-manager"):
        (fake / name).write_text("#!/bin/sh\necho 'etcd: cannot bind' >&2\nexit 1\n")
        (fake / name).chmod(0o755)
    state = tmp_path / "dev"
    up = subprocess.run(
        [*PROCTOR, "dev", "up", "--dir", str(state), "--bin-dir", str(fake)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert up.returncode == 2
    assert "etcd exited with code 1" in up.stderr and "cannot bind" in up.stderr
    assert not _processes_mentioning(str(state))


def test_operator_starts_and_answers_its_liveness_probe(tmp_path: Path) -> None:
    """Watching every namespace, as the image's default command does: in a control plane of its
    own (no node needed), so that it reconciles no other test's objects."""
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    own = Cluster.start(tmp_path / "cp", node=False)
    proc: subprocess.Popen[bytes] | None = None
    try:
        own.install_crds(REPO / "crds")
        with (tmp_path / "operator.log").open("wb") as log:
            proc = subprocess.Popen(
                [*PROCTOR, "operator", "--liveness", f"http://127.0.0.1:{port}/healthz"],
                env=own.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

        def healthy() -> bool:
            assert proc is not None and proc.poll() is None, "the operator exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=60, what="the operator's liveness endpoint")
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        own.stop()
