"""The circuit breaker (seed 000): a storm of notices becomes one needs_human, then silence."""

from __future__ import annotations

import pytest

from proctor.protocol import (
    AlertAction,
    AlertState,
    BreakerAction,
    BreakerPolicy,
    BreakerState,
    Detection,
    DetectorConfig,
    DetectorKind,
    DetectorReport,
    NoticeSeverity,
    breaker_refresh,
    breaker_reset,
    breaker_step,
    route,
)

POLICY = BreakerPolicy(max_notices=3, window_s=60.0)


def steps(
    times: list[float], policy: BreakerPolicy, state: BreakerState | None = None
) -> list[BreakerAction]:
    state, taken = state or BreakerState(), []
    for now in times:
        state, action = breaker_step(state, now, policy)
        taken.append(action)
    return taken


def test_more_than_max_within_the_window_escalates_once_then_suppresses() -> None:
    assert steps([0, 1, 2, 3, 4, 5], POLICY) == [
        BreakerAction.ADMIT,
        BreakerAction.ADMIT,
        BreakerAction.ADMIT,
        BreakerAction.ESCALATE,
        BreakerAction.SUPPRESS,
        BreakerAction.SUPPRESS,
    ]


def test_spread_out_events_never_trip_it() -> None:
    assert steps([0, 30, 61, 92, 123, 154], POLICY) == [BreakerAction.ADMIT] * 6


def test_an_unlatched_breaker_closes_when_its_window_drains() -> None:
    state = BreakerState()
    for now in (0.0, 1.0, 2.0, 3.0):
        state, _ = breaker_step(state, now, POLICY)
    assert state.open
    assert state.opened_at == 3.0
    state, action = breaker_step(state, 50.0, POLICY)
    assert action is BreakerAction.SUPPRESS
    assert state.suppressed == 1
    assert breaker_refresh(state, 62.9, POLICY).open  # the escalation at 3.0 is still in the window
    state, action = breaker_step(state, 63.0, POLICY)
    assert action is BreakerAction.ADMIT
    assert not state.open


def test_a_latched_breaker_stays_open_until_a_manual_reset() -> None:
    policy = BreakerPolicy(max_notices=1, window_s=10.0, latch=True)
    state = BreakerState()
    for now in (0.0, 1.0):
        state, _ = breaker_step(state, now, policy)
    assert state.open
    state, action = breaker_step(state, 1000.0, policy)
    assert action is BreakerAction.SUPPRESS
    assert state.open
    state = breaker_reset(state)
    assert state == BreakerState()
    assert breaker_step(state, 1001.0, policy)[1] is BreakerAction.ADMIT


@pytest.mark.parametrize("kwargs", [{"max_notices": 0}, {"window_s": 0.0}])
def test_policy_rejects_nonsense(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be"):
        BreakerPolicy(**kwargs)  # type: ignore[arg-type]


def breach(metric: str) -> DetectorReport:
    return DetectorReport((Detection(DetectorKind.BREACH, metric, 0.2, 0.5),))


def test_route_posts_escalates_and_suppresses() -> None:
    config, policy = DetectorConfig(), BreakerPolicy(max_notices=2, window_s=100.0)
    breaker = BreakerState()
    severities = []
    for i in range(4):  # four sessions, each with a new breach
        routed = route(breach(f"m{i}"), AlertState(), breaker, now=float(i), config=config, policy=policy)
        breaker = routed.breaker
        severities.append(None if routed.notice is None else routed.notice.severity)
    assert severities == [NoticeSeverity.BREACH, NoticeSeverity.BREACH, NoticeSeverity.NEEDS_HUMAN, None]


def test_duplicates_do_not_spend_the_breakers_budget() -> None:
    config, policy = DetectorConfig(), BreakerPolicy(max_notices=1, window_s=100.0)
    alert, breaker = AlertState(), BreakerState()
    for now in range(5):
        routed = route(breach("m"), alert, breaker, now=float(now), config=config, policy=policy)
        alert, breaker = routed.alert, routed.breaker
        expected = AlertAction.NOTIFY if now == 0 else AlertAction.DUPLICATE
        assert routed.action is expected
        assert (routed.breaker_action is None) == (now > 0)
    assert breaker.events == (0.0,)
    assert not breaker.open
