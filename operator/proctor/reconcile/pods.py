"""Why a judge pod does not run, from what the kubelet and the Job controller report (pure).

A run's judge Job can fail to start for reasons no retry fixes: a Secret or ConfigMap (or a key)
its environment names does not exist, its image cannot be pulled or run, the API server refuses
the pod (Pod Security, another admission webhook). The operator never reads Secrets, so it learns
of these the way a person would, from the pod's container statuses and the Job's ``FailedCreate``
Events; this module turns them into a :class:`StartProblem` for the planner.

What counts as permanent, and when:

=============================================  ==================  ===================================
what the pod or the Job shows                  reason              ends the run
=============================================  ==================  ===================================
waiting ``InvalidImageName``,                  ImagePullFailed     at once (a name no registry has)
``ErrImageNeverPull``
waiting ``ErrImagePull``, ``ImagePullBackOff``  ImagePullFailed     after the grace period
waiting ``CreateContainerConfigError``         SecretNotFound,     after the grace period
                                               ConfigMapNotFound,
                                               ContainerConfigInvalid
waiting ``CreateContainerError``,              ContainerStartFailed after the grace period
``RunContainerError``
``FailedCreate`` Event: violates PodSecurity   PodRejected         at once (the namespace's policy)
``FailedCreate`` Event, anything else          PodRejected         after the grace period
(another webhook, a quota)
=============================================  ==================  ===================================

The grace period (``PROCTOR_START_GRACE_SECONDS``, default 30 s, counted from the pod's start or
the first ``FailedCreate``) is there because a kubelet and the Job controller retry these
themselves: a registry that was down for a few seconds, a Secret applied just after the run (a
GitOps sync, an external-secrets controller), a webhook that timed out once all recover within it.
On a real cluster ``ImagePullBackOff`` can be a registry outage rather than a typo; after the grace
the run ends in ERROR with the kubelet's message, and a new run (a pipeline's retry) is the retry.
A container that crashes (``CrashLoopBackOff``) or a pod that cannot be scheduled is transient:
its reason reaches the run's message, and the Job's deadline and the retry backoff handle it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api.conditions import Reason

#: The longest kubelet message quoted in a run's status (they can be long; the run's message is 1 KiB).
QUOTE_CHARS = 300

#: Waiting reasons that end the run at once, and those that end it after the grace period.
AT_ONCE = {"InvalidImageName": Reason.IMAGE_PULL_FAILED, "ErrImageNeverPull": Reason.IMAGE_PULL_FAILED}
AFTER_GRACE = {
    "ErrImagePull": Reason.IMAGE_PULL_FAILED,
    "ImagePullBackOff": Reason.IMAGE_PULL_FAILED,
    "CreateContainerConfigError": Reason.CONTAINER_CONFIG_INVALID,
    "CreateContainerError": Reason.CONTAINER_START_FAILED,
    "RunContainerError": Reason.CONTAINER_START_FAILED,
}
#: Reported in the run's message, never a reason to give up (the Job's deadline and retries handle it).
TRANSIENT = {"CrashLoopBackOff"}
POD_SECURITY = "violates PodSecurity"

# the kubelet's words for a missing object or key (pkg/kubelet/kubelet_pods.go)
_MISSING = re.compile(r'^(secret|configmap) "([^"]+)" not found', re.IGNORECASE)
_MISSING_KEY = re.compile(r"couldn't find key (\S+) in (Secret|ConfigMap) [^/\s]+/(\S+)")


def parse_time(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """One line of at most ``limit`` characters (a message in a status stays short)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


@dataclass(frozen=True, slots=True)
class ContainerView:
    """One container of a judge pod as its status shows it."""

    name: str
    waiting_reason: str | None = None
    waiting_message: str = ""
    terminated_reason: str | None = None
    exit_code: int | None = None
    terminated_message: str = ""
    restarts: int = 0

    @classmethod
    def of(cls, status: Mapping[str, Any]) -> ContainerView:
        state = status.get("state") or {}
        waiting, done = state.get("waiting") or {}, state.get("terminated") or {}
        last = (status.get("lastState") or {}).get("terminated") or {}
        ended = done or last
        return cls(
            name=str(status.get("name", "")),
            waiting_reason=waiting.get("reason"),
            waiting_message=str(waiting.get("message") or ""),
            terminated_reason=ended.get("reason"),
            exit_code=ended.get("exitCode"),
            terminated_message=str(ended.get("message") or ""),
            restarts=int(status.get("restartCount") or 0),
        )


@dataclass(frozen=True, slots=True)
class PodView:
    """A judge pod: which shard and attempt it runs, and what its containers show."""

    name: str
    shard: str
    attempt: int
    started: dt.datetime | None
    phase: str = "Pending"
    reason: str | None = None
    message: str = ""
    unschedulable: str | None = None
    containers: tuple[ContainerView, ...] = ()

    @classmethod
    def of(cls, pod: Mapping[str, Any], *, shard_label: str, attempt_label: str) -> PodView:
        meta, status = pod.get("metadata") or {}, pod.get("status") or {}
        labels = meta.get("labels") or {}
        conditions: list[Mapping[str, Any]] = status.get("conditions") or []
        scheduled = next((c for c in conditions if c.get("type") == "PodScheduled"), {})
        statuses = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
        return cls(
            name=str(meta.get("name", "")),
            shard=str(labels.get(shard_label, "")),
            attempt=int(labels.get(attempt_label, "0") or 0),
            started=parse_time(status.get("startTime")) or parse_time(meta.get("creationTimestamp")),
            phase=str(status.get("phase") or "Pending"),
            reason=status.get("reason"),
            message=str(status.get("message") or ""),
            unschedulable=(
                str(scheduled.get("message") or "unschedulable")
                if scheduled.get("status") == "False"
                else None
            ),
            containers=tuple(ContainerView.of(s) for s in statuses),
        )


@dataclass(frozen=True, slots=True)
class FailedCreate:
    """A ``FailedCreate`` Event of a judge Job: the Job controller could not create its pod."""

    job: str
    message: str
    first: dt.datetime | None

    @classmethod
    def of(cls, event: Mapping[str, Any]) -> FailedCreate:
        first = event.get("firstTimestamp") or event.get("eventTime")
        meta = event.get("metadata") or {}
        return cls(
            job=str((event.get("involvedObject") or {}).get("name", "")),
            message=str(event.get("message") or ""),
            first=parse_time(first) or parse_time(meta.get("creationTimestamp")),
        )


@dataclass(frozen=True, slots=True)
class StartProblem:
    """Why a judge pod is not running: the run's reason, a message for people, and when it becomes
    a reason to end the run (``None``: never, it is only reported)."""

    reason: str
    message: str
    fatal_at: dt.datetime | None = None

    def fatal(self, now: dt.datetime) -> bool:
        return self.fatal_at is not None and now >= self.fatal_at


def config_reason(message: str, hints: Mapping[str, str]) -> tuple[str, str]:
    """The reason of a ``CreateContainerConfigError`` (what is missing), and where it was named."""
    kind, name = "", ""
    if m := _MISSING.search(message):
        kind, name = m.group(1).lower(), m.group(2)
    elif m := _MISSING_KEY.search(message):
        kind, name = m.group(2).lower(), m.group(3)
    reason = {"secret": Reason.SECRET_NOT_FOUND, "configmap": Reason.CONFIG_MAP_NOT_FOUND}.get(
        kind, Reason.CONTAINER_CONFIG_INVALID
    )
    return reason, hints.get(f"{kind}/{name}", "")


def _container_problem(
    pod: PodView, c: ContainerView, grace: dt.timedelta, hints: Mapping[str, str]
) -> StartProblem | None:
    why = c.waiting_reason
    if why is None or pod.started is None:
        return None
    where = f"judge pod {pod.name}: container {c.name}: {why}: {quote(c.waiting_message)}".rstrip(": ")
    if why in AT_ONCE:
        return StartProblem(AT_ONCE[why], where, pod.started)
    if why in AFTER_GRACE:
        reason, hint = str(AFTER_GRACE[why]), ""
        if why == "CreateContainerConfigError":
            reason, hint = config_reason(c.waiting_message, hints)
        return StartProblem(reason, f"{where} ({hint})" if hint else where, pod.started + grace)
    if why in TRANSIENT:
        last = f"; last exit {c.exit_code}" if c.exit_code is not None else ""
        tail = f": {last_line(c.terminated_message)}" if c.terminated_message else ""
        return StartProblem(why, quote(f"judge pod {pod.name}: container {c.name} {why}{last}{tail}"))
    return None


def start_problem(
    pods: Sequence[PodView],
    failed_creates: Sequence[FailedCreate],
    *,
    grace: dt.timedelta,
    hints: Mapping[str, str] | None = None,
) -> StartProblem | None:
    """The most serious reason the current attempt's pod is not running, if it has one.

    ``pods`` and ``failed_creates`` are those of one shard's current Job; ``hints`` names where the
    run's spec or profile named a Secret or ConfigMap (``secret/NAME`` -> ``EvalProfile p:
    spec.judge.apiKeySecretRef``), so the message says which field to fix.
    """
    found: list[StartProblem] = []
    for pod in pods:
        for c in pod.containers:
            if (p := _container_problem(pod, c, grace, hints or {})) is not None:
                found.append(p)
        if pod.unschedulable and not pod.containers:
            found.append(StartProblem("Unschedulable", quote(f"judge pod {pod.name}: {pod.unschedulable}")))
    if not pods:
        for e in failed_creates:
            at_once = POD_SECURITY in e.message
            fatal_at = e.first if at_once or e.first is None else e.first + grace
            message = quote(f"Job {e.job}: FailedCreate: {e.message}", 2 * QUOTE_CHARS)
            found.append(StartProblem(Reason.POD_REJECTED, message, fatal_at))
    if not found:
        return None
    # the first to become fatal decides; a problem that never does is only reported
    return min(
        found, key=lambda p: (p.fatal_at is None, p.fatal_at or dt.datetime.max.replace(tzinfo=dt.UTC))
    )


def last_line(text: str) -> str:
    """The last non-empty line of a termination message (the runner's last word), shortened."""
    lines = [line for line in text.splitlines() if line.strip()]
    return quote(lines[-1]) if lines else ""


def exit_detail(pods: Sequence[PodView], container: str) -> str:
    """How ``container`` of a failed attempt's pod ended: exit code, reason and its last line."""
    for pod in pods:
        if pod.reason == "DeadlineExceeded":
            return f"pod {pod.name}: DeadlineExceeded: {quote(pod.message)}"
        for c in pod.containers:
            if c.name != container or c.exit_code is None:
                continue
            text = f"container {c.name} exited {c.exit_code}"
            if c.terminated_reason:
                text += f" ({c.terminated_reason})"
            if line := last_line(c.terminated_message):
                text += f": {line}"
            return text
    return ""


def candidate_detail(pods: Sequence[PodView], judge_container: str) -> str:
    """How a container beside the judge (the candidate under exam) crashed, when it did: its exit
    code, reason, restarts and last line. The runner only sees a candidate that never answers; the
    crash that caused it is here (a port already taken, a missing setting)."""
    for pod in pods:
        for c in pod.containers:
            if c.name == judge_container or c.exit_code in (None, 0):
                continue
            text = f"candidate container {c.name} exited {c.exit_code}"
            if c.terminated_reason:
                text += f" ({c.terminated_reason})"
            if c.restarts:
                text += f", restarted {c.restarts} time(s)"
            if line := last_line(c.terminated_message):
                text += f": {line}"
            return text
    return ""
