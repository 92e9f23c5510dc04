"""The embedded local control plane: etcd, kube-apiserver, kube-controller-manager, node stand-in.

A *supervisor* process owns the four children. ``up()`` starts the supervisor detached, waits
until it reports ready (or failed) in ``DIR/state.json`` and returns, so a shell gets its prompt
back. ``down()`` signals the supervisor, which stops its children in reverse order. Children get
``PR_SET_PDEATHSIG`` so they die with the supervisor even if it is SIGKILLed; the supervisor can also
be tied to a parent process (the test session) and stops when that parent disappears. Nothing is
left running after ``down()``, Ctrl-C during ``up()``, or a failed start.

This is a test and demo tool: every client is a cluster admin and etcd skips fsync.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.devcluster.pki import KUBELET_CLIENT, Pki, ensure_pki

STATE = "state.json"
KUBECONFIG = "kubeconfig"
NODE_NAME = "proctor-node"

#: Controllers the local control plane runs: Jobs and their garbage, namespaces and their
#: service accounts, Deployments (the rollout gate) and Job TTLs.
CONTROLLERS = (
    "job-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "replicaset-controller",
    "deployment-controller",
    "ttl-after-finished-controller",
    "root-ca-certificate-publisher-controller",
)


class DevClusterError(RuntimeError):
    """The local control plane could not be started or stopped; the message says why."""


#: Names the state directory of ``proctor dev`` when ``--dir`` is not given (``make demo`` reads it too).
DEV_DIR_ENV = "PROCTOR_DEV_DIR"


def default_dir() -> Path:
    """``$PROCTOR_DEV_DIR``, else ``~/.cache/proctor/dev`` (under ``$XDG_CACHE_HOME`` when set)."""
    if own := os.environ.get(DEV_DIR_ENV):
        return Path(own)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "proctor" / "dev"


def repo_root() -> Path | None:
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "hack" / "build-k8s.sh").exists():
            return parent
    return None


def find_kubectl(bin_dir: Path | None = None) -> Path | None:
    """The kubectl built beside the control plane binaries (``make k8s``), if there is one."""
    try:
        kubectl = find_binaries(bin_dir, build=False) / "kubectl"
    except DevClusterError:
        return None
    return kubectl if kubectl.is_file() and os.access(kubectl, os.X_OK) else None


def find_binaries(bin_dir: Path | None = None, *, build: bool = True) -> Path:
    """Where etcd, kube-apiserver and kube-controller-manager live; builds them when allowed."""
    names = ("etcd", "kube-apiserver", "kube-controller-manager")
    if bin_dir is not None:  # asked for by name: that directory, or an error that says what is missing
        missing = [n for n in names if not ((bin_dir / n).is_file() and os.access(bin_dir / n, os.X_OK))]
        if missing:
            raise DevClusterError(
                f"--bin-dir {bin_dir}: no executable {', '.join(missing)} there (omit --bin-dir to use or "
                "build the ones 'make k8s' makes)"
            )
        return bin_dir
    candidates: list[Path] = []
    if env := os.environ.get("PROCTOR_K8S_BIN"):
        candidates.append(Path(env))
    root = repo_root()
    script = root / "hack" / "build-k8s.sh" if root else None
    if script is not None:
        out = subprocess.run(["bash", str(script), "--print"], capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    for c in candidates:
        if all((c / n).is_file() and os.access(c / n, os.X_OK) for n in names):
            return c
    which = [shutil.which(n) for n in names]
    if which[0] is not None and all(which):
        return Path(which[0]).parent
    if build and script is not None:
        print("proctor dev: building the control plane binaries (first time only)...", file=sys.stderr)
        out = subprocess.run(["bash", str(script)], stdout=subprocess.PIPE, text=True, check=False)
        if out.returncode == 0:
            return Path(out.stdout.strip().splitlines()[-1])
        raise DevClusterError("building the control plane binaries failed; see the messages above")
    raise DevClusterError(
        "kube-apiserver, kube-controller-manager and etcd were not found. Run 'make k8s' in the Proctor "
        "repository (needs Go), set PROCTOR_K8S_BIN to a directory holding them, or set KUBECONFIG to "
        "use an existing cluster instead."
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(path: Path, server: str, pki: Pki, user: str) -> None:
    crt, key = pki.client(user)
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "proctor-dev",
                "cluster": {"server": server, "certificate-authority-data": _b64(pki.ca_crt)},
            }
        ],
        "users": [
            {"name": user, "user": {"client-certificate-data": _b64(crt), "client-key-data": _b64(key)}}
        ],
        "contexts": [{"name": "proctor-dev", "context": {"cluster": "proctor-dev", "user": user}}],
        "current-context": "proctor-dev",
    }
    path.write_text(json.dumps(cfg, indent=2))
    path.chmod(0o600)


def _pdeathsig() -> None:  # pragma: no cover - runs in the child between fork and exec
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)


@dataclass
class Child:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path


class Supervisor:
    """Starts the children in order, watches them, stops them in reverse order."""

    def __init__(self, directory: Path, bin_dir: Path, *, node: bool, parent_pid: int | None) -> None:
        self.dir = directory
        self.bin = bin_dir
        self.node = node
        self.parent_pid = parent_pid
        self.children: list[Child] = []
        self.stopping = False
        self.logs = directory / "logs"
        self.state: dict[str, Any] = {"pid": os.getpid(), "phase": "Starting"}

    # -- state --------------------------------------------------------------------------------
    def write_state(self, **kw: Any) -> None:
        self.state.update(kw)
        tmp = self.dir / (STATE + ".tmp")
        tmp.write_text(json.dumps(self.state, indent=2))
        tmp.replace(self.dir / STATE)

    # -- children -----------------------------------------------------------------------------
    def spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Child:
        log = self.logs / f"{name}.log"
        fh = log.open("ab")
        proc = subprocess.Popen(
            argv,
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_pdeathsig,
            env={**os.environ, **(env or {})},
            cwd=self.dir,
        )
        fh.close()
        child = Child(name, proc, log)
        self.children.append(child)
        self.write_state(pids={c.name: c.proc.pid for c in self.children})
        return child

    def check_alive(self) -> None:
        for c in self.children:
            if c.proc.poll() is not None:
                tail = c.log.read_text(errors="replace")[-3000:]
                raise DevClusterError(
                    f"{c.name} exited with code {c.proc.returncode}; last log lines:\n{tail}"
                )

    def wait_until(self, what: str, probe: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            if self.stopping:
                raise DevClusterError("interrupted")
            if probe():
                return
            time.sleep(0.2)
        raise DevClusterError(f"{what} was not ready within {timeout:.0f}s (logs in {self.logs})")

    def stop_all(self) -> None:
        for c in reversed(self.children):
            if c.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(c.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for c in reversed(self.children):
            try:
                c.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(c.proc.pid, signal.SIGKILL)
                c.proc.wait(5)
        self.children.clear()

    # -- the control plane ---------------------------------------------------------------------
    def start(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        pki = ensure_pki(self.dir / "pki")
        etcd_data = self.dir / "etcd"
        shutil.rmtree(etcd_data, ignore_errors=True)
        etcd_port, peer_port, api_port, kcm_port = free_port(), free_port(), free_port(), free_port()
        server = f"https://127.0.0.1:{api_port}"
        write_kubeconfig(self.dir / KUBECONFIG, server, pki, "admin")
        write_kubeconfig(self.dir / "controller-manager.kubeconfig", server, pki, "controller-manager")
        self.write_state(
            server=server,
            kubeconfig=str(self.dir / KUBECONFIG),
            ports={"etcd": etcd_port, "apiserver": api_port, "controllerManager": kcm_port},
        )

        etcd_url = f"http://127.0.0.1:{etcd_port}"
        self.spawn(
            "etcd",
            [
                str(self.bin / "etcd"),
                "--name=proctor-dev",
                f"--data-dir={etcd_data}",
                f"--listen-client-urls={etcd_url}",
                f"--advertise-client-urls={etcd_url}",
                f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
                f"--initial-cluster=proctor-dev=http://127.0.0.1:{peer_port}",
                "--unsafe-no-fsync",
                "--log-level=warn",
                "--quota-backend-bytes=4294967296",
            ],
        )
        self.wait_until("etcd", lambda: _http_ok(f"{etcd_url}/health"), 30)

        self.spawn(
            "kube-apiserver",
            [
                str(self.bin / "kube-apiserver"),
                f"--etcd-servers={etcd_url}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={api_port}",
                f"--tls-cert-file={pki.apiserver_crt}",
                f"--tls-private-key-file={pki.apiserver_key}",
                f"--client-ca-file={pki.ca_crt}",
                "--authorization-mode=RBAC",
                f"--service-account-key-file={pki.sa_pub}",
                f"--service-account-signing-key-file={pki.sa_key}",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--api-audiences=https://kubernetes.default.svc.cluster.local",
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true",
                "--profiling=false",
                "--v=1",
                "--endpoint-reconciler-type=none",
                *_kubelet_client_flags(pki),
            ],
        )
        ctx = ssl.create_default_context(cafile=str(pki.ca_crt))
        ctx.load_cert_chain(*map(str, pki.client("admin")))
        self.wait_until("kube-apiserver", lambda: _http_ok(f"{server}/readyz", ctx), 90)

        self.spawn(
            "kube-controller-manager",
            [
                str(self.bin / "kube-controller-manager"),
                f"--kubeconfig={self.dir / 'controller-manager.kubeconfig'}",
                f"--authentication-kubeconfig={self.dir / 'controller-manager.kubeconfig'}",
                f"--authorization-kubeconfig={self.dir / 'controller-manager.kubeconfig'}",
                f"--controllers={','.join(CONTROLLERS)}",
                f"--root-ca-file={pki.ca_crt}",
                "--leader-elect=false",
                "--use-service-account-credentials=false",
                "--bind-address=127.0.0.1",
                f"--secure-port={kcm_port}",
                f"--cert-dir={self.dir / 'kcm-certs'}",
                "--v=1",
            ],
        )
        kcm_ctx = ssl.create_default_context()
        kcm_ctx.check_hostname = False
        kcm_ctx.verify_mode = ssl.CERT_NONE
        self.wait_until(
            "kube-controller-manager", lambda: _http_ok(f"https://127.0.0.1:{kcm_port}/healthz", kcm_ctx), 60
        )
        # The service-account controller must have made the default account before pods can be created.
        self.wait_until(
            "the default service account",
            lambda: _http_ok(f"{server}/api/v1/namespaces/default/serviceaccounts/default", ctx),
            60,
        )
        if self.node:
            self.spawn(
                "node",
                [
                    sys.executable,
                    "-m",
                    "proctor.devcluster.node",
                    f"--kubeconfig={self.dir / KUBECONFIG}",
                    f"--dir={self.dir / 'node'}",
                    f"--name={NODE_NAME}",
                    f"--tls-cert-file={pki.kubelet_crt}",
                    f"--tls-private-key-file={pki.kubelet_key}",
                    f"--client-ca-file={pki.ca_crt}",
                ],
            )
            self.wait_until("the node stand-in", lambda: _node_ready(server, ctx), 60)
        self.write_state(phase="Ready")

    def run(self) -> int:
        def on_signal(signum: int, _frame: Any) -> None:
            self.stopping = True

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        try:
            self.start()
            while not self.stopping:
                self.check_alive()
                if self.parent_pid is not None and not _pid_alive(self.parent_pid):
                    break
                time.sleep(0.5)
            self.write_state(phase="Stopping")
            return 0
        except DevClusterError as e:
            self.write_state(phase="Failed", error=str(e))
            return 1
        except Exception as e:  # the state file must always say why we stopped
            self.write_state(phase="Failed", error=f"{type(e).__name__}: {e}")
            raise
        finally:
            self.stop_all()
            self.write_state(phase="Stopped", pids={})


def _kubelet_client_flags(pki: Pki) -> list[str]:
    """How the API server talks to kubelets (for logs): mutual TLS against the cluster CA, at the
    node's InternalIP (the stand-in's Hostname does not resolve)."""
    crt, key = pki.client(KUBELET_CLIENT)
    return [
        f"--kubelet-client-certificate={crt}",
        f"--kubelet-client-key={key}",
        f"--kubelet-certificate-authority={pki.ca_crt}",
        "--kubelet-preferred-address-types=InternalIP",
    ]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _http_ok(url: str, ctx: ssl.SSLContext | None = None) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2, context=ctx) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, OSError, ssl.SSLError):
        return False


def _node_ready(server: str, ctx: ssl.SSLContext) -> bool:
    try:
        with urllib.request.urlopen(f"{server}/api/v1/nodes/{NODE_NAME}", timeout=2, context=ctx) as r:
            node = json.load(r)
    except (urllib.error.URLError, OSError, ssl.SSLError, ValueError):
        return False
    conds = node.get("status", {}).get("conditions", [])
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)


def read_state(directory: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads((directory / STATE).read_text())
        return data
    except (FileNotFoundError, ValueError):
        return {}


def is_running(directory: Path) -> bool:
    st = read_state(directory)
    return st.get("phase") == "Ready" and _pid_alive(int(st.get("pid", 0) or 0))


def up(
    directory: Path | None = None,
    bin_dir: Path | None = None,
    *,
    node: bool = True,
    timeout: float = 180,
    tie_to_parent: bool = False,
    parent_pid: int | None = None,
) -> Path:
    """Start the control plane in the background and return the kubeconfig path once ready.

    With ``tie_to_parent`` it stops when this process dies, or when ``parent_pid`` does if given
    (a test run's workers start the one control plane their controller process owns)."""
    directory = (directory or default_dir()).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    if is_running(directory):
        return directory / KUBECONFIG
    binaries = find_binaries(bin_dir)
    (directory / STATE).unlink(missing_ok=True)
    argv = [
        sys.executable,
        "-m",
        "proctor.devcluster.controlplane",
        "supervise",
        f"--dir={directory}",
        f"--bin-dir={binaries}",
    ]
    if not node:
        argv.append("--no-node")
    if tie_to_parent:
        argv.append(f"--parent-pid={parent_pid or os.getpid()}")
    (directory / "logs").mkdir(exist_ok=True)
    log_fd = os.open(directory / "logs" / "supervisor.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # posix_spawn rather than Popen: the supervisor outlives this call on purpose (down()
        # stops and reaps it by pid), and a new session keeps it out of the terminal's Ctrl-C.
        pid = os.posix_spawn(
            sys.executable,
            argv,
            dict(os.environ),
            setsid=True,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, log_fd, 1),
                (os.POSIX_SPAWN_DUP2, log_fd, 2),
            ],
        )
    finally:
        os.close(log_fd)
    deadline = time.monotonic() + timeout
    try:
        while True:
            st = read_state(directory)
            if st.get("phase") == "Ready":
                return directory / KUBECONFIG
            exited = _reaped(pid)
            if st.get("phase") in ("Failed", "Stopped") or exited:
                _terminate(pid, 30)
                raise DevClusterError(st.get("error") or f"the supervisor exited; see {directory}/logs")
            if time.monotonic() > deadline:
                raise DevClusterError(
                    f"the control plane was not ready within {timeout:.0f}s; see {directory}/logs"
                )
            time.sleep(0.2)
    except BaseException:
        _terminate(pid, 30)
        raise


def _reaped(pid: int) -> bool:
    """True when ``pid`` (our child) has exited; reaps it so no zombie is left."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return not _pid_alive(pid)
    return bool(done)


def _terminate(pid: int, timeout: float) -> bool:
    if not _pid_alive(pid):
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return True
        if not _pid_alive(pid):
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    return True


def down(directory: Path | None = None, timeout: float = 40) -> bool:
    """Stop the control plane started in ``directory``; True when something was running."""
    directory = (directory or default_dir()).resolve()
    st = read_state(directory)
    pid = int(st.get("pid", 0) or 0)
    stopped = bool(pid) and _terminate(pid, timeout)
    # Belt and braces: children carry PDEATHSIG, but kill any pid still listed.
    for child_pid in (read_state(directory).get("pids") or {}).values():
        if _pid_alive(int(child_pid)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(child_pid), signal.SIGKILL)
    return stopped


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m proctor.devcluster.controlplane")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("supervise")
    s.add_argument("--dir", type=Path, required=True)
    s.add_argument("--bin-dir", type=Path, required=True)
    s.add_argument("--no-node", action="store_true")
    s.add_argument("--parent-pid", type=int)
    args = p.parse_args(argv)
    return Supervisor(args.dir, args.bin_dir, node=not args.no_node, parent_pid=args.parent_pid).run()


if __name__ == "__main__":
    sys.exit(main())
