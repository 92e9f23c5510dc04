"""The gate's choices as small pure functions: where a rollout stands, the verdict chain, the breaker."""

from __future__ import annotations

import datetime as dt

import pytest

from proctor.api import CircuitBreakerSpec, CircuitBreakerStatus
from proctor.gate.actions import (
    VERDICT_POLICIES,
    Action,
    GateDecision,
    Step,
    VerdictInput,
    awaiting,
    breaker_after,
    breaker_reason,
    breaker_window,
    choose,
    errors,
    event_reason,
    exam_step,
    fails,
    passes,
    template_to_examine,
    warn_not_allowed,
)

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


def test_the_breaker_window_counts_recorded_blocks_until_a_person_resets_it() -> None:
    recorded = CircuitBreakerStatus(
        recent_blocks=[NOW - dt.timedelta(minutes=m) for m in (1, 2, 3)], reset_token="a"
    )
    window = breaker_window(recorded, "a", SPEC, NOW)
    assert (len(window.blocks), window.reset, window.open) == (3, False, True)
    reset = breaker_window(recorded, "b", SPEC, NOW)
    assert (reset.blocks, reset.reset, reset.open, reset.reset_token) == ((), True, False, "b")
    assert breaker_window(None, None, SPEC, NOW) == breaker_window(CircuitBreakerStatus(), None, SPEC, NOW)


def test_blocks_age_out_of_the_window_and_new_ones_open_the_breaker() -> None:
    old = CircuitBreakerStatus(recent_blocks=[NOW - dt.timedelta(minutes=90), NOW - dt.timedelta(minutes=5)])
    window = breaker_window(old, None, SPEC, NOW)
    assert not window.open
    blocks, is_open = breaker_after(window, 1, NOW, SPEC)
    assert (len(blocks), is_open) == (2, False)  # the 90-minute-old block left the window
    blocks, is_open = breaker_after(window, 2, NOW, SPEC)
    assert (len(blocks), is_open) == (3, True)
    many, _ = breaker_after(breaker_window(None, None, SPEC, NOW), 50, NOW, SPEC)
    assert len(many) == 32


def test_the_breaker_condition_says_how_to_reset_it() -> None:
    assert breaker_reason(False, 1, SPEC, "proctor.dev/reset-circuit-breaker") == (
        "WithinBudget",
        "1 block(s) in the window",
    )
    reason, message = breaker_reason(True, 3, SPEC, "proctor.dev/reset-circuit-breaker")
    assert reason == "TooManyBlocks"
    assert message.startswith("needs_human: 3 blocks in the last 60 min (max 2)")
    assert "proctor.dev/reset-circuit-breaker" in message
