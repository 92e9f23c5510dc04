"""The gate's choices as small pure functions: where a rollout stands, the verdict chain, the breaker."""

from __future__ import annotations

import datetime as dt

import pytest

from proctor.api import CircuitBreakerSpec, CircuitBreakerStatus, WorkloadBreaker
from proctor.gate.actions import (
    VERDICT_POLICIES,
    Action,
    BreakerWindow,
    CanarySubject,
    GateDecision,
    Reexam,
    Step,
    VerdictInput,
    awaiting,
    breaker_after,
    breaker_reason,
    breaker_reset,
    breaker_window,
    canary_hold,
    canary_revokes,
    canary_subject,
    canary_unsettled,
    choose,
    counts_as_block,
    decide,
    effective_mode,
    errors,
    event_reason,
    exam_step,
    fails,
    first_approval,
    held_condition,
    passes,
    reexam,
    reexam_backoff,
    template_to_examine,
    warn_not_allowed,
    webhook_reached,
)
from proctor.protocol import Canary, Determinism

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
SPEC = CircuitBreakerSpec(max_blocks=2, window_minutes=60)


def test_the_running_template_is_examined_unless_it_is_the_approved_one() -> None:
    assert template_to_examine("sha256:a", "sha256:a") is None  # approved (or rolled back to it)
    assert template_to_examine("sha256:a", "sha256:b") == "sha256:b"  # held, or observed
    assert template_to_examine(None, "sha256:b") == "sha256:b"  # never approved: examined, not assumed
    # what the webhook recorded as pending does not matter: a template that rolled out without it
    # (no webhook, or gated after it rolled out) is unexamined, never "the approved one"


def test_the_exam_starts_runs_then_decides() -> None:
    assert exam_step(None) is Step.START_EXAM
    assert exam_step("") is Step.EXAM_RUNNING
    assert exam_step("Running") is Step.EXAM_RUNNING
    for phase in ("Evaluated", "PartiallyEvaluated", "Failed"):
        assert exam_step(phase) is Step.DECIDE


def test_waiting_is_held_only_when_paused() -> None:
    assert awaiting("exam running", paused=True) == "exam running; the rollout waits for the verdict"
    assert awaiting("exam running", paused=False) == "exam running; observing, not held"


@pytest.mark.parametrize(
    ("verdict", "allow_warn", "link", "reason", "blocked"),
    [
        ("PASS", True, passes, "VerdictPassed", False),
        ("WARN", True, passes, "VerdictPassed", False),
        ("FAIL", True, fails, "VerdictFailed", True),
        ("WARN", False, warn_not_allowed, "WarnNotAllowed", True),
        ("ERROR", True, errors, "VerdictError", True),
        ("", True, errors, "VerdictError", True),  # no verdict at all: nothing conclusive
    ],
)
def test_the_first_link_that_applies_decides(
    verdict: str, allow_warn: bool, link: object, reason: str, blocked: bool
) -> None:
    i = VerdictInput(verdict, "safety 50% < 100%", allow_warn)
    applying = [p for p in VERDICT_POLICIES if p(i) is not None]
    assert applying[0] is link
    got_reason, message, got_blocked = choose(VERDICT_POLICIES, i)
    assert (got_reason, got_blocked) == (reason, blocked)
    assert "safety 50% < 100%" in message


def test_a_chain_without_a_last_resort_is_refused() -> None:
    with pytest.raises(ValueError, match="no policy applied"):
        choose((passes,), VerdictInput("FAIL", "x", True))


def test_events_say_what_was_done_or_would_have_been() -> None:
    def d(action: Action, acted: bool) -> GateDecision:
        return GateDecision(action, acted, not acted, "r", "m")

    assert event_reason(d(Action.APPROVE, True)) == ("Normal", "RolloutApproved")
    assert event_reason(d(Action.HOLD, True)) == ("Warning", "RolloutHeld")
    assert event_reason(d(Action.ROLLBACK, True)) == ("Warning", "RolledBack")
    assert event_reason(d(Action.HOLD, False)) == ("Normal", "WouldRolloutHeld")


def _recorded(**blocks: list[int]) -> CircuitBreakerStatus:
    return CircuitBreakerStatus(
        workloads=[
            WorkloadBreaker(name=name, recent_blocks=[NOW - dt.timedelta(minutes=m) for m in minutes])
            for name, minutes in blocks.items()
        ],
        reset_token="a",
    )


def test_the_breaker_window_counts_recorded_blocks_until_a_person_resets_it() -> None:
    recorded = _recorded(a=[1, 2, 3])
    assert breaker_reset(recorded, "a") == ("a", False)
    assert breaker_reset(recorded, "b") == ("b", True)
    assert breaker_reset(None, None) == (None, False)
    window = breaker_window(recorded, "a", SPEC, NOW, reset=False)
    assert (len(window.blocks), window.open) == (3, True)
    assert breaker_window(recorded, "a", SPEC, NOW, reset=True) == BreakerWindow((), False)
    assert breaker_window(None, "a", SPEC, NOW, reset=False) == BreakerWindow((), False)


def test_each_deployment_counts_only_its_own_blocks() -> None:
    """Guarantee 7: one Deployment failing again and again opens its own breaker, never another's
    (whoever owns it can still get a good rollout approved)."""
    recorded = _recorded(noisy=[1, 2, 3], quiet=[])
    assert breaker_window(recorded, "noisy", SPEC, NOW, reset=False).open
    quiet = breaker_window(recorded, "quiet", SPEC, NOW, reset=False)
    assert not quiet.open
    assert not breaker_window(recorded, "new", SPEC, NOW, reset=False).open
    # the quiet Deployment's PASS is approved while the noisy one's breaker is open
    dec = decide(
        "PASS",
        "all tiers clean",
        allow_warn=True,
        on_fail="Hold",
        mode=effective_mode(
            "Enforce", Canary(Determinism.TRUE, "ZeroSafetyVariance", "ok"), webhook_reached()
        ),
        circuit_open=quiet.open,
        has_approved_template=True,
    )
    assert (dec.action, dec.acted) == (Action.APPROVE, True)


def test_blocks_age_out_of_the_window_and_new_ones_open_the_breaker() -> None:
    window = breaker_window(_recorded(a=[90, 5]), "a", SPEC, NOW, reset=False)
    assert not window.open
    blocks, is_open = breaker_after(window, 1, NOW, SPEC)
    assert (len(blocks), is_open) == (2, False)  # the 90-minute-old block left the window
    blocks, is_open = breaker_after(window, 2, NOW, SPEC)
    assert (len(blocks), is_open) == (3, True)
    many, _ = breaker_after(BreakerWindow((), False), 50, NOW, SPEC)
    assert len(many) == 32


def test_the_breaker_condition_names_the_deployments_and_how_to_reset_them() -> None:
    assert breaker_reason({}, SPEC, "proctor.dev/reset-circuit-breaker") == (
        "WithinBudget",
        "every Deployment within 2 block(s) per 60 min",
    )
    reason, message = breaker_reason({"b": 3, "a": 4}, SPEC, "proctor.dev/reset-circuit-breaker")
    assert reason == "TooManyBlocks"
    assert message.startswith("needs_human: a (4 blocks), b (3 blocks) in the last 60 min (max 2 each)")
    assert "proctor.dev/reset-circuit-breaker" in message


def test_only_a_held_verdict_counts_against_the_deployments_breaker() -> None:
    assert counts_as_block("VerdictFailed") and counts_as_block("VerdictError")
    assert not counts_as_block("CanaryUnsettled")  # the policy's canary is not the Deployment's fault


# --- guarantee 2: the canary never makes enforcement fall open -----------------------------------


def test_an_unsettled_canary_holds_a_pass_and_says_why() -> None:
    hold = "the determinism canary on a has not shown a stable safety tier (safety moved)"
    i = VerdictInput("PASS", "all tiers clean", True, hold)
    assert next(p for p in VERDICT_POLICIES if p(i) is not None) is canary_unsettled
    reason, message, blocked = choose(VERDICT_POLICIES, i)
    assert (reason, blocked) == ("CanaryUnsettled", True)
    assert hold in message and "all tiers clean" in message
    # a FAIL or ERROR holds under its own reason, the canary or not
    assert choose(VERDICT_POLICIES, VerdictInput("FAIL", "x", True, hold))[0] == "VerdictFailed"
    assert choose(VERDICT_POLICIES, VerdictInput("ERROR", "x", True, hold))[0] == "VerdictError"


def test_the_canary_holds_passes_only_once_it_has_a_subject_and_is_not_stable() -> None:
    stable = Canary(Determinism.TRUE, "ZeroSafetyVariance", "ok")
    varying = Canary(Determinism.FALSE, "SafetyVariance", "safety moved")
    assert canary_hold(varying, None) is None  # no subject: the next approval becomes it
    assert canary_hold(stable, "a") is None
    assert "safety moved" in (canary_hold(varying, "a") or "")
    assert "its runs have not finished" in (canary_hold(None, "a") or "")


def test_the_canary_subject_is_pinned_not_chosen_by_name() -> None:
    """A tenant cannot move the canary by adding a Deployment that sorts first, or by getting one
    approved: the subject stays the policy's first approval."""
    pinned = CanarySubject("zeta", "sha256:v1", 4)
    approved = {"aaa-decoy": "sha256:d", "zeta": "sha256:v1"}
    assert canary_subject(pinned, 4, approved, runs_complete=False) == pinned
    # its Deployment moved on to v2: the finished canary on v1 stands; unfinished, it follows to v2
    moved = {"aaa-decoy": "sha256:d", "zeta": "sha256:v2"}
    assert canary_subject(pinned, 4, moved, runs_complete=True) == pinned
    assert canary_subject(pinned, 4, moved, runs_complete=False) == CanarySubject("zeta", "sha256:v2", 4)
    # a person changed the policy: the same Deployment, examined again under the new generation
    assert canary_subject(pinned, 5, approved, runs_complete=True) == CanarySubject("zeta", "sha256:v1", 5)
    # no longer gated, or nothing approved to examine: dropped (never the decoy)
    assert canary_subject(pinned, 4, {"aaa-decoy": "sha256:d"}, runs_complete=True) is None
    assert canary_subject(pinned, 5, {"zeta": None, "aaa-decoy": "sha256:d"}, runs_complete=True) is None
    assert canary_subject(None, 4, approved, runs_complete=False) is None
    assert first_approval([("zeta", "sha256:v1")], 4) == pinned
    assert first_approval([], 4) is None


def test_a_canary_run_that_fails_the_approved_revision_revokes_it() -> None:
    assert canary_revokes(["PASS", "FAIL", "PASS"])
    assert not canary_revokes(["PASS", "PASS", None])
    assert not canary_revokes(["ERROR", "PASS"])  # nothing measured is not a FAIL


# --- re-examining an exam that ended ERROR ---------------------------------------------------------


def test_an_error_is_examined_again_with_backoff() -> None:
    done = NOW - dt.timedelta(seconds=30)
    assert reexam("FAIL", done, 0, NOW, asked=True, breaker_open=False) is None  # a FAIL is final
    assert reexam("PASS", done, 0, NOW, asked=False, breaker_open=False) is None
    waiting = reexam("ERROR", done, 0, NOW, asked=False, breaker_open=False)
    assert waiting == Reexam(False, False, done + dt.timedelta(seconds=60))
    assert reexam(
        "ERROR", done, 0, NOW + dt.timedelta(seconds=30), asked=False, breaker_open=False
    ) == Reexam(True, False, None)
    # each attempt waits longer, up to an hour
    assert [reexam_backoff(k).total_seconds() for k in (0, 1, 2, 5, 40)] == [60, 120, 300, 3600, 3600]
    assert reexam(None, done, 0, NOW, asked=False, breaker_open=False) is not None  # no verdict at all


def test_a_person_asks_for_the_exam_again_at_once_and_an_open_breaker_stops_the_automatic_one() -> None:
    done = NOW - dt.timedelta(hours=5)
    assert reexam("ERROR", NOW, 3, NOW, asked=True, breaker_open=True) == Reexam(True, True, None)
    assert reexam("ERROR", done, 0, NOW, asked=False, breaker_open=True) == Reexam(False, False, None)


def test_a_held_rollout_tells_kubectl_rollout_status_why() -> None:
    cond = held_condition("oil", "VerdictFailed", "FAIL: safety 50% < 100%", NOW)
    assert (cond["type"], cond["status"], cond["reason"]) == (
        "Progressing",
        "False",
        "ProgressDeadlineExceeded",
    )
    assert cond["message"] == "held by Proctor (GatePolicy oil, VerdictFailed): FAIL: safety 50% < 100%"
    assert cond["lastTransitionTime"] == "2026-11-30T12:00:00Z"
