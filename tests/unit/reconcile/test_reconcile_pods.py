"""Why a judge pod does not run, from its status as a v1.34 kubelet writes it: permanent (after the
grace period, or at once) or only reported."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from proctor.api import PERMANENT_REASONS
from proctor.reconcile.pods import FailedCreate, PodView, candidate_detail, exit_detail, start_problem

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
GRACE = dt.timedelta(seconds=30)
HINTS = {"secret/judge-key": "EvalProfile p: spec.judge.apiKeySecretRef"}


def pod(*statuses: dict[str, Any], init: tuple[dict[str, Any], ...] = (), **status: Any) -> PodView:
    raw = {
        "metadata": {
            "name": "r-judge-0-of-1-a1-x7k2p",
            "labels": {"proctor.dev/shard": "0-of-1", "proctor.dev/attempt": "1"},
            "creationTimestamp": "2026-03-01T11:59:59Z",
        },
        "status": {
            "phase": "Pending",
            "startTime": "2026-03-01T12:00:00Z",
            "containerStatuses": list(statuses),
            "initContainerStatuses": list(init),
            **status,
        },
    }
    return PodView.of(raw, shard_label="proctor.dev/shard", attempt_label="proctor.dev/attempt")


def waiting(reason: str, message: str = "", name: str = "judge") -> dict[str, Any]:
    return {"name": name, "state": {"waiting": {"reason": reason, "message": message}}, "restartCount": 0}


def test_a_pod_is_read_with_its_shard_attempt_and_start() -> None:
    p = pod(waiting("ContainerCreating"))
    assert (p.shard, p.attempt, p.started, p.phase) == ("0-of-1", 1, T0, "Pending")
    assert start_problem([p], [], grace=GRACE) is None  # starting is not a problem


@pytest.mark.parametrize(
    ("message", "reason", "hint"),
    [
        ('secret "judge-key" not found', "SecretNotFound", "EvalProfile p: spec.judge.apiKeySecretRef"),
        (
            "couldn't find key api-key in Secret team/judge-key",
            "SecretNotFound",
            "spec.judge.apiKeySecretRef",
        ),
        ('configmap "settings" not found', "ConfigMapNotFound", None),
        ("container has runAsNonRoot and image will run as root", "ContainerConfigInvalid", None),
    ],
)
def test_a_container_config_error_names_what_is_missing_and_where_after_the_grace(
    message: str, reason: str, hint: str | None
) -> None:
    problem = start_problem(
        [pod(waiting("CreateContainerConfigError", message))], [], grace=GRACE, hints=HINTS
    )
    assert problem is not None and problem.reason == reason and reason in PERMANENT_REASONS
    assert message in problem.message and "CreateContainerConfigError" in problem.message
    assert (hint in problem.message) if hint else "(" not in problem.message.split(message)[-1]
    assert problem.fatal_at == T0 + GRACE
    assert not problem.fatal(T0 + GRACE - dt.timedelta(seconds=1)) and problem.fatal(T0 + GRACE)


def test_an_image_that_cannot_be_pulled_is_fatal_after_the_grace_and_a_bad_name_at_once() -> None:
    back_off = 'Back-off pulling image "registry.example/judge:1": ErrImagePull: not found'
    problem = start_problem([pod(waiting("ImagePullBackOff", back_off))], [], grace=GRACE)
    assert problem is not None and (problem.reason, problem.fatal_at) == ("ImagePullFailed", T0 + GRACE)
    assert "registry.example/judge:1" in problem.message
    bad = start_problem([pod(waiting("InvalidImageName", "couldn't parse image name"))], [], grace=GRACE)
    assert bad is not None and (bad.reason, bad.fatal_at) == ("ImagePullFailed", T0)


def test_a_candidate_sidecar_that_cannot_start_counts_too() -> None:
    side = waiting("ErrImagePull", "no such image", name="candidate-agent")
    problem = start_problem([pod(waiting("PodInitializing"), init=(side,))], [], grace=GRACE)
    assert problem is not None and "container candidate-agent" in problem.message


def test_a_crash_loop_or_an_unschedulable_pod_is_reported_never_fatal() -> None:
    crash = {
        "name": "candidate-agent",
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s restarting"}},
        "lastState": {
            "terminated": {"exitCode": 1, "reason": "Error", "message": "boom\nTraceback: ValueError"}
        },
        "restartCount": 4,
    }
    problem = start_problem([pod(init=(crash,))], [], grace=GRACE)
    assert problem is not None and problem.fatal_at is None and not problem.fatal(T0 + dt.timedelta(days=1))
    assert "last exit 1" in problem.message and "ValueError" in problem.message
    stuck = pod(
        conditions=[{"type": "PodScheduled", "status": "False", "message": "0/3 nodes are available"}]
    )
    problem = start_problem([stuck], [], grace=GRACE)
    assert problem is not None and problem.fatal_at is None and "0/3 nodes" in problem.message


def test_a_refused_pod_is_fatal_at_once_for_pod_security_after_the_grace_otherwise() -> None:
    event = {
        "involvedObject": {"name": "r-judge-0-of-1-a1"},
        "message": 'Error creating: pods "x" is forbidden: violates PodSecurity "restricted:latest": no',
        "firstTimestamp": "2026-03-01T12:00:00Z",
    }
    problem = start_problem([], [FailedCreate.of(event)], grace=GRACE)
    assert problem is not None and (problem.reason, problem.fatal_at) == ("PodRejected", T0)
    assert "violates PodSecurity" in problem.message and "r-judge-0-of-1-a1" in problem.message
    webhook = event | {"message": 'Error creating: Internal error occurred: failed calling webhook "x"'}
    problem = start_problem([], [FailedCreate.of(webhook)], grace=GRACE)
    assert problem is not None and problem.fatal_at == T0 + GRACE
    # once a pod exists, the Job's earlier refusals are history
    assert start_problem([pod(waiting("ContainerCreating"))], [FailedCreate.of(event)], grace=GRACE) is None


def test_the_first_problem_to_become_fatal_decides() -> None:
    side = waiting("InvalidImageName", "bad", name="candidate-agent")
    problem = start_problem(
        [pod(waiting("CreateContainerConfigError", 'secret "judge-key" not found'), init=(side,))],
        [],
        grace=GRACE,
    )
    assert problem is not None and problem.reason == "ImagePullFailed"


def test_a_long_kubelet_message_is_quoted_short() -> None:
    problem = start_problem([pod(waiting("ErrImagePull", "x" * 5000))], [], grace=GRACE)
    assert problem is not None and len(problem.message) < 400 and problem.message.endswith("...")


def test_how_a_failed_judge_ended() -> None:
    ended = {
        "name": "judge",
        "state": {
            "terminated": {
                "exitCode": 2,
                "reason": "Error",
                "message": "loading...\nproctor judge: error: shard 0/1 could not measure: 403 Forbidden\n",
            }
        },
    }
    assert exit_detail([pod(ended)], "judge") == (
        "container judge exited 2 (Error): proctor judge: error: shard 0/1 could not measure: 403 Forbidden"
    )
    killed = {"name": "judge", "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}
    assert exit_detail([pod(killed)], "judge") == "container judge exited 137 (OOMKilled)"
    late = pod(
        reason="DeadlineExceeded", message="Pod was active on the node longer than the specified deadline"
    )
    assert exit_detail([late], "judge").startswith("pod r-judge-0-of-1-a1-x7k2p: DeadlineExceeded")
    assert exit_detail([], "judge") == ""


def test_how_the_candidate_beside_the_judge_crashed() -> None:
    """The runner only sees a candidate that never answers; the crash is in the pod's status."""
    crashed = {
        "name": "agent",
        "restartCount": 3,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {
            "terminated": {
                "exitCode": 1,
                "reason": "Error",
                "message": "Traceback ...\nOSError: [Errno 98] Address already in use\n",
            }
        },
    }
    judge = {"name": "judge", "state": {"terminated": {"exitCode": 2, "reason": "Error"}}}
    assert candidate_detail([pod(judge, init=(crashed,))], "judge") == (
        "candidate container agent exited 1 (Error), restarted 3 time(s): "
        "OSError: [Errno 98] Address already in use"
    )
    running = {"name": "agent", "state": {"running": {}}}
    assert candidate_detail([pod(judge, init=(running,))], "judge") == ""  # the judge's own exit is not it
    assert candidate_detail([], "judge") == ""
