"""A node stand-in: runs the pods of the local control plane as local processes.

There is no kubelet and no container runtime on the local control plane, so this process plays
both. It registers a Node, binds unscheduled pods to itself (there is no scheduler either), and
runs each pod's containers as local processes with the pod's command, args and environment:
native sidecars (init containers with ``restartPolicy: Always``) first and stopped last, then the
init containers in order, then the containers. It reports pod status the way a kubelet does
(Pending, Running, Succeeded or Failed with exit codes and termination messages), so the real Job,
ReplicaSet and garbage-collector controllers do the rest.

It is a test and demo tool, not a kubelet. What it does not do: isolation (processes share the
host's network and filesystem, so two pods listening on one port collide), volumes, resource
limits, security contexts, image pulls. Images are mapped to local commands: the project's own
image (any reference whose last path component is ``proctor``) runs the installed ``proctor``
entry point; more can be added with ``--image NAME=COMMAND``. Any other image fails its pod with
reason ``ImageNotRunnable``. A container's termination message is the tail of its output when it
fails (``/dev/termination-log`` cannot be given to a host process). Logs are files under
``DIR/logs/``; ``kubectl logs`` is not served.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import datetime as dt
import json
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import structlog
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

log = structlog.get_logger("proctor.node")

TERMINATION_MESSAGE_BYTES = 4096
#: Pod addresses: 127.1.0.1 to 127.254.255.254, the host's own 127.0.0.0/16 left alone.
_LOOPBACK_POD_ADDRESSES = 254 * 256 * 254


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def image_name(image: str) -> str:
    """``ghcr.io/proctor-dev/proctor:0.1.0@sha256:..`` -> ``proctor``."""
    ref = image.split("@", 1)[0]
    last = ref.rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def default_images() -> dict[str, list[str]]:
    bindir = Path(sys.executable).parent
    proctor = bindir / "proctor"
    entry = [str(proctor)] if proctor.exists() else [sys.executable, "-m", "proctor.cli"]
    return {"proctor": entry}


def _pdeathsig() -> None:  # pragma: no cover - runs between fork and exec
    import ctypes

    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)
    os.setsid()


@dataclass
class ContainerRun:
    """One container's process and what the kubelet would report about it."""

    spec: dict[str, Any]
    sidecar: bool = False
    init: bool = False
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    started_at: str | None = None
    finished_at: str | None = None
    exit_code: int | None = None
    reason: str | None = None
    message: str | None = None
    waiting: tuple[str, str] | None = None
    ready: bool = False
    restarts: int = 0
    probe_stop: threading.Event = field(default_factory=threading.Event)

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    def status(self) -> dict[str, Any]:
        image = self.spec.get("image", "")
        st: dict[str, Any] = {
            "name": self.name,
            "image": image,
            "imageID": f"proctor-node://{image}",
            "ready": self.ready,
            "restartCount": self.restarts,
            "started": self.proc is not None and self.exit_code is None,
        }
        if self.exit_code is not None:
            term: dict[str, Any] = {
                "exitCode": self.exit_code,
                "reason": self.reason or ("Completed" if self.exit_code == 0 else "Error"),
                "startedAt": self.started_at,
                "finishedAt": self.finished_at,
            }
            if self.message:
                term["message"] = self.message
            st["state"] = {"terminated": term}
        elif self.proc is not None:
            st["state"] = {"running": {"startedAt": self.started_at}}
            st["containerID"] = f"proctor-node://{self.proc.pid}"
        else:
            reason, message = self.waiting or ("PodInitializing", "")
            st["state"] = {"waiting": {"reason": reason, **({"message": message} if message else {})}}
        return st


class PodStopped(Exception):
    """The pod was deleted while it ran."""


class PodRunner(threading.Thread):
    """Runs one pod to the end and reports its status."""

    def __init__(self, node: Node, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        super().__init__(name=f"pod-{meta['namespace']}/{meta['name']}", daemon=True)
        self.node = node
        self.pod = pod
        self.ns: str = meta["namespace"]
        self.pod_name: str = meta["name"]
        self.uid: str = meta["uid"]
        self.stop_event = threading.Event()
        spec = pod["spec"]
        self.restart_policy: str = spec.get("restartPolicy", "Always")
        self.init_runs = [
            ContainerRun(c, init=True, sidecar=c.get("restartPolicy") == "Always")
            for c in spec.get("initContainers", []) or []
        ]
        self.runs = [ContainerRun(c) for c in spec.get("containers", [])]
        self.phase = "Pending"
        self.reason: str | None = None
        self.message: str | None = None
        self.start_time = now()
        self.initialized = False
        self.workdir = node.dir / "pods" / self.uid
        self.ip = node.allocate_ip(self.uid)
        self._last_status: str = ""
        self.lock = threading.Lock()

    # -- reporting -------------------------------------------------------------------------------
    def _conditions(self) -> list[dict[str, Any]]:
        t = now()
        ready = (
            self.phase == "Running"
            and all(r.ready for r in self.runs)
            and all(r.ready for r in self.init_runs if r.sidecar)
        )
        cready = all(r.ready for r in self.runs)

        def c(type_: str, ok: bool) -> dict[str, Any]:
            return {"type": type_, "status": "True" if ok else "False", "lastTransitionTime": t}

        return [
            c("PodScheduled", True),
            c("Initialized", self.initialized),
            c("ContainersReady", cready),
            c("Ready", ready),
        ]

    def report(self) -> None:
        with self.lock:
            status: dict[str, Any] = {
                "phase": self.phase,
                "hostIP": "127.0.0.1",
                "podIP": self.ip,
                "podIPs": [{"ip": self.ip}],
                "hostIPs": [{"ip": "127.0.0.1"}],
                "startTime": self.start_time,
                "initContainerStatuses": [r.status() for r in self.init_runs],
                "containerStatuses": [r.status() for r in self.runs],
            }
            if self.reason:
                status["reason"] = self.reason
            if self.message:
                status["message"] = self.message
            key = json.dumps(
                {**status, "c": [(c["type"], c["status"]) for c in self._conditions()]}, sort_keys=True
            )
            if key == self._last_status:
                return
            # lastTransitionTime only moves when a condition's status changes
            status["conditions"] = self._merge_conditions(self._conditions())
        try:
            self.node.core.patch_namespaced_pod_status(self.pod_name, self.ns, {"status": status})
            self._last_status = key
        except ApiException as e:
            if e.status == 404:
                self.stop_event.set()
            else:
                log.warning("pod status update failed", pod=f"{self.ns}/{self.pod_name}", status=e.status)

    def _merge_conditions(self, new: list[dict[str, Any]]) -> list[dict[str, Any]]:
        old = {c["type"]: c for c in getattr(self, "_conds", [])}
        out = []
        for c in new:
            prev = old.get(c["type"])
            out.append(prev if prev and prev["status"] == c["status"] else c)
        self._conds = out
        return out

    # -- environment -----------------------------------------------------------------------------
    def _env(self, c: dict[str, Any]) -> dict[str, str]:
        env: dict[str, str] = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.workdir),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOSTNAME": self.pod_name,
            # stand-in only: lets a local command behave as the image version it stands for
            "PROCTOR_NODE_IMAGE": str(c.get("image", "")),
        }
        if self.node.sa_kubeconfig_enabled(self.pod):
            env["KUBECONFIG"] = str(self.node.pod_kubeconfig(self.pod, self.workdir))
        for src in c.get("envFrom", []) or []:
            prefix = src.get("prefix", "")
            if ref := src.get("configMapRef"):
                data = self.node.read_configmap(self.ns, ref["name"], optional=ref.get("optional", False))
                env.update({prefix + k: v for k, v in (data or {}).items()})
            if ref := src.get("secretRef"):
                data = self.node.read_secret(self.ns, ref["name"], optional=ref.get("optional", False))
                env.update({prefix + k: v for k, v in (data or {}).items()})
        for item in c.get("env", []) or []:
            name = item["name"]
            if "value" in item:
                env[name] = _expand(str(item["value"]), env)
                continue
            vf = item.get("valueFrom")
            if not vf:
                env[name] = ""
                continue
            if ref := vf.get("secretKeyRef"):
                val = self.node.read_key(
                    self.ns, "Secret", ref["name"], ref["key"], ref.get("optional", False)
                )
            elif ref := vf.get("configMapKeyRef"):
                val = self.node.read_key(
                    self.ns, "ConfigMap", ref["name"], ref["key"], ref.get("optional", False)
                )
            elif ref := vf.get("fieldRef"):
                val = self._field(ref["fieldPath"])
            else:
                val = None
            if val is not None:
                env[name] = val
        return env

    def _field(self, path: str) -> str:
        meta = self.pod["metadata"]
        if path.startswith("metadata.labels['"):
            return str(meta.get("labels", {}).get(path[len("metadata.labels['") : -2], ""))
        if path.startswith("metadata.annotations['"):
            return str(meta.get("annotations", {}).get(path[len("metadata.annotations['") : -2], ""))
        fields: dict[str, str] = {
            "metadata.name": self.pod_name,
            "metadata.namespace": self.ns,
            "metadata.uid": self.uid,
            "spec.nodeName": self.node.name,
            "spec.serviceAccountName": self.pod["spec"].get("serviceAccountName", ""),
            "status.podIP": self.ip,
            "status.hostIP": "127.0.0.1",
        }
        return fields.get(path, "")

    # -- processes -------------------------------------------------------------------------------
    def _argv(self, c: dict[str, Any]) -> list[str]:
        entry = self.node.images.get(image_name(c.get("image", "")))
        if entry is None:
            known = ", ".join(sorted(self.node.images)) or "none"
            raise ImageNotRunnable(
                f"image {c.get('image')!r} is not one the node stand-in can run (runnable images: {known}); "
                "the local control plane runs containers as local processes"
            )
        command = c.get("command") or entry
        return [*command, *(c.get("args") or [])]

    def _start(self, run: ContainerRun) -> None:
        env = self._env(run.spec)
        argv = [_expand(a, env) for a in self._argv(run.spec)]
        cwd = self.workdir / run.name
        cwd.mkdir(parents=True, exist_ok=True)
        logs = self.node.dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        run.log_path = logs / f"{self.ns}_{self.pod_name}_{run.name}.log"
        fh = run.log_path.open("ab")
        try:
            run.proc = subprocess.Popen(
                argv,
                stdout=fh,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=run.spec.get("workingDir") or cwd,
                preexec_fn=_pdeathsig,
            )
        except OSError as e:
            run.exit_code, run.reason = 128, "StartError"
            run.message = f"cannot start {argv[0]!r}: {e.strerror}"
            run.started_at = run.finished_at = now()
            return
        finally:
            fh.close()
        run.started_at, run.exit_code, run.finished_at, run.reason, run.message = (
            now(),
            None,
            None,
            None,
            None,
        )
        run.waiting = None
        run.probe_stop = threading.Event()
        probe = run.spec.get("readinessProbe") or run.spec.get("startupProbe")
        if probe:
            threading.Thread(target=self._probe_loop, args=(run, probe), daemon=True).start()
        else:
            run.ready = True
        log.info("container started", pod=f"{self.ns}/{self.pod_name}", container=run.name, pid=run.proc.pid)

    def _probe_loop(self, run: ContainerRun, probe: dict[str, Any]) -> None:
        time.sleep(float(probe.get("initialDelaySeconds", 0)))
        period = max(0.25, min(float(probe.get("periodSeconds", 10)), 2.0))
        while not run.probe_stop.is_set() and run.proc is not None and run.proc.poll() is None:
            ok = _probe(probe, self._env(run.spec), self.ip)
            if ok != run.ready:
                run.ready = ok
                self.report()
            run.probe_stop.wait(period)

    def _reap(self, run: ContainerRun, code: int) -> None:
        run.probe_stop.set()
        run.exit_code, run.finished_at, run.ready = code, now(), False
        if code < 0:
            run.exit_code = 128 - code
            run.reason = "Error"
        if code != 0 and run.log_path is not None:
            tail = run.log_path.read_bytes()[-TERMINATION_MESSAGE_BYTES:].decode("utf-8", "replace")
            run.message = tail.strip() or None
        log.info("container exited", pod=f"{self.ns}/{self.pod_name}", container=run.name, code=run.exit_code)

    def _kill(self, runs: list[ContainerRun], grace: float) -> None:
        live = [r for r in runs if r.proc is not None and r.exit_code is None]
        for r in live:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(r.proc.pid, signal.SIGTERM)  # type: ignore[union-attr]
        deadline = time.monotonic() + grace
        for r in live:
            assert r.proc is not None
            try:
                code = r.proc.wait(max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(r.proc.pid, signal.SIGKILL)
                code = r.proc.wait()
            self._reap(r, code)

    def _check_stop(self) -> None:
        if self.stop_event.is_set():
            raise PodStopped
        deadline = self.pod["spec"].get("activeDeadlineSeconds")
        if deadline is not None and time.monotonic() - self.t0 > float(deadline):
            raise DeadlineExceeded(
                f"Pod was active on the node longer than the specified deadline ({deadline}s)"
            )

    def _wait_env_ready(self, run: ContainerRun) -> None:
        """Like a kubelet: a missing Secret or ConfigMap keeps the container waiting, not failed."""
        while True:
            self._check_stop()
            try:
                self._env(run.spec)
                return
            except MissingRef as e:
                if run.waiting != ("CreateContainerConfigError", str(e)):
                    run.waiting = ("CreateContainerConfigError", str(e))
                    self.report()
                self.stop_event.wait(1.0)

    # -- the pod's life ---------------------------------------------------------------------------
    def run(self) -> None:
        self.t0 = time.monotonic()
        grace = float(self.pod["spec"].get("terminationGracePeriodSeconds", 30))
        grace = min(grace, 10.0)
        try:
            for r in [*self.init_runs, *self.runs]:
                self._argv(r.spec)  # unknown images fail the pod before anything starts
            self.report()
            self._run_init()
            self.initialized = True
            self.phase = "Running"
            for r in self.runs:
                self._wait_env_ready(r)
                self._start(r)
            self.report()
            self._supervise()
        except ImageNotRunnable as e:
            self.phase, self.reason, self.message = "Failed", "ImageNotRunnable", str(e)
            for r in [*self.init_runs, *self.runs]:
                r.exit_code, r.reason, r.message = 128, "ImageNotRunnable", str(e)
                r.started_at = r.finished_at = now()
        except DeadlineExceeded as e:
            self._kill([*self.runs, *self.init_runs], grace)
            self.phase, self.reason, self.message = "Failed", "DeadlineExceeded", str(e)
        except PodStopped:
            self._kill([*self.runs, *self.init_runs], grace)
            self.node.finish_deletion(self)
            return
        except Exception as e:  # the pod must never hang in Running because the stand-in broke
            log.exception("pod runner failed", pod=f"{self.ns}/{self.pod_name}")
            self._kill([*self.runs, *self.init_runs], 1.0)
            self.phase, self.reason, self.message = "Failed", "NodeStandInError", f"{type(e).__name__}: {e}"
        self.report()
        if self.stop_event.is_set():
            self.node.finish_deletion(self)

    def _run_init(self) -> None:
        for r in self.init_runs:
            self._check_stop()
            self._wait_env_ready(r)
            self._start(r)
            self.report()
            if r.sidecar:
                # The next init container starts once the sidecar has started (and is ready, when it
                # has a probe), as the kubelet does for native sidecars.
                while not r.ready:
                    self._check_stop()
                    if r.proc is not None and r.proc.poll() is not None:
                        self._reap(r, r.proc.returncode)
                        self._restart_sidecar(r)
                    time.sleep(0.1)
                self.report()
                continue
            while True:
                self._check_stop()
                assert r.proc is not None
                code = r.proc.poll()
                if code is None:
                    time.sleep(0.1)
                    continue
                self._reap(r, code)
                if code == 0:
                    break
                if self.restart_policy == "Never":
                    self._kill([s for s in self.init_runs if s.sidecar], 10)
                    self.phase = "Failed"
                    raise _Done
                self.report()
                time.sleep(min(10.0, 2.0**r.restarts))
                r.restarts += 1
                self._start(r)
            self.report()

    def _restart_sidecar(self, r: ContainerRun) -> None:
        self.report()
        time.sleep(min(10.0, 0.5 * 2.0**r.restarts))
        r.restarts += 1
        self._start(r)

    def _supervise(self) -> None:
        sidecars = [r for r in self.init_runs if r.sidecar]
        while True:
            self._check_stop()
            changed = False
            for r in self.runs:
                if r.exit_code is None and r.proc is not None and (code := r.proc.poll()) is not None:
                    self._reap(r, code)
                    changed = True
                    if self.restart_policy == "Always" or (self.restart_policy == "OnFailure" and code != 0):
                        self.report()
                        time.sleep(min(10.0, 0.5 * 2.0**r.restarts))
                        r.restarts += 1
                        self._start(r)
            for s in sidecars:
                if s.exit_code is None and s.proc is not None and (code := s.proc.poll()) is not None:
                    self._reap(s, code)
                    self._restart_sidecar(s)
                    changed = True
            if all(r.exit_code is not None for r in self.runs):
                break
            if changed:
                self.report()
            time.sleep(0.1)
        # Main containers are done: sidecars stop after them (in reverse order), as on a kubelet.
        self._kill(list(reversed(sidecars)), 10)
        self.phase = "Succeeded" if all(r.exit_code == 0 for r in self.runs) else "Failed"


class _Done(Exception):
    pass


class ImageNotRunnable(Exception):
    pass


class DeadlineExceeded(Exception):
    pass


class MissingRef(Exception):
    pass


def _expand(value: str, env: dict[str, str]) -> str:
    """Kubernetes' $(VAR) expansion ($$ escapes)."""
    out, i = [], 0
    while i < len(value):
        if value.startswith("$$", i):
            out.append("$")
            i += 2
        elif value.startswith("$(", i) and (j := value.find(")", i)) != -1:
            name = value[i + 2 : j]
            out.append(env.get(name, value[i : j + 1]))
            i = j + 1
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def _probe(probe: dict[str, Any], env: dict[str, str], ip: str = "127.0.0.1") -> bool:
    timeout = float(probe.get("timeoutSeconds", 1))
    try:
        if hg := probe.get("httpGet"):
            scheme = hg.get("scheme", "HTTP").lower()
            url = f"{scheme}://{ip}:{int(hg['port'])}{hg.get('path', '/')}"
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return 200 <= int(r.status) < 400
        if tcp := probe.get("tcpSocket"):
            with socket.create_connection((ip, int(tcp["port"])), timeout=timeout):
                return True
        if ex := probe.get("exec"):
            return (
                subprocess.run(
                    ex["command"], env=env, timeout=timeout, capture_output=True, check=False
                ).returncode
                == 0
            )
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return False
    return True


class Node:
    """Registers the node, binds and runs pods, keeps its heartbeat."""

    def __init__(self, name: str, directory: Path, images: dict[str, list[str]]) -> None:
        self.name = name
        self.dir = directory
        self.images = images
        self.api = client.ApiClient()
        self.core = client.CoreV1Api(self.api)
        self.runners: dict[str, PodRunner] = {}
        self.stopping = threading.Event()
        self._ips: dict[str, str] = {}
        self._next_ip = 0
        self._ip_base = secrets.randbelow(_LOOPBACK_POD_ADDRESSES)
        self._ip_lock = threading.Lock()

    def allocate_ip(self, uid: str) -> str:
        """A loopback address of the pod's own, so two pods may listen on one port when they bind
        their pod IP (``status.podIP``), as containers in separate pods can.

        Addresses are never reused by one node (a new pod must not inherit a port still in
        TIME_WAIT from an earlier one) and start at a random point of 127.1.0.1-127.254.255.254
        (about 16 million addresses), so local control planes running side by side do not collide.
        """
        with self._ip_lock:
            if uid not in self._ips:
                self._next_ip += 1
                n = (self._ip_base + self._next_ip) % _LOOPBACK_POD_ADDRESSES
                a, rest = divmod(n, 256 * 254)
                b, c = divmod(rest, 254)
                self._ips[uid] = f"127.{a + 1}.{b}.{c + 1}"
            return self._ips[uid]

    # -- object access ---------------------------------------------------------------------------
    def read_configmap(self, ns: str, name: str, *, optional: bool) -> dict[str, str] | None:
        try:
            return dict(self.core.read_namespaced_config_map(name, ns).data or {})
        except ApiException as e:
            if e.status == 404 and optional:
                return None
            raise MissingRef(f'configmap "{name}" not found') from e

    def read_secret(self, ns: str, name: str, *, optional: bool) -> dict[str, str] | None:
        try:
            data = self.core.read_namespaced_secret(name, ns).data or {}
        except ApiException as e:
            if e.status == 404 and optional:
                return None
            raise MissingRef(f'secret "{name}" not found') from e
        return {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in data.items()}

    def read_key(self, ns: str, kind: str, name: str, key: str, optional: bool) -> str | None:
        data = (self.read_secret if kind == "Secret" else self.read_configmap)(ns, name, optional=optional)
        if data is None:
            return None
        if key not in data:
            if optional:
                return None
            raise MissingRef(f"couldn't find key {key} in {kind} {ns}/{name}")
        return data[key]

    def sa_kubeconfig_enabled(self, pod: dict[str, Any]) -> bool:
        return pod["spec"].get("automountServiceAccountToken", True) is not False

    def pod_kubeconfig(self, pod: dict[str, Any], workdir: Path) -> Path:
        """A kubeconfig with a token bound to the pod's service account, like a projected token.

        The container then talks to the API as its service account, so RBAC is exercised as in a
        real cluster (a kubeconfig in ``KUBECONFIG`` stands in for the in-cluster mount).
        """
        path = workdir / "kubeconfig"
        if path.exists():
            return path
        meta, sa = pod["metadata"], pod["spec"].get("serviceAccountName") or "default"
        body = client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(
                audiences=[],
                expiration_seconds=3600,
                bound_object_ref=client.V1BoundObjectReference(
                    kind="Pod", api_version="v1", name=meta["name"], uid=meta["uid"]
                ),
            )
        )
        reply = self.core.create_namespaced_service_account_token(sa, meta["namespace"], body)
        token = reply.status.token if reply.status else ""
        cfg = self.api.configuration
        ca = Path(cfg.ssl_ca_cert).read_bytes() if cfg.ssl_ca_cert else b""
        kc = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "pod",
            "clusters": [
                {
                    "name": "c",
                    "cluster": {
                        "server": cfg.host,
                        "certificate-authority-data": base64.b64encode(ca).decode(),
                    },
                }
            ],
            "users": [{"name": sa, "user": {"token": token}}],
            "contexts": [
                {"name": "pod", "context": {"cluster": "c", "user": sa, "namespace": meta["namespace"]}}
            ],
        }
        workdir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(kc))
        path.chmod(0o600)
        return path

    # -- node registration -------------------------------------------------------------------------
    def node_status(self) -> dict[str, Any]:
        t = now()
        cond = [
            {
                "type": "Ready",
                "status": "True",
                "reason": "ProctorNodeReady",
                "message": "the node stand-in runs pods as local processes",
                "lastHeartbeatTime": t,
                "lastTransitionTime": t,
            },
        ]
        cap = {"cpu": str(os.cpu_count() or 2), "memory": "16Gi", "pods": "110", "ephemeral-storage": "50Gi"}
        return {
            "conditions": cond,
            "capacity": cap,
            "allocatable": cap,
            "addresses": [
                {"type": "InternalIP", "address": "127.0.0.1"},
                {"type": "Hostname", "address": self.name},
            ],
            "nodeInfo": {
                "kubeletVersion": "proctor-node-standin",
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "containerRuntimeVersion": "proctor://local-processes",
                "osImage": "local",
                "kernelVersion": os.uname().release,
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
                "kernelVersion_": "",
            }
            | {},
        }

    def register(self) -> None:
        body = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "proctor.dev/node-standin": "true",
                },
            },
        }
        with contextlib.suppress(ApiException):
            self.core.create_node(cast(Any, body))
        status = self.node_status()
        status["nodeInfo"].pop("kernelVersion_", None)
        self.core.patch_node_status(self.name, {"status": status})

    def heartbeat(self) -> None:
        while not self.stopping.wait(10):
            try:
                status = self.node_status()
                status["nodeInfo"].pop("kernelVersion_", None)
                self.core.patch_node_status(self.name, {"status": {"conditions": status["conditions"]}})
            except Exception as e:
                log.warning("node heartbeat failed", error=str(e))

    # -- pods ----------------------------------------------------------------------------------------
    def bind(self, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": meta["name"], "uid": meta["uid"]},
            "target": {"apiVersion": "v1", "kind": "Node", "name": self.name},
        }
        try:
            # _preload_content=False: the client cannot deserialise the Binding reply (a known bug).
            self.core.create_namespaced_pod_binding(
                meta["name"], meta["namespace"], cast(Any, body), _preload_content=False
            )
        except ApiException as e:
            if e.status not in (404, 409):
                log.warning("binding failed", pod=f"{meta['namespace']}/{meta['name']}", status=e.status)

    def finish_deletion(self, runner: PodRunner) -> None:
        with contextlib.suppress(ApiException):
            self.core.delete_namespaced_pod(
                runner.pod_name,
                runner.ns,
                grace_period_seconds=0,
                body=client.V1DeleteOptions(
                    grace_period_seconds=0, preconditions=client.V1Preconditions(uid=runner.uid)
                ),
            )
        self.runners.pop(runner.uid, None)

    def handle(self, kind: str, pod: dict[str, Any]) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        uid = meta["uid"]
        phase = pod.get("status", {}).get("phase", "Pending")
        if kind == "DELETED":
            if r := self.runners.get(uid):
                r.stop_event.set()
            return
        node_name = spec.get("nodeName")
        if not node_name:
            if (
                meta.get("deletionTimestamp") is None
                and spec.get("schedulerName", "default-scheduler") == "default-scheduler"
            ):
                self.bind(pod)
            return
        if node_name != self.name:
            return
        if meta.get("deletionTimestamp") is not None:
            if r := self.runners.get(uid):
                r.stop_event.set()
            else:
                self.finish_deletion(PodRunner(self, pod))
            return
        if uid in self.runners or phase in ("Succeeded", "Failed"):
            return
        runner = PodRunner(self, pod)
        self.runners[uid] = runner
        runner.start()

    def fail_orphans(self) -> None:
        """Pods this node ran before it restarted cannot be reattached: report them failed."""
        reply = cast(Any, self.core.list_pod_for_all_namespaces)(
            field_selector=f"spec.nodeName={self.name}", _preload_content=False
        )
        for p in json.loads(reply.data)["items"]:
            meta, phase = p["metadata"], p.get("status", {}).get("phase")
            if phase in ("Pending", "Running") and not meta.get("deletionTimestamp"):
                with contextlib.suppress(ApiException):
                    self.core.patch_namespaced_pod_status(
                        meta["name"],
                        meta["namespace"],
                        {
                            "status": {
                                "phase": "Failed",
                                "reason": "NodeStandInRestarted",
                                "message": "the node stand-in restarted and cannot reattach to this pod's "
                                "processes",
                            }
                        },
                    )

    def run(self) -> None:
        self.register()
        self.fail_orphans()
        threading.Thread(target=self.heartbeat, daemon=True).start()
        rv = ""
        while not self.stopping.is_set():
            try:
                if not rv:
                    lst = cast(Any, self.core.list_pod_for_all_namespaces)(_preload_content=False)
                    data = json.loads(lst.data)
                    for item in data["items"]:
                        self.handle("ADDED", item)
                    rv = data["metadata"]["resourceVersion"]
                w = cast(Any, watch).Watch()
                for ev in w.stream(
                    self.core.list_pod_for_all_namespaces,
                    resource_version=rv,
                    timeout_seconds=60,
                    allow_watch_bookmarks=True,
                ):
                    obj = ev["raw_object"]
                    rv = obj.get("metadata", {}).get("resourceVersion", rv)
                    if ev["type"] in ("ADDED", "MODIFIED", "DELETED"):
                        self.handle(ev["type"], obj)
                    if self.stopping.is_set():
                        break
            except ApiException as e:
                if e.status == 410:
                    rv = ""
                else:
                    log.warning("pod watch failed", status=e.status)
                    time.sleep(1)
            except Exception as e:
                log.warning("pod watch failed", error=str(e))
                time.sleep(1)

    def shutdown(self) -> None:
        self.stopping.set()
        for r in list(self.runners.values()):
            r._kill([*r.runs, *r.init_runs], 2)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m proctor.devcluster.node", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"))
    p.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "proctor-node")
    p.add_argument("--name", default="proctor-node")
    p.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="run image NAME (last path component, no tag) with COMMAND as its entrypoint",
    )
    args = p.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(20))
    cast(Any, config).load_kube_config(config_file=args.kubeconfig)
    images = default_images()
    for item in [*args.image, *filter(None, os.environ.get("PROCTOR_NODE_IMAGES", "").split(";"))]:
        name, _, cmd = item.partition("=")
        images[name.strip()] = shlex.split(cmd)
    args.dir.mkdir(parents=True, exist_ok=True)
    node = Node(args.name, args.dir, images)

    def on_term(*_: Any) -> None:
        node.shutdown()
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        node.run()
    except KeyboardInterrupt:
        node.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
