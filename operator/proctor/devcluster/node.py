"""A node stand-in: runs the pods of the local control plane as local processes.

There is no kubelet and no container runtime on the local control plane, so this process plays
both. It registers a Node, binds unscheduled pods to itself (there is no scheduler either), and
runs each pod's containers as local processes with the pod's command, args and environment:
native sidecars (init containers with ``restartPolicy: Always``) and init containers in order,
then the containers; sidecars stop last. It reports pod status as a kubelet does, with the same
waiting reasons, phases and conditions (:mod:`proctor.devcluster.podstatus`), so the real Job,
ReplicaSet and garbage-collector controllers do the rest and a failure reads as it would on a
real node:

- an image no local command maps to: the container waits in ``ErrImagePull`` then
  ``ImagePullBackOff`` (retried with the kubelet's back-off, 10 s doubling to 5 min) and the pod
  stays Pending;
- a missing Secret, ConfigMap or key (``secretKeyRef``, ``configMapKeyRef``, ``envFrom``):
  ``CreateContainerConfigError`` with the kubelet's message, retried until it appears;
- a container that exits and is restarted: ``CrashLoopBackOff`` with the previous run in
  ``lastState`` (back-off 0.5 s doubling to 10 s, shorter than the kubelet's 10 s to 5 min);
- startup, readiness and liveness probes (HTTP, TCP, exec; named ports), on the pod's address;
- a service-account token that cannot be issued (the namespace is being deleted): the pod waits
  in ``ContainerCreating`` and retries with a growing delay, as a kubelet whose volume mount fails.

The ServiceAccount token reaches a container as a kubelet gives it: only a container that mounts a
volume projecting it (``projected.sources[].serviceAccountToken``, with its audience and lifetime)
gets one, as a kubeconfig in ``KUBECONFIG`` (standing in for the mounted files). The API server's
ServiceAccount admission adds that volume and a mount in every container unless the pod says
``automountServiceAccountToken: false``; a pod that mounts a projected token into one container
alone (a judge Job: the judge, not its candidate sidecars) gives it to that one alone. A projected
token for another audience (the judge's for the operator's case server) is requested the same way,
bound to the pod, and written as the file its source names, in a directory of the pod's that a
container mounting the volume finds through ``PROCTOR_NODE_MOUNTS`` (it cannot mount at the path).

Each pod gets a loopback address of its own (:meth:`Node.allocate_ip`), never reused; Python
processes of the pod bind IPv4 wildcard addresses to it (:mod:`proctor.devcluster.podnet`).
Logs are files under ``DIR/logs/NAMESPACE_POD_UID/CONTAINER/N.log`` (N counts restarts) and are
served to ``kubectl logs`` through the API server by the node's kubelet endpoint
(:mod:`proctor.devcluster.logserver`).

It is a test and demo tool, not a kubelet. What it does not do: isolation (processes share the
host's filesystem, user and, apart from wildcard binds in Python, its network: a process could read
another container's kubeconfig file or environment, which a container runtime forbids), mount
namespaces (volumes are directories under the stand-in's own directory, named to a container
through its command, args and environment: :mod:`proctor.devcluster.volumes`), resource limits,
security contexts, image pulls. Images are
mapped to local commands: the project's own image (any reference whose last path component is
``proctor``) runs the installed ``proctor`` entry point; more can be added with
``--image NAME=COMMAND`` or ``PROCTOR_NODE_IMAGES``. A container's termination message is what it
wrote to the file named by ``PROCTOR_NODE_TERMINATION_LOG`` (standing in for its
``terminationMessagePath``, which cannot be given to a host process), else the tail of its output
when it fails.
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

from proctor.devcluster import podnet, podstatus, volumes
from proctor.devcluster.logserver import KubeletServer, LogError, LogTarget, tail_offset
from proctor.k8s.evidence import NODE_TERMINATION_LOG_ENV
from proctor.k8s.objects import NODE_MOUNTS_ENV

log = structlog.get_logger("proctor.node")

#: A failed container's termination message when its termination log is empty: the tail of its log,
#: at most 80 lines and 2048 bytes, as the kubelet's FallbackToLogsOnError reads it (the stand-in
#: uses it whatever the policy). What it wrote to its termination log comes first, as on a kubelet
#: (at most 4096 bytes).
TERMINATION_MESSAGE_LINES = 80
TERMINATION_MESSAGE_BYTES = 2048
TERMINATION_LOG_BYTES = 4096
PROBES = ("startupProbe", "readinessProbe", "livenessProbe")
#: Pod addresses: 127.1.0.1 to 127.254.255.254, the host's own 127.0.0.0/16 left alone.
_LOOPBACK_POD_ADDRESSES = 254 * 256 * 254
#: The kubelet's image pull back-off (``pkg/kubelet/kubelet.go``): 10 s doubling to 5 min.
IMAGE_BACK_OFF = (10.0, 300.0)
#: Restart back-off of a container that exited: 0.5 s doubling to 10 s (the kubelet's is 10 s
#: doubling to 5 min; shorter here so tests of a crashing sidecar wait less). As on a kubelet, the
#: first restart is immediate and the back-off starts again after 10 minutes without a crash.
CRASH_BACK_OFF = (0.5, 10.0)
BACK_OFF_RESET = 600.0
#: After a failed start (configuration error, image pull) the pod is synced again this soon; the
#: kubelet waits 10-15 s (its pod worker's back-off), the stand-in 1 s.
SYNC_RETRY = 1.0
#: A service-account token that cannot be issued is retried after 0.5 s doubling to 2 min, as
#: the kubelet's volume manager retries a failed mount.
TOKEN_BACK_OFF = (0.5, 122.0)
#: Repeats of one Event within this many seconds are not posted again.
EVENT_REPEAT = 60.0
_TICK = 0.1


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def image_name(image: str) -> str:
    """``ghcr.io/proctor-dev/proctor:0.1.0@sha256:..`` -> ``proctor``."""
    ref = image.split("@", 1)[0]
    last = ref.rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def pull_name(image: str) -> str:
    """The image as the kubelet names it in pull messages: ``:latest`` added when untagged."""
    ref = image.split("@", 1)[0]
    if "@" in image or ":" in ref.rsplit("/", 1)[-1]:
        return image
    return f"{image}:latest"


def default_images() -> dict[str, list[str]]:
    bindir = Path(sys.executable).parent
    proctor = bindir / "proctor"
    entry = [str(proctor)] if proctor.exists() else [sys.executable, "-m", "proctor.cli"]
    return {"proctor": entry}


def back_off(failures: int, limits: tuple[float, float]) -> float:
    """The delay after the ``failures``-th failure in a row: ``limits[0]`` doubling to ``limits[1]``."""
    base, top = limits
    return float(min(top, base * 2 ** max(0, failures - 1)))


def _pdeathsig() -> None:  # pragma: no cover - runs between fork and exec
    import ctypes

    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)
    os.setsid()


@dataclass
class ContainerRun:
    """One container across its restarts, and what the kubelet would report about it."""

    spec: dict[str, Any]
    log_dir: Path
    sidecar: bool = False
    init: bool = False
    proc: subprocess.Popen[bytes] | None = None
    container_id: str = ""
    attempts: int = 0
    log_path: Path | None = None
    termination_log: Path | None = None
    started_at: str | None = None
    finished_at: str | None = None
    finished_mono: float = 0.0
    exit_code: int | None = None
    reason: str | None = None
    message: str | None = None
    #: ``lastState.terminated`` and the log of that run
    last: dict[str, Any] | None = None
    last_log: Path | None = None
    #: an explicit waiting reason and message (pull, configuration, crash back-off)
    waiting: tuple[str, str] | None = None
    ready: bool = False
    started: bool = False
    restarts: int = 0
    #: terminated for good: will not be restarted
    done: bool = False
    image_id: str = ""
    next_try: float = 0.0
    pull_failures: int = 0
    pull_until: float = 0.0
    pull_error: str = ""
    crashes: int = 0
    last_crash: float = 0.0
    restart_at: float | None = None
    before: tuple[dict[str, Any] | None, Path | None] = (None, None)
    probe_stop: threading.Event = field(default_factory=threading.Event)

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    @property
    def image(self) -> str:
        return str(self.spec.get("image", ""))

    @property
    def running(self) -> bool:
        return self.proc is not None and self.exit_code is None

    @property
    def completed(self) -> bool:
        return self.exit_code == 0 and self.waiting is None

    def status(self, default_waiting: str) -> dict[str, Any]:
        st: dict[str, Any] = {
            "name": self.name,
            "image": self.image,
            "imageID": self.image_id,
            # a completed init container is ready, as the kubelet's prober manager marks it
            "ready": (self.ready and self.running) or (self.init and not self.sidecar and self.completed),
            "restartCount": self.restarts,
            "started": self.started and self.running,
            "lastState": {"terminated": self.last} if self.last else {},
        }
        if self.container_id:
            st["containerID"] = self.container_id
        if self.running:
            st["state"] = {"running": {"startedAt": self.started_at}}
        elif self.waiting is not None:
            reason, message = self.waiting
            st["state"] = {"waiting": {"reason": reason, **({"message": message} if message else {})}}
        elif self.exit_code is not None:
            st["state"] = {"terminated": self.terminated()}
        else:
            st["state"] = {"waiting": {"reason": default_waiting}}
        return st

    def terminated(self) -> dict[str, Any]:
        term: dict[str, Any] = {
            "exitCode": self.exit_code,
            "reason": self.reason or ("Completed" if self.exit_code == 0 else "Error"),
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "containerID": self.container_id,
        }
        if self.message:
            term["message"] = self.message
        return term


class PodStopped(Exception):
    """The pod was deleted while it ran."""


class DeadlineExceeded(Exception):
    pass


class MissingRef(Exception):
    """A Secret, ConfigMap or key the container's environment needs does not exist (yet)."""


class TokenUnavailable(Exception):
    """The pod's service-account token could not be issued."""


class PodRunner(threading.Thread):
    """Runs one pod to the end and reports its status, as a kubelet's pod worker does."""

    def __init__(self, node: Node, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        super().__init__(name=f"pod-{meta['namespace']}/{meta['name']}", daemon=True)
        self.node = node
        self.pod = pod
        self.ns: str = meta["namespace"]
        self.pod_name: str = meta["name"]
        self.uid: str = meta["uid"]
        self.desc = podstatus.pod_desc(self.pod_name, self.ns, self.uid)
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        spec = pod["spec"]
        self.restart_policy: str = spec.get("restartPolicy", "Always")
        logs = node.dir / "logs" / f"{self.ns}_{self.pod_name}_{self.uid}"
        self.init_runs = [
            ContainerRun(c, logs / c["name"], init=True, sidecar=podstatus.is_sidecar(c))
            for c in spec.get("initContainers", []) or []
        ]
        self.runs = [ContainerRun(c, logs / c["name"]) for c in spec.get("containers", [])]
        self.default_waiting = podstatus.POD_INITIALIZING if self.init_runs else podstatus.CONTAINER_CREATING
        self.sandbox_ready = False
        self.terminal = False
        self.deleted = False
        self.initialized = False
        #: the phase (with reason and message) a terminated pod ends in, when not its containers'
        self.final: tuple[str, str | None, str | None] | None = None
        self.start_time = now()
        self.t0 = time.monotonic()
        self.workdir = node.dir / "pods" / self.uid
        self.ip = node.allocate_ip(self.uid)
        #: a kubeconfig per projected ServiceAccount-token volume (what a container that mounts it gets)
        self.kubeconfigs: dict[str, Path] = {}
        #: each volume's directory on the host, by name (proctor.devcluster.volumes)
        self.volumes: dict[str, Path] = {}
        #: a directory holding the token file, per projected token volume for another audience
        self.token_dirs: dict[str, Path] = {}
        self.token_failures = 0
        self._last_status = ""
        self._conds: list[dict[str, Any]] = []

    @property
    def all_runs(self) -> list[ContainerRun]:
        return [*self.init_runs, *self.runs]

    def run_named(self, name: str) -> ContainerRun | None:
        return next((r for r in self.all_runs if r.name == name), None)

    # -- reporting --------------------------------------------------------------------------------
    def pod_status(self) -> dict[str, Any]:
        """The status a kubelet would write now (conditions without transition times)."""
        spec = self.pod["spec"]
        init = [r.status(self.default_waiting) for r in self.init_runs]
        main = sorted((r.status(self.default_waiting) for r in self.runs), key=lambda s: s["name"])
        started_ever = any(r.attempts for r in self.runs)
        if self.final:
            phase = self.final[0]
        else:
            phase = podstatus.phase(
                spec, init, main, terminal=self.terminal, has_initialized=any(r.running for r in self.runs)
            )
        status: dict[str, Any] = {
            "phase": phase,
            "hostIP": "127.0.0.1",
            "hostIPs": [{"ip": "127.0.0.1"}],
            "podIP": self.ip,
            "podIPs": [{"ip": self.ip}],
            "startTime": self.start_time,
            "initContainerStatuses": init,
            "containerStatuses": main,
            "conditions": podstatus.conditions(
                spec,
                init,
                main,
                phase,
                sandbox_ready=self.sandbox_ready and not self.terminal,
                has_initialized=started_ever,
            ),
        }
        if self.final and self.final[1]:
            status["reason"], status["message"] = self.final[1:]
        return status

    def report(self) -> None:
        status = self.pod_status()
        key = json.dumps(status, sort_keys=True)
        if key == self._last_status or self.deleted:
            return
        # lastTransitionTime only moves when a condition's status changes
        status["conditions"] = self._merge_conditions(status["conditions"])
        try:
            self.node.core.patch_namespaced_pod_status(self.pod_name, self.ns, {"status": status})
            self._last_status = key
        except ApiException as e:
            if e.status == 404:
                self.deleted = True
                self.stop_event.set()
            else:
                log.warning("pod status update failed", pod=f"{self.ns}/{self.pod_name}", status=e.status)

    def _merge_conditions(self, new: list[dict[str, Any]]) -> list[dict[str, Any]]:
        old = {c["type"]: c for c in self._conds}
        t = now()
        out = []
        for c in new:
            prev = old.get(c["type"])
            moved = prev is None or prev["status"] != c["status"]
            # reason and message sent even when empty: a merge patch keeps what it is not told to drop
            out.append(
                {
                    "reason": None,
                    "message": None,
                    **c,
                    "lastTransitionTime": t if moved else prev["lastTransitionTime"],  # type: ignore[index]
                }
            )
        self._conds = out
        return out

    def event(self, type_: str, reason: str, message: str, run: ContainerRun | None = None) -> None:
        self.node.event(self, type_, reason, message, run)

    # -- environment ------------------------------------------------------------------------------
    def _env(self, c: dict[str, Any]) -> dict[str, str]:
        env: dict[str, str] = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.workdir),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOSTNAME": self.pod["spec"].get("hostname") or self.pod_name,
            # stand-in only: lets a local command behave as the image version it stands for
            "PROCTOR_NODE_IMAGE": str(c.get("image", "")),
            # stand-in only: Python processes bind wildcard addresses to the pod's own address
            podnet.POD_IP_ENV: self.ip,
        }
        # the token as a kubelet hands it out: only to a container that mounts a volume projecting it
        # (the ServiceAccount admission plugin adds such a mount to every container unless the pod
        # says automountServiceAccountToken: false)
        for mount in c.get("volumeMounts", []) or []:
            if (kc := self.kubeconfigs.get(mount.get("name", ""))) is not None:
                env["KUBECONFIG"] = str(kc)
                break
        # every mount's directory (a token for another audience among them: the operator's case
        # server's), for a process that names a mount path in its own code rather than in its
        # command or environment (which the stand-in translates): see proctor.k8s.objects.mounted
        files = {mp: str(host) for mp, host in volumes.container_mounts(c, self.volumes).paths}
        if files:
            env[NODE_MOUNTS_ENV] = json.dumps(files)
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
            if item.get("value"):
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
        own = env.get("PYTHONPATH")
        env["PYTHONPATH"] = os.pathsep.join([str(self.node.podnet_dir), *([own] if own else [])])
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
            "status.podIPs": self.ip,
            "status.hostIP": "127.0.0.1",
            "status.hostIPs": "127.0.0.1",
        }
        return fields.get(path, "")

    # -- the sandbox ------------------------------------------------------------------------------
    def _prepare(self) -> bool:
        """Mount what the containers need (the service-account token): True once done."""
        if self.sandbox_ready:
            return True
        if time.monotonic() < self.token_retry_at:
            return False
        for name, source in token_volumes(self.pod).items():
            try:
                if source.get("audience"):
                    self.token_dirs[name] = self.node.pod_token_dir(self.pod, self.workdir / name, source)
                else:
                    self.kubeconfigs[name] = self.node.pod_kubeconfig(self.pod, self.workdir / name, source)
            except TokenUnavailable as e:
                self.token_failures += 1
                delay = back_off(self.token_failures, TOKEN_BACK_OFF)
                self.token_retry_at = time.monotonic() + delay
                self.event(
                    "Warning",
                    "FailedMount",
                    f'MountVolume.SetUp failed for volume "{name}" : failed to fetch token: {e}',
                )
                log.info(
                    "service-account token unavailable; retrying",
                    pod=f"{self.ns}/{self.pod_name}",
                    retry_in=delay,
                    error=str(e),
                )
                return False
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self.volumes = volumes.materialize(
                self.pod,
                self.workdir,
                self.node.dir / "volumes",
                lambda kind, name, optional: (
                    self.node.read_secret if kind == "Secret" else self.node.read_configmap
                )(self.ns, name, optional=optional),
                self._field,
                lambda name: volumes.token_of(kc) if (kc := self.kubeconfigs.get(name)) else None,
                dirs=self.token_dirs,
            )
        except (MissingRef, volumes.VolumeRefused) as e:
            self.token_failures += 1
            self.token_retry_at = time.monotonic() + back_off(self.token_failures, TOKEN_BACK_OFF)
            self.event("Warning", "FailedMount", f"MountVolume.SetUp failed: {e}")
            return False
        self.sandbox_ready = True
        return True

    token_retry_at = 0.0

    # -- processes --------------------------------------------------------------------------------
    def _pull(self, run: ContainerRun, t: float) -> list[str] | None:
        """The image's local command, or None while its "pull" fails (the waiting reason set)."""
        entry = self.node.images.get(image_name(run.image))
        if entry is not None:
            if not run.image_id:
                run.image_id = f"proctor-node://{image_name(run.image)}"
            run.pull_failures = 0
            return entry
        image = pull_name(run.image)
        if t < run.pull_until:
            if run.waiting and run.waiting[0] == podstatus.ERR_IMAGE_PULL and t >= run.next_try:
                run.waiting = (
                    podstatus.IMAGE_PULL_BACK_OFF,
                    podstatus.image_back_off_message(image, run.pull_error),
                )
                self.event("Normal", "BackOff", f'Back-off pulling image "{image}"', run)
                self.event("Warning", "Failed", f"Error: {podstatus.IMAGE_PULL_BACK_OFF}", run)
            return None
        run.pull_failures += 1
        run.pull_until = t + back_off(run.pull_failures, IMAGE_BACK_OFF)
        run.next_try = t + SYNC_RETRY
        run.pull_error = podstatus.image_pull_message(image, list(self.node.images))
        run.waiting = (podstatus.ERR_IMAGE_PULL, run.pull_error)
        self.event("Normal", "Pulling", f'Pulling image "{image}"', run)
        self.event("Warning", "Failed", f'Failed to pull image "{image}": {run.pull_error}', run)
        self.event("Warning", "Failed", f"Error: {podstatus.ERR_IMAGE_PULL}", run)
        return None

    def _try_start(self, run: ContainerRun) -> None:
        """One start attempt, as one kubelet sync would make it; sets the waiting reason if not."""
        t = time.monotonic()
        if run.exit_code is not None and not self._crash_wait_over(run, t):
            return
        entry = self._pull(run, t)
        if entry is None:
            return
        if t < run.next_try:
            return
        try:
            env = self._env(run.spec)
        except MissingRef as e:
            run.next_try = t + SYNC_RETRY
            if run.waiting != (podstatus.CREATE_CONTAINER_CONFIG_ERROR, str(e)):
                run.waiting = (podstatus.CREATE_CONTAINER_CONFIG_ERROR, str(e))
            self.event("Warning", "Failed", f"Error: {e}", run)
            return
        self._start(run, entry, env)

    def _crash_wait_over(self, run: ContainerRun, t: float) -> bool:
        """For a container that exited and is to be restarted: is its back-off over?

        As the kubelet: the first restart is immediate, each later one waits twice as long as the
        one before (up to the limit), and ten minutes without a crash start the count afresh."""
        if run.restart_at is None:
            if run.finished_mono - run.last_crash > BACK_OFF_RESET:
                run.crashes = 0
            delay = back_off(run.crashes, CRASH_BACK_OFF) if run.crashes else 0.0
            run.crashes += 1
            run.last_crash = run.finished_mono
            run.restart_at = run.finished_mono + delay
            # the run that ended becomes the last state, as the kubelet shows a container restarting
            run.before = (run.last, run.last_log)
            run.last, run.last_log = run.terminated(), run.log_path
            if delay:
                run.waiting = (
                    podstatus.CRASH_LOOP_BACK_OFF,
                    podstatus.crash_back_off_message(delay, run.name, self.desc),
                )
                self.event(
                    "Warning",
                    "BackOff",
                    f"Back-off restarting failed container {run.name} in pod {self.desc}",
                    run,
                )
        return t >= run.restart_at

    def _start(self, run: ContainerRun, entry: list[str], env: dict[str, str]) -> None:
        command = run.spec.get("command") or entry
        cwd = self.workdir / run.name
        cwd.mkdir(parents=True, exist_ok=True)
        # its volumes, where its own words name their mount paths (see proctor.devcluster.volumes)
        mounts = volumes.container_mounts(run.spec, self.volumes)
        (cwd / "tmp").mkdir(exist_ok=True)
        env = mounts.environment(env, run.spec, cwd / "tmp")
        argv = [_expand(mounts.translate(a), env) for a in [*command, *(run.spec.get("args") or [])]]
        workdir = mounts.translate(run.spec["workingDir"]) if run.spec.get("workingDir") else None
        run.log_dir.mkdir(parents=True, exist_ok=True)
        if run.attempts >= 2:  # the kubelet keeps the current and the previous run's log
            (run.log_dir / f"{run.attempts - 2}.log").unlink(missing_ok=True)
        run.log_path = run.log_dir / f"{run.attempts}.log"
        # the container's terminationMessagePath, as a file of its own run (empty at each start)
        run.termination_log = cwd / "termination-log"
        run.termination_log.write_bytes(b"")
        env = {**env, NODE_TERMINATION_LOG_ENV: str(run.termination_log)}
        if run.attempts:
            run.restarts += 1
        run.attempts += 1
        run.container_id = f"proctor-node://{secrets.token_hex(16)}"
        run.waiting, run.restart_at, run.ready, run.started = None, None, False, False
        run.started_at, run.finished_at = now(), None
        run.exit_code, run.reason, run.message = None, None, None
        fh = run.log_path.open("ab")
        try:
            run.proc = subprocess.Popen(
                argv,
                stdout=fh,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=workdir or cwd,
                preexec_fn=_pdeathsig,
            )
        except OSError as e:
            run.proc = None
            run.exit_code, run.reason = 128, "StartError"
            run.message = f"failed to start container process: exec: {argv[0]!r}: {e.strerror}"
            run.finished_at, run.finished_mono = now(), time.monotonic()
            self.event("Warning", "Failed", f"Error: {run.message}", run)
            return
        finally:
            fh.close()
        run.probe_stop = threading.Event()
        probes = {k: run.spec[k] for k in PROBES if run.spec.get(k)}
        if probes:
            prober = threading.Thread(target=self._probe_loop, args=(run, run.proc, probes, env), daemon=True)
            prober.start()
        else:
            run.started = run.ready = True
        self.event("Normal", "Started", f"Started container {run.name}", run)
        log.info("container started", pod=f"{self.ns}/{self.pod_name}", container=run.name, pid=run.proc.pid)

    def _probe_loop(
        self,
        run: ContainerRun,
        proc: subprocess.Popen[bytes],
        probes: dict[str, dict[str, Any]],
        env: dict[str, str],
    ) -> None:
        """Startup, then readiness and liveness probes, until the process ends.

        A startup or liveness probe failing ``failureThreshold`` times in a row kills the
        container (it is then restarted as its restart policy says), as on a kubelet; periods are
        capped at 2 s so that tests do not wait on them."""
        stop = run.probe_stop

        def alive() -> bool:
            return not stop.is_set() and proc.poll() is None

        def period(p: dict[str, Any]) -> float:
            return max(0.25, min(float(p.get("periodSeconds", 10)), 2.0))

        def kill(which: str) -> None:
            self.event(
                "Normal", "Killing", f"Container {run.name} failed {which} probe, will be restarted", run
            )
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)

        if startup := probes.get("startupProbe"):
            stop.wait(float(startup.get("initialDelaySeconds", 0)))
            failures = 0
            while alive():
                if self._probe(run, startup, env):
                    break
                failures += 1
                if failures >= int(startup.get("failureThreshold", 3)):
                    kill("startup")
                    return
                stop.wait(period(startup))
        if not alive():
            return
        run.started = True
        readiness, liveness = probes.get("readinessProbe"), probes.get("livenessProbe")
        if readiness is None:
            run.ready = True
        self.wake.set()
        t0 = time.monotonic()
        due = {
            k: t0 + float(p.get("initialDelaySeconds", 0))
            for k, p in (("readiness", readiness), ("liveness", liveness))
            if p is not None
        }
        counts = {"liveness": 0}
        streak = {"ok": 0, "failed": 0}
        while alive() and due:
            which = min(due, key=lambda k: due[k])
            stop.wait(max(0.0, due[which] - time.monotonic()))
            if not alive():
                return
            p = readiness if which == "readiness" else liveness
            assert p is not None
            ok = self._probe(run, p, env)
            due[which] = time.monotonic() + period(p)
            if which == "readiness":
                # readiness flips after successThreshold successes or failureThreshold failures in a row
                streak["ok" if ok else "failed"] += 1
                streak["failed" if ok else "ok"] = 0
                if not run.ready and streak["ok"] >= int(p.get("successThreshold", 1)):
                    run.ready = True
                    self.wake.set()
                elif run.ready and streak["failed"] >= int(p.get("failureThreshold", 3)):
                    run.ready = False
                    self.wake.set()
            else:
                counts["liveness"] = 0 if ok else counts["liveness"] + 1
                if counts["liveness"] >= int(p.get("failureThreshold", 3)):
                    kill("liveness")
                    return

    def _probe(self, run: ContainerRun, probe: dict[str, Any], env: dict[str, str]) -> bool:
        return _probe(probe, env, self.ip, run.spec.get("ports") or [])

    def _reap(self, run: ContainerRun, code: int) -> None:
        run.probe_stop.set()
        run.exit_code, run.finished_at, run.finished_mono = code, now(), time.monotonic()
        run.ready = run.started = False
        if code < 0:
            run.exit_code = 128 - code
            run.reason = "Error"
        written = b""
        if run.termination_log is not None:
            with contextlib.suppress(OSError):
                written = run.termination_log.read_bytes()[:TERMINATION_LOG_BYTES]
        if written:
            run.message = written.decode("utf-8", "replace")
        elif run.exit_code != 0 and run.log_path is not None:
            with contextlib.suppress(OSError), run.log_path.open("rb") as fh:
                fh.seek(tail_offset(fh, TERMINATION_MESSAGE_LINES))
                tail = fh.read()[-TERMINATION_MESSAGE_BYTES:].decode("utf-8", "replace")
                run.message = tail or None
        log.info("container exited", pod=f"{self.ns}/{self.pod_name}", container=run.name, code=run.exit_code)

    def _kill(self, runs: list[ContainerRun], grace: float) -> None:
        live = [r for r in runs if r.running]
        for r in live:
            self.event("Normal", "Killing", f"Stopping container {r.name}", r)
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
        for r in runs:
            r.done = True

    def _check_stop(self) -> None:
        if self.stop_event.is_set():
            raise PodStopped
        deadline = self.pod["spec"].get("activeDeadlineSeconds")
        if deadline is not None and time.monotonic() - self.t0 > float(deadline):
            raise DeadlineExceeded

    # -- the pod's life ---------------------------------------------------------------------------
    def run(self) -> None:
        grace = min(float(self.pod["spec"].get("terminationGracePeriodSeconds", 30)), 10.0)
        try:
            self.report()
            while True:
                self._check_stop()
                if self._sync():
                    break
                self.report()
                self.wake.wait(_TICK)
                self.wake.clear()
        except DeadlineExceeded:
            self._kill(self.all_runs, grace)
            self.final = ("Failed", podstatus.DEADLINE_EXCEEDED, podstatus.DEADLINE_MESSAGE)
            self.event("Normal", podstatus.DEADLINE_EXCEEDED, podstatus.DEADLINE_MESSAGE)
        except PodStopped:
            self._kill(self.all_runs, grace)
        except Exception as e:  # the pod must never hang in Running because the stand-in broke
            log.exception("pod runner failed", pod=f"{self.ns}/{self.pod_name}")
            self._kill(self.all_runs, 1.0)
            self.final = ("Failed", "NodeStandInError", f"{type(e).__name__}: {e}")
        self._terminate()
        self.report()
        if self.stop_event.is_set():
            self.node.finish_deletion(self)

    def _terminate(self) -> None:
        """The pod's last status, as the kubelet's status manager writes it for a terminated pod:
        a container that never ran (of an initialized pod) shows as ``ContainerStatusUnknown``
        137, a crash-looping one as its last run, and a pod not yet finished as Failed."""
        self.terminal = True
        for r in self.all_runs:
            r.probe_stop.set()
            r.done = True
            pending = r.exit_code is None
            if r.restart_at is not None and not pending:  # it never restarted: show its last run
                r.last, r.last_log = r.before
            r.waiting = None
            if pending and (r.attempts if r.init else self.initialized or not self.init_runs):
                r.exit_code, r.reason = 137, "ContainerStatusUnknown"
                r.message = "The container could not be located when the pod was terminated"
        if self.final is None and self.pod_status()["phase"] in ("Pending", "Running"):
            self.final = ("Failed", None, None)

    def _sync(self) -> bool:
        """One pass of the pod worker: reap, start what may start. True when the pod is done."""
        for r in self.all_runs:
            if r.running and (code := r.proc.poll()) is not None:  # type: ignore[union-attr]
                self._reap(r, code)
                if r.init and not r.sidecar and code == 0:
                    r.done = True
        if not self._prepare():
            return False
        if not self.initialized:
            for r in self.init_runs:
                if r.sidecar:
                    if not r.running:
                        self._try_start(r)
                    if r.running and r.started:
                        continue  # the next one starts once a sidecar has started
                    break
                if r.done:
                    continue
                if r.exit_code is not None and self.restart_policy == "Never":
                    self._kill([s for s in self.init_runs if s.sidecar], 10)
                    r.done = True
                    return True  # an init container failed: the pod failed
                if not r.running:
                    self._try_start(r)
                break
            else:
                self.initialized = True
        if not self.initialized:
            return False
        for s in self.init_runs:
            if s.sidecar and not s.running:
                self._try_start(s)
        for r in self.runs:
            if r.running or r.done:
                continue
            if r.exit_code is not None and not (
                self.restart_policy == "Always" or (self.restart_policy == "OnFailure" and r.exit_code != 0)
            ):
                r.done = True
                continue
            self._try_start(r)
        if all(r.done for r in self.runs):
            # main containers are done: sidecars stop after them, in reverse order, as on a kubelet
            self._kill(list(reversed([s for s in self.init_runs if s.sidecar])), 10)
            return True
        return False

    # -- logs -------------------------------------------------------------------------------------
    def log_target(self, container: str, previous: bool) -> LogTarget:
        run = self.run_named(container)
        if run is None:
            raise LogError(404, f'container "{container}" not found in pod "{self.pod_name}"')
        why = podstatus.logs_unavailable(run.status(self.default_waiting), self.pod_name, previous)
        if why:
            raise LogError(400, why)
        proc = run.proc
        if not previous and run.running and run.log_path is not None:
            return LogTarget(run.log_path, lambda: proc is not None and proc.poll() is None)
        # a restarting container's logs are those of its last run (lastState), as on a kubelet
        path = run.last_log if previous or run.exit_code is None or run.waiting else run.log_path
        if path is None:
            raise LogError(400, f'container "{container}" in pod "{self.pod_name}" is terminated')
        return LogTarget(path, lambda: False)


def token_volumes(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The pod's volumes that project a ServiceAccount token, each with its token source."""
    out: dict[str, dict[str, Any]] = {}
    for volume in pod["spec"].get("volumes", []) or []:
        for src in (volume.get("projected") or {}).get("sources", []) or []:
            if "serviceAccountToken" in src:
                out[volume["name"]] = dict(src["serviceAccountToken"] or {})
                break
    return out


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


def probe_port(port: Any, ports: list[dict[str, Any]]) -> int:
    """A probe's port: a number, or the name of one of the container's ``ports``."""
    if isinstance(port, int) or (isinstance(port, str) and port.isdigit()):
        return int(port)
    for p in ports:
        if p.get("name") == port:
            return int(p["containerPort"])
    raise ValueError(f"port {port!r} is not a number and no container port has that name")


def _probe(
    probe: dict[str, Any], env: dict[str, str], ip: str, ports: list[dict[str, Any]] | None = None
) -> bool:
    """One probe of a container of the pod at ``ip``, as the kubelet makes it."""
    timeout = float(probe.get("timeoutSeconds", 1))
    try:
        if hg := probe.get("httpGet"):
            scheme = hg.get("scheme", "HTTP").lower()
            host = hg.get("host") or ip
            url = f"{scheme}://{host}:{probe_port(hg['port'], ports or [])}{hg.get('path', '/')}"
            headers = {"User-Agent": "kube-probe/1.34"}
            headers |= {h["name"]: h["value"] for h in hg.get("httpHeaders") or []}
            req = urllib.request.Request(url, headers=headers)
            ctx = None
            if scheme == "https":  # the kubelet does not verify a probe's certificate
                import ssl

                ctx = ssl._create_unverified_context()
            with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
                return 200 <= int(r.status) < 400
        if tcp := probe.get("tcpSocket"):
            with socket.create_connection(
                (tcp.get("host") or ip, probe_port(tcp["port"], ports or [])), timeout=timeout
            ):
                return True
        if ex := probe.get("exec"):
            return (
                subprocess.run(
                    ex["command"], env=env, timeout=timeout, capture_output=True, check=False
                ).returncode
                == 0
            )
        if grpc := probe.get("grpc"):  # no gRPC client here: a TCP connect stands in for it
            with socket.create_connection((ip, int(grpc["port"])), timeout=timeout):
                return True
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return False
    return True


@dataclass
class _EventRecord:
    name: str
    count: int
    posted: float


class Node:
    """Registers the node, binds and runs pods, keeps its heartbeat, serves logs."""

    def __init__(
        self,
        name: str,
        directory: Path,
        images: dict[str, list[str]],
        tls: tuple[Path, Path, Path] | None = None,
    ) -> None:
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
        self._events: dict[tuple[str, str, str, str], _EventRecord] = {}
        self._events_lock = threading.Lock()
        self.podnet_dir = directory / "podnet"
        self.tls = tls
        self.server: KubeletServer | None = None

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

    # -- object access ----------------------------------------------------------------------------
    def read_configmap(self, ns: str, name: str, *, optional: bool) -> dict[str, str] | None:
        try:
            return dict(self.core.read_namespaced_config_map(name, ns).data or {})
        except ApiException as e:
            if e.status == 404 and optional:
                return None
            if e.status == 404:
                raise MissingRef(f'configmap "{name}" not found') from e
            raise MissingRef(f'failed to get configmap "{name}": {_api_message(e)}') from e

    def read_secret(self, ns: str, name: str, *, optional: bool) -> dict[str, str] | None:
        try:
            data = self.core.read_namespaced_secret(name, ns).data or {}
        except ApiException as e:
            if e.status == 404 and optional:
                return None
            if e.status == 404:
                raise MissingRef(f'secret "{name}" not found') from e
            raise MissingRef(f'failed to get secret "{name}": {_api_message(e)}') from e
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

    def pod_token(self, pod: dict[str, Any], source: dict[str, Any]) -> str:
        """A token of the pod's ServiceAccount, as its projected ``serviceAccountToken`` source asks
        (audience, lifetime), bound to the pod (TokenRequest with a ``boundObjectRef``): the API server
        adds the pod's name and UID to what a TokenReview of it says, and it dies with the pod.
        Raises :class:`TokenUnavailable` when the API server refuses it."""
        meta, sa = pod["metadata"], pod["spec"].get("serviceAccountName") or "default"
        audience = source.get("audience")
        body = client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(
                audiences=[audience] if audience else [],
                expiration_seconds=int(source.get("expirationSeconds") or 3600),
                bound_object_ref=client.V1BoundObjectReference(
                    kind="Pod", api_version="v1", name=meta["name"], uid=meta["uid"]
                ),
            )
        )
        try:
            reply = self.core.create_namespaced_service_account_token(sa, meta["namespace"], body)
        except ApiException as e:
            raise TokenUnavailable(_api_message(e)) from None
        return str(reply.status.token if reply.status else "")

    def pod_token_dir(self, pod: dict[str, Any], workdir: Path, source: dict[str, Any]) -> Path:
        """The directory standing in for a projected token volume for another audience: the token in
        the file its source names (``path``), readable by the pod's processes only."""
        path = workdir / str(source.get("path") or "token")
        if path.exists():
            return workdir
        token = self.pod_token(pod, source)
        workdir.mkdir(parents=True, exist_ok=True)
        tmp = workdir / ".token.tmp"
        tmp.write_text(token)
        tmp.chmod(0o600)
        tmp.replace(path)
        return workdir

    def pod_kubeconfig(self, pod: dict[str, Any], workdir: Path, source: dict[str, Any]) -> Path:
        """A kubeconfig with a token bound to the pod's service account, as a projected
        ``serviceAccountToken`` volume source asks (its audience and lifetime).

        A container that mounts the volume then talks to the API as its service account, so RBAC is
        exercised as in a real cluster (a kubeconfig in ``KUBECONFIG`` stands in for the mounted
        token). Raises :class:`TokenUnavailable` when the API server refuses the token (a namespace
        being deleted takes no new tokens), for the caller to retry as a kubelet retries a mount."""
        path = workdir / "kubeconfig"
        if path.exists():
            return path
        meta, sa = pod["metadata"], pod["spec"].get("serviceAccountName") or "default"
        token = self.pod_token(pod, source)
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
        tmp = workdir / "kubeconfig.tmp"
        tmp.write_text(json.dumps(kc))
        tmp.chmod(0o600)
        tmp.replace(path)
        return path

    # -- events -----------------------------------------------------------------------------------
    def event(
        self, runner: PodRunner, type_: str, reason: str, message: str, run: ContainerRun | None
    ) -> None:
        """An Event on the pod from the kubelet, as ``kubectl describe pod`` lists them.

        Repeats of one (reason, message) are counted and posted again at most once a minute;
        refused posts (a namespace being deleted takes no new Events) are dropped."""
        key = (runner.uid, reason, message, run.name if run else "")
        t = time.monotonic()
        with self._events_lock:
            rec = self._events.get(key)
            if rec is not None:
                rec.count += 1
                if t - rec.posted < EVENT_REPEAT:
                    return
                rec.posted = t
        stamp = now()
        field_path = None
        if run is not None:
            kind = "initContainers" if run.init else "containers"
            field_path = f"spec.{kind}{{{run.name}}}"
        try:
            if rec is not None:
                self.core.patch_namespaced_event(
                    rec.name, runner.ns, {"count": rec.count, "lastTimestamp": stamp}
                )
                return
            name = f"{runner.pod_name}.{secrets.token_hex(8)}"
            body = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": runner.ns},
                "involvedObject": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": runner.pod_name,
                    "namespace": runner.ns,
                    "uid": runner.uid,
                    **({"fieldPath": field_path} if field_path else {}),
                },
                "reason": reason,
                "message": message[:1024],
                "type": type_,
                "source": {"component": "kubelet", "host": self.name},
                "reportingComponent": "kubelet",
                "reportingInstance": self.name,
                "firstTimestamp": stamp,
                "lastTimestamp": stamp,
                "count": 1,
            }
            self.core.create_namespaced_event(runner.ns, cast(Any, body))
            with self._events_lock:
                self._events[key] = _EventRecord(name, 1, t)
        except ApiException as e:
            if e.status not in (403, 404):
                log.debug("event not posted", pod=f"{runner.ns}/{runner.pod_name}", status=e.status)

    def forget_events(self, uid: str) -> None:
        with self._events_lock:
            for k in [k for k in self._events if k[0] == uid]:
                del self._events[k]

    # -- the kubelet endpoint ---------------------------------------------------------------------
    def log_target(self, ns: str, pod: str, container: str, previous: bool) -> LogTarget:
        matches = [r for r in list(self.runners.values()) if r.ns == ns and r.pod_name == pod]
        if not matches:
            raise LogError(404, f'pod "{pod}" does not exist')
        return max(matches, key=lambda r: r.t0).log_target(container, previous)

    def authorize(self, user: str, groups: tuple[str, ...]) -> bool:
        """May this user read logs from this node? A SubjectAccessReview for ``get nodes/proxy``,
        the question the kubelet's webhook authorizer asks for ``/containerLogs``."""
        body = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": user,
                "groups": list(groups),
                "resourceAttributes": {
                    "verb": "get",
                    "resource": "nodes",
                    "subresource": "proxy",
                    "name": self.name,
                },
            },
        }
        reply = client.AuthorizationV1Api(self.api).create_subject_access_review(cast(Any, body))
        return bool(reply.status and reply.status.allowed)

    def start_server(self) -> int:
        """Start the kubelet endpoint; the port to report (0 without TLS files: logs not served)."""
        if self.tls is None:
            log.warning("no --tls-cert-file/--tls-private-key-file/--client-ca-file: kubectl logs not served")
            return 0
        cert, key, ca = self.tls
        self.server = KubeletServer(
            "127.0.0.1", cert=cert, key=key, client_ca=ca, lookup=self.log_target, authorize=self.authorize
        )
        self.server.start()
        return self.server.port

    # -- node registration ------------------------------------------------------------------------
    def node_status(self, port: int = 0) -> dict[str, Any]:
        t = now()
        cond = [
            {
                "type": "Ready",
                "status": "True",
                "reason": "KubeletReady",
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
            "daemonEndpoints": {"kubeletEndpoint": {"Port": port}},
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
            },
        }

    def register(self, port: int) -> None:
        body = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "proctor.dev/node-standin": "true",
                },
            },
        }
        with contextlib.suppress(ApiException):
            self.core.create_node(cast(Any, body))
        self.core.patch_node_status(self.name, {"status": self.node_status(port)})

    def heartbeat(self) -> None:
        while not self.stopping.wait(10):
            try:
                conditions = self.node_status()["conditions"]
                self.core.patch_node_status(self.name, {"status": {"conditions": conditions}})
            except Exception as e:
                log.warning("node heartbeat failed", error=str(e))

    def write_podnet(self) -> None:
        """Put :mod:`proctor.devcluster.podnet` where the pods' ``PYTHONPATH`` finds it."""
        self.podnet_dir.mkdir(parents=True, exist_ok=True)
        (self.podnet_dir / "sitecustomize.py").write_text(Path(podnet.__file__).read_text())

    # -- pods -------------------------------------------------------------------------------------
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
            # 403: the namespace is being deleted, and its pods with it
            if e.status not in (403, 404, 409):
                log.warning("binding failed", pod=f"{meta['namespace']}/{meta['name']}", status=e.status)

    def finish_deletion(self, runner: PodRunner) -> None:
        if not runner.deleted:
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
        self.forget_events(runner.uid)

    def handle(self, kind: str, pod: dict[str, Any]) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        uid = meta["uid"]
        phase = pod.get("status", {}).get("phase", "Pending")
        if kind == "DELETED":
            if r := self.runners.get(uid):
                r.deleted = True
                r.stop_event.set()
                r.wake.set()
                if not r.is_alive():
                    self.runners.pop(uid, None)
                    self.forget_events(uid)
            return
        node_name = spec.get("nodeName")
        if not node_name:
            if (
                meta.get("deletionTimestamp") is None
                and spec.get("schedulerName", "default-scheduler") == "default-scheduler"
                and not spec.get("schedulingGates")  # a scheduler binds a gated pod only once ungated
            ):
                self.bind(pod)
            return
        if node_name != self.name:
            return
        if meta.get("deletionTimestamp") is not None:
            if (r := self.runners.get(uid)) and r.is_alive():
                r.stop_event.set()
                r.wake.set()
            else:
                self.finish_deletion(r or PodRunner(self, pod))
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
        self.write_podnet()
        port = self.start_server()
        self.register(port)
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
        if self.server is not None:
            self.server.stop()
        for r in list(self.runners.values()):
            r._kill(r.all_runs, 2)


def _api_message(e: ApiException) -> str:
    """The message of the API server's Status in an error reply, else the HTTP reason."""
    with contextlib.suppress(ValueError, TypeError):
        return str(json.loads(e.body or "")["message"])
    return f"{e.status} {e.reason}"


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
    p.add_argument("--tls-cert-file", type=Path, help="the kubelet endpoint's serving certificate")
    p.add_argument("--tls-private-key-file", type=Path, help="its key")
    p.add_argument("--client-ca-file", type=Path, help="CA of the clients (the API server)")
    args = p.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(20))
    cast(Any, config).load_kube_config(config_file=args.kubeconfig)
    images = default_images()
    for item in [*args.image, *filter(None, os.environ.get("PROCTOR_NODE_IMAGES", "").split(";"))]:
        name, _, cmd = item.partition("=")
        images[name.strip()] = shlex.split(cmd)
    args.dir.mkdir(parents=True, exist_ok=True)
    tls_files = (args.tls_cert_file, args.tls_private_key_file, args.client_ca_file)
    if any(tls_files) and not all(tls_files):
        p.error("--tls-cert-file, --tls-private-key-file and --client-ca-file go together")
    tls = cast(tuple[Path, Path, Path], tls_files) if all(tls_files) else None
    node = Node(args.name, args.dir, images, tls)

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
