"""What the gate does with each verdict, in each mode."""

from __future__ import annotations

import datetime as dt

import pytest

from proctor.gate.actions import (
    WEBHOOK_DISABLED,
    Action,
    breaker_open,
    decide,
    effective_mode,
    webhook_reached,
    webhook_unreachable,
)
from proctor.protocol import Canary, Determinism

STABLE = Canary(Determinism.TRUE, "ZeroSafetyVariance", "stable")
REACHED = webhook_reached()
ENFORCE = effective_mode("Enforce", STABLE, REACHED)
OBSERVE = effective_mode("Observe", None, REACHED)


def _decide(verdict: str, **kw: object) -> object:
    args: dict[str, object] = {
        "allow_warn": True,
        "on_fail": "Hold",
        "mode": ENFORCE,
        "circuit_open": False,
        "has_approved_template": True,
    } | kw
    return decide(verdict, "safety 50% < 100%", **args)  # type: ignore[arg-type]


def test_the_mode_follows_enforcement_and_the_canary() -> None:
    assert ENFORCE.enforce
    assert not OBSERVE.enforce
    assert OBSERVE.reason == "ObserveOnly"
    # a new policy whose canary has not finished yet observes (the canary needs an approved revision)
    pending = effective_mode("Enforce", None, REACHED)
    assert (pending.enforce, pending.reason) == (False, "CanaryPending")
    assert "until a person sets enforcement: Observe" in pending.message


@pytest.mark.parametrize(
    "canary",
    [
        Canary(Determinism.FALSE, "SafetyVariance", "safety moved 100 -> 80"),
        Canary(Determinism.UNKNOWN, "RunWithoutMeasurement", "run p-canary-2 took no complete measurement"),
        Canary(Determinism.UNKNOWN, "RunsNotComparable", "runs differ in case-set digest"),
    ],
)
def test_a_canary_that_is_not_stable_never_makes_the_policy_observe(canary: Canary) -> None:
    """Varying, ERROR or not comparable: the policy enforces and says why (its PASSes are held),
    whether or not it enforced before; a tenant whose candidate answers at random gains nothing."""
    for before in (False, True):
        mode = effective_mode("Enforce", canary, REACHED, enforced_before=before)
        assert (mode.enforce, mode.reason) == (True, "CanaryUnsettled")
        assert canary.message in mode.message


def test_once_enforcing_only_a_person_returns_the_policy_to_observe() -> None:
    """A canary pending again (a spec change, a lost subject) keeps an enforcing policy enforcing;
    spec.enforcement: Observe is the only way back."""
    again = effective_mode("Enforce", None, REACHED, enforced_before=True)
    assert (again.enforce, again.reason) == (True, "CanaryUnsettled")
    assert "its runs have not finished" in again.message
    assert not effective_mode("Observe", STABLE, REACHED, enforced_before=True).enforce


def test_enforce_without_a_webhook_is_refused_and_says_why() -> None:
    """Without a webhook a changed template rolls out before it is examined: a policy must not say it
    enforces, whatever its canary found."""
    mode = effective_mode("Enforce", STABLE, WEBHOOK_DISABLED)
    assert (mode.enforce, mode.reason) == (False, "WebhookDisabled")
    assert "cannot enforce" in mode.message and "webhook.enabled" in mode.message
    # a webhook that is served but not reached keeps the mode: it holds as soon as it is called, and
    # until then the API server refuses every change (failurePolicy Fail); the policy says so in Ready
    assert effective_mode("Enforce", STABLE, webhook_unreachable("x509: certificate is valid for a")).enforce


def test_a_tampered_canary_makes_the_policy_enforce_not_observe() -> None:
    mode = effective_mode(
        "Enforce", None, REACHED, tampered="EvalRun p-canary-1 is not owned by GatePolicy p"
    )
    assert (mode.enforce, mode.reason) == (True, "CanaryTampered")
    assert "fail closed" in mode.message
    assert not effective_mode("Observe", None, REACHED, tampered="x").enforce  # Observe stays Observe


@pytest.mark.parametrize(
    ("verdict", "kw", "action", "blocked"),
    [
        ("PASS", {}, Action.APPROVE, False),
        ("WARN", {}, Action.APPROVE, False),
        ("WARN", {"allow_warn": False}, Action.HOLD, True),
        ("FAIL", {}, Action.HOLD, True),
        ("FAIL", {"on_fail": "Rollback"}, Action.ROLLBACK, True),
        ("FAIL", {"on_fail": "Rollback", "has_approved_template": False}, Action.HOLD, True),
        # pods of the failed template already run (it rolled out before its exam, or while observing):
        # holding would leave them running, so it rolls back whatever onFail says
        ("FAIL", {"exposed": True}, Action.ROLLBACK, True),
        ("FAIL", {"exposed": True, "has_approved_template": False}, Action.HOLD, True),
        ("ERROR", {"exposed": True}, Action.HOLD, True),
        ("ERROR", {}, Action.HOLD, True),
    ],
)
def test_each_verdict_maps_to_its_action(
    verdict: str, kw: dict[str, object], action: Action, blocked: bool
) -> None:
    d = _decide(verdict, **kw)
    assert (d.action, d.acted, d.blocked) == (action, True, blocked)  # type: ignore[attr-defined]


def test_error_says_nothing_was_measured() -> None:
    assert "nothing conclusive was measured" in _decide("ERROR").message  # type: ignore[attr-defined]


def test_observing_records_what_it_would_do_and_never_blocks() -> None:
    d = _decide("FAIL", mode=OBSERVE)
    assert (d.acted, d.blocked) == (False, False)  # type: ignore[attr-defined]
    assert d.message.startswith("would hold (ObserveOnly)")  # type: ignore[attr-defined]


def test_an_open_breaker_still_holds_but_never_approves_or_rolls_back() -> None:
    assert _decide("FAIL", circuit_open=True).acted  # type: ignore[attr-defined]
    for kw in ({}, {"on_fail": "Rollback"}):
        verdict = "PASS" if not kw else "FAIL"
        d = _decide(verdict, circuit_open=True, **kw)
        assert not d.acted  # type: ignore[attr-defined]
        assert "circuit breaker is open" in d.message  # type: ignore[attr-defined]


def test_the_breaker_opens_on_more_than_max_blocks_in_the_window() -> None:
    now = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
    recent = [now - dt.timedelta(minutes=m) for m in (1, 5, 10)]
    assert not breaker_open(recent, now, max_blocks=3, window_minutes=60)
    assert breaker_open([*recent, now], now, max_blocks=3, window_minutes=60)
    old = [now - dt.timedelta(minutes=m) for m in (61, 70, 80, 90)]
    assert not breaker_open(old, now, max_blocks=3, window_minutes=60)
