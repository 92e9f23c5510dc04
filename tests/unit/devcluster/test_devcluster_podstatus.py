"""The kubelet's status rules as the node stand-in applies them: phase, conditions, messages."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.devcluster import podstatus


def running(name: str, *, ready: bool = True, started: bool = True) -> dict[str, Any]:
    return {"name": name, "ready": ready, "started": started, "state": {"running": {}}}


def waiting(name: str, reason: str = "ContainerCreating", last_exit: int | None = None) -> dict[str, Any]:
    st: dict[str, Any] = {
        "name": name,
        "ready": False,
        "started": False,
        "state": {"waiting": {"reason": reason}},
    }
    if last_exit is not None:
        st["lastState"] = {"terminated": {"exitCode": last_exit, "containerID": "x://1"}}
    return st


def terminated(name: str, code: int) -> dict[str, Any]:
    return {
        "name": name,
        "ready": False,
        "started": False,
        "state": {"terminated": {"exitCode": code, "containerID": "x://1"}},
    }


def spec(
    *containers: str, init: tuple[str, ...] = (), sidecars: tuple[str, ...] = (), policy: str = "Never"
) -> Any:
    inits = [{"name": n} for n in init] + [{"name": n, "restartPolicy": "Always"} for n in sidecars]
    return {"restartPolicy": policy, "initContainers": inits, "containers": [{"name": n} for n in containers]}


def phase(s: Any, init: list[Any], main: list[Any], terminal: bool = False, started: bool = False) -> str:
    return podstatus.phase(s, init, main, terminal=terminal, has_initialized=started)


# -- phase ---------------------------------------------------------------------------------------
def test_a_container_waiting_on_its_image_keeps_the_pod_pending() -> None:
    s = spec("main")
    assert phase(s, [], [waiting("main", "ImagePullBackOff")]) == "Pending"
    assert phase(s, [], [waiting("main", "CreateContainerConfigError")]) == "Pending"


def test_one_waiting_container_keeps_a_pod_pending_even_when_another_runs() -> None:
    assert phase(spec("a", "b"), [], [running("a"), waiting("b", "ErrImagePull")]) == "Pending"


def test_crash_looping_is_running_under_restart_policy_always() -> None:
    s = spec("main", policy="Always")
    assert phase(s, [], [waiting("main", "CrashLoopBackOff", last_exit=1)]) == "Running"


def test_finished_containers_decide_success_or_failure() -> None:
    assert phase(spec("a", "b"), [], [terminated("a", 0), terminated("b", 0)]) == "Succeeded"
    assert phase(spec("a", "b"), [], [terminated("a", 0), terminated("b", 2)]) == "Failed"
    # OnFailure: a failed container will be restarted, so the pod still runs
    assert phase(spec("a", policy="OnFailure"), [], [terminated("a", 2)]) == "Running"
    assert phase(spec("a", policy="OnFailure"), [], [terminated("a", 0)]) == "Succeeded"


def test_a_failed_init_container_fails_a_never_restarting_pod() -> None:
    s = spec("main", init=("setup",))
    assert phase(s, [terminated("setup", 1)], [waiting("main", "PodInitializing")]) == "Failed"
    s = spec("main", init=("setup",), policy="OnFailure")
    assert phase(s, [waiting("setup", "CrashLoopBackOff", last_exit=1)], [waiting("main")]) == "Pending"


def test_a_sidecar_that_has_not_started_holds_the_pod_in_pending() -> None:
    s = spec("main", sidecars=("agent",))
    assert phase(s, [waiting("agent", "ImagePullBackOff")], [waiting("main", "PodInitializing")]) == "Pending"
    assert phase(s, [running("agent")], [running("main")], started=True) == "Running"
    # a terminal pod whose containers all stopped: the sidecar's exit does not count
    assert phase(s, [terminated("agent", 143)], [terminated("main", 0)], terminal=True) == "Succeeded"


def test_a_terminated_pod_still_running_under_always_ends_in_a_terminal_phase() -> None:
    s = spec("main", policy="Always")
    assert phase(s, [], [terminated("main", 143)]) == "Running"
    assert phase(s, [], [terminated("main", 143)], terminal=True) == "Failed"


# -- conditions ----------------------------------------------------------------------------------
def conds(s: Any, init: list[Any], main: list[Any], pod_phase: str, **kw: Any) -> dict[str, dict[str, str]]:
    out = podstatus.conditions(
        s,
        init,
        main,
        pod_phase,
        sandbox_ready=kw.get("sandbox", True),
        has_initialized=kw.get("started", False),
    )
    assert [c["type"] for c in out] == [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    return {c["type"]: c for c in out}


def test_unready_containers_are_named_as_the_kubelet_names_them() -> None:
    c = conds(spec("b", "a"), [], [waiting("a", "ImagePullBackOff"), waiting("b")], "Pending")
    for t in ("Ready", "ContainersReady"):
        assert c[t] == {
            "type": t,
            "status": "False",
            "reason": "ContainersNotReady",
            "message": "containers with unready status: [b a]",
        }
    assert c["Initialized"]["status"] == "True"


def test_sidecars_count_towards_readiness_and_initialization() -> None:
    s = spec("main", init=("setup",), sidecars=("agent",))
    c = conds(
        s, [terminated("setup", 0), running("agent", ready=False)], [running("main")], "Running", started=True
    )
    assert c["ContainersReady"]["message"] == "containers with unready status: [agent]"
    assert c["Initialized"]["status"] == "True"
    c = conds(s, [waiting("setup"), waiting("agent")], [waiting("main", "PodInitializing")], "Pending")
    assert c["Initialized"] == {
        "type": "Initialized",
        "status": "False",
        "reason": "ContainersNotInitialized",
        "message": "containers with incomplete status: [setup agent]",
    }


def test_a_finished_pod_reports_why_it_is_not_ready() -> None:
    c = conds(spec("main"), [], [terminated("main", 0)], "Succeeded", sandbox=False, started=True)
    assert (c["Ready"]["reason"], c["ContainersReady"]["reason"]) == ("PodCompleted", "PodCompleted")
    assert c["Initialized"] == {"type": "Initialized", "status": "True", "reason": "PodCompleted"}
    assert c["PodReadyToStartContainers"]["status"] == "False"
    c = conds(spec("main"), [], [terminated("main", 1)], "Failed", sandbox=False, started=True)
    assert c["Ready"]["reason"] == "PodFailed"


def test_all_ready_is_ready() -> None:
    c = conds(spec("main"), [], [running("main")], "Running", started=True)
    assert c["Ready"] == {"type": "Ready", "status": "True"}


# -- messages ------------------------------------------------------------------------------------
def test_go_durations() -> None:
    assert [podstatus.go_duration(s) for s in (0.5, 1, 10, 20, 80, 300, 4000)] == [
        "500ms",
        "1s",
        "10s",
        "20s",
        "1m20s",
        "5m0s",
        "1h6m40s",
    ]


def test_back_off_messages_have_the_kubelets_shape() -> None:
    pull = podstatus.image_pull_message("nginx:1.27", ["proctor"])
    assert pull.startswith('failed to pull and unpack image "nginx:1.27": ')
    assert "runnable images: proctor" in pull
    assert (
        podstatus.image_back_off_message("nginx:1.27", pull)
        == f'Back-off pulling image "nginx:1.27": ErrImagePull: {pull}'
    )
    desc = podstatus.pod_desc("p", "ns", "u-1")
    assert podstatus.crash_back_off_message(20, "main", desc) == (
        "back-off 20s restarting failed container=main pod=p_ns(u-1)"
    )


@pytest.mark.parametrize(
    ("status", "previous", "why"),
    [
        (running("c"), False, None),
        (running("c"), True, 'previous terminated container "c" in pod "p" not found'),
        (
            waiting("c", "ErrImagePull"),
            False,
            'container "c" in pod "p" is waiting to start: image can\'t be pulled',
        ),
        (
            waiting("c", "ImagePullBackOff"),
            False,
            'container "c" in pod "p" is waiting to start: trying and failing to pull image',
        ),
        (
            waiting("c", "CreateContainerConfigError"),
            False,
            'container "c" in pod "p" is waiting to start: CreateContainerConfigError',
        ),
        (waiting("c", "CrashLoopBackOff", last_exit=1), False, None),
        (waiting("c", "CrashLoopBackOff", last_exit=1), True, None),
        (terminated("c", 0), False, None),
        ({"name": "c", "state": {}}, False, 'container "c" in pod "p" is waiting to start - no logs yet'),
    ],
)
def test_why_logs_are_unavailable(status: dict[str, Any], previous: bool, why: str | None) -> None:
    assert podstatus.logs_unavailable(status, "p", previous) == why
