"""What a kubelet (v1.34) reports about a pod, as pure functions of container statuses.

The node stand-in builds each container's status (waiting, running or terminated, with the
kubelet's reasons) and derives the pod's phase and conditions from them here, with the rules of
``pkg/kubelet/kubelet_pods.go`` (``getPhase``) and ``pkg/kubelet/status/generate.go``, so that
whoever reads a pod on the local control plane (the Job controller, the operator classifying a
failure, a person running ``kubectl describe``) sees what a real node would show. The message
formats are the kubelet's too; only the stand-in's own causes (no local command for an image)
are worded for it.

Statuses here are the API's JSON shapes (``V1ContainerStatus`` as dicts); nothing does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Waiting reasons, as the kubelet spells them.
CONTAINER_CREATING = "ContainerCreating"
POD_INITIALIZING = "PodInitializing"
ERR_IMAGE_PULL = "ErrImagePull"
IMAGE_PULL_BACK_OFF = "ImagePullBackOff"
CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError"
CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
#: Condition reasons (``pkg/kubelet/status/generate.go``).
CONTAINERS_NOT_READY = "ContainersNotReady"
CONTAINERS_NOT_INITIALIZED = "ContainersNotInitialized"
POD_COMPLETED = "PodCompleted"
POD_FAILED = "PodFailed"
#: The kubelet's active-deadline eviction (``pkg/kubelet/active_deadline.go``).
DEADLINE_EXCEEDED = "DeadlineExceeded"
DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline"

Status = Mapping[str, Any]


def is_sidecar(container: Mapping[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``): a native sidecar."""
    return container.get("restartPolicy") == "Always"


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String`` prints it: ``500ms``, ``10s``, ``1m20s``, ``5m0s``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(int(minutes), 60)
    s = f"{secs:g}s"
    if hours:
        return f"{hours}h{minutes}m{s}"
    if minutes:
        return f"{minutes}m{s}"
    return s


def _go_list(names: Sequence[str]) -> str:
    """Go's ``%s`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(names) + "]"


# -- messages --------------------------------------------------------------------------------------
def image_pull_message(image: str, runnable: Sequence[str]) -> str:
    """The ``ErrImagePull`` message for an image no local command maps to.

    A kubelet passes the runtime's error through (``failed to pull and unpack image "...": ...``);
    the stand-in's cause is that it has no local command for the image."""
    known = ", ".join(sorted(runnable)) or "none"
    return (
        f'failed to pull and unpack image "{image}": no local command maps to this image on the '
        f"node stand-in (runnable images: {known}; add one with PROCTOR_NODE_IMAGES=NAME=COMMAND)"
    )


def image_back_off_message(image: str, pull_error: str) -> str:
    """The ``ImagePullBackOff`` message: the kubelet wraps the last pull error."""
    return f'Back-off pulling image "{image}": {ERR_IMAGE_PULL}: {pull_error}'


def pod_desc(name: str, namespace: str, uid: str) -> str:
    """The kubelet's ``format.Pod``: ``name_namespace(uid)``."""
    return f"{name}_{namespace}({uid})"


def crash_back_off_message(delay: float, container: str, pod: str) -> str:
    """The ``CrashLoopBackOff`` message; ``pod`` as :func:`pod_desc` gives it."""
    return f"back-off {go_duration(delay)} restarting failed container={container} pod={pod}"


def logs_unavailable(status: Status, pod: str, previous: bool) -> str | None:
    """Why ``kubectl logs`` cannot show a container, in the kubelet's words; None when it can
    (``validateContainerLogStatus`` in ``pkg/kubelet/kubelet_pods.go``)."""
    name = status.get("name", "")
    state = status.get("state") or {}
    last = (status.get("lastState") or {}).get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            return f'previous terminated container "{name}" in pod "{pod}" not found'
        return None
    if "running" in state:
        return None
    if term := state.get("terminated"):
        if term.get("containerID") or (last and last.get("containerID")):
            return None
        return f'container "{name}" in pod "{pod}" is terminated'
    if last:
        return None if last.get("containerID") else f'container "{name}" in pod "{pod}" is terminated'
    reason = (state.get("waiting") or {}).get("reason")
    if reason == ERR_IMAGE_PULL:
        return f'container "{name}" in pod "{pod}" is waiting to start: image can\'t be pulled'
    if reason == IMAGE_PULL_BACK_OFF:
        return f'container "{name}" in pod "{pod}" is waiting to start: trying and failing to pull image'
    if reason:
        return f'container "{name}" in pod "{pod}" is waiting to start: {reason}'
    return f'container "{name}" in pod "{pod}" is waiting to start - no logs yet'


# -- phase -----------------------------------------------------------------------------------------
def _by_name(statuses: Sequence[Status]) -> dict[str, Status]:
    return {str(s.get("name")): s for s in statuses}


def phase(
    spec: Mapping[str, Any],
    init_statuses: Sequence[Status],
    statuses: Sequence[Status],
    *,
    terminal: bool,
    has_initialized: bool,
) -> str:
    """The pod's phase from its container statuses: the kubelet's ``getPhase``.

    ``terminal``: the pod's containers were stopped for good (deleted, deadline, finished);
    ``has_initialized``: a regular container has started at some point."""
    init, main = _by_name(init_statuses), _by_name(statuses)
    restart_policy = spec.get("restartPolicy", "Always")
    pending_restartable = pending_regular = failed_init = 0
    for c in spec.get("initContainers") or []:
        if is_sidecar(c):
            continue
        st = init.get(c["name"])
        state = (st or {}).get("state") or {}
        last = ((st or {}).get("lastState") or {}).get("terminated")
        if st is None or "running" in state:
            pending_regular += 1
        elif term := state.get("terminated"):
            failed_init += term.get("exitCode", 0) != 0
        elif "waiting" in state:
            if last:
                failed_init += last.get("exitCode", 0) != 0
            else:
                pending_regular += 1
        else:
            pending_regular += 1

    unknown = running = waiting = stopped = succeeded = 0
    for c in spec.get("initContainers") or []:
        if not is_sidecar(c):
            continue
        st = init.get(c["name"])
        if st is None:
            unknown += 1
            continue
        state = st.get("state") or {}
        if "running" in state:
            if not st.get("started"):
                pending_restartable += 1
            running += 1
        elif "terminated" in state:
            pass  # a sidecar that stopped does not count towards the phase
        elif "waiting" in state:
            if not (st.get("lastState") or {}).get("terminated"):
                pending_restartable += 1
                waiting += 1
        else:
            pending_restartable += 1
            unknown += 1
    for c in spec.get("containers") or []:
        st = main.get(c["name"])
        if st is None:
            unknown += 1
            continue
        state = st.get("state") or {}
        if "running" in state:
            running += 1
        elif term := state.get("terminated"):
            stopped += 1
            succeeded += term.get("exitCode", 0) == 0
        elif "waiting" in state:
            if (st.get("lastState") or {}).get("terminated"):
                stopped += 1
            else:
                waiting += 1
        else:
            unknown += 1

    if failed_init > 0 and restart_policy == "Never":
        return "Failed"
    if pending_regular > 0 or (pending_restartable > 0 and not has_initialized) or waiting > 0:
        return "Pending"
    if running > 0 and unknown == 0:
        return "Running"
    if running == 0 and stopped > 0 and unknown == 0:
        if terminal:
            return "Succeeded" if stopped == succeeded else "Failed"
        if restart_policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        if restart_policy == "Never":
            return "Failed"
        return "Running"
    return "Pending"


# -- conditions --------------------------------------------------------------------------------------
Condition = dict[str, str]


def _cond(type_: str, ok: bool, reason: str = "", message: str = "") -> Condition:
    c = {"type": type_, "status": "True" if ok else "False"}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def containers_ready(spec: Mapping[str, Any], all_statuses: Sequence[Status], pod_phase: str) -> Condition:
    """``ContainersReady``: every container and every sidecar is ready."""
    by = _by_name(all_statuses)
    unknown: list[str] = []
    unready: list[str] = []
    sidecars = [c for c in spec.get("initContainers") or [] if is_sidecar(c)]
    watched = [*sidecars, *(spec.get("containers") or [])]
    for c in watched:
        st = by.get(c["name"])
        if st is None:
            unknown.append(c["name"])
        elif not st.get("ready"):
            unready.append(c["name"])
    if pod_phase == "Succeeded" and not unknown:
        return _cond("ContainersReady", False, POD_COMPLETED)
    if pod_phase == "Failed":
        return _cond("ContainersReady", False, POD_FAILED)
    parts = []
    if unknown:
        parts.append(f"containers with unknown status: {_go_list(unknown)}")
    if unready:
        parts.append(f"containers with unready status: {_go_list(unready)}")
    if parts:
        return _cond("ContainersReady", False, CONTAINERS_NOT_READY, ", ".join(parts))
    return _cond("ContainersReady", True)


def initialized(
    spec: Mapping[str, Any], all_statuses: Sequence[Status], pod_phase: str, *, has_initialized: bool
) -> Condition:
    """``Initialized``: every init container completed and every sidecar started."""
    by = _by_name(all_statuses)
    unknown: list[str] = []
    incomplete: list[str] = []
    for c in spec.get("initContainers") or []:
        st = by.get(c["name"])
        if st is None:
            unknown.append(c["name"])
        elif not (st.get("started") if is_sidecar(c) else st.get("ready")):
            incomplete.append(c["name"])
    if pod_phase == "Succeeded" and not unknown:
        return _cond("Initialized", True, POD_COMPLETED)
    if has_initialized:
        return _cond("Initialized", True)
    parts = []
    if unknown:
        parts.append(f"containers with unknown status: {_go_list(unknown)}")
    if incomplete:
        parts.append(f"containers with incomplete status: {_go_list(incomplete)}")
    if parts:
        return _cond("Initialized", False, CONTAINERS_NOT_INITIALIZED, ", ".join(parts))
    return _cond("Initialized", True)


def conditions(
    spec: Mapping[str, Any],
    init_statuses: Sequence[Status],
    statuses: Sequence[Status],
    pod_phase: str,
    *,
    sandbox_ready: bool,
    has_initialized: bool,
) -> list[Condition]:
    """The pod conditions a kubelet owns, in its order (no ``lastTransitionTime``: the caller keeps
    those, moving one only when its status changes)."""
    all_statuses = [*init_statuses, *statuses]
    cr = containers_ready(spec, all_statuses, pod_phase)
    ready = _cond("Ready", cr["status"] == "True", cr.get("reason", ""), cr.get("message", ""))
    return [
        _cond("PodReadyToStartContainers", sandbox_ready),
        initialized(spec, all_statuses, pod_phase, has_initialized=has_initialized),
        ready,
        cr,
        _cond("PodScheduled", True),
    ]
