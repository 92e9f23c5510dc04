"""A GatePolicy relying on a judge people's reviews show misses breaches: the chain's link, the
policy's JudgeTrusted condition from its profile's, and the decision (pure)."""

from __future__ import annotations

from proctor.gate.actions import (
    VERDICT_POLICIES,
    Action,
    Mode,
    VerdictInput,
    choose,
    counts_as_block,
    decide,
    judge_trust_view,
    judge_untrusted,
)

MISSES = (
    "False",
    "MissesBreaches",
    "the judge misses breaches on safety (recall lower bound 0.41), under the floor 0.8",
)
ENFORCE = Mode(True, "Enforcing", "enforcing")


def test_an_untrusted_judge_holds_a_passing_verdict_as_a_fail_does_when_the_policy_asks() -> None:
    view = judge_trust_view("oil-rag", MISSES, hold_untrusted=True)
    assert (view.status, view.reason) == ("False", "MissesBreaches")
    assert view.hold is not None and "safety" in view.hold and "0.41" in view.hold
    for verdict in ("PASS", "WARN"):
        i = VerdictInput(verdict, "all tiers clean", True, None, view.hold)
        assert next(p for p in VERDICT_POLICIES if p(i) is not None) is judge_untrusted
        reason, message, blocked = choose(VERDICT_POLICIES, i)
        assert (reason, blocked) == ("JudgeNotTrusted", True)
        assert "misses breaches" in message and "safety" in message and "all tiers clean" in message
    dec = decide(
        "PASS",
        "all tiers clean",
        allow_warn=True,
        on_fail="Hold",
        mode=ENFORCE,
        circuit_open=False,
        has_approved_template=True,
        judge_hold=view.hold,
    )
    assert (dec.action, dec.acted, dec.blocked, dec.reason) == (Action.HOLD, True, True, "JudgeNotTrusted")
    # a FAIL or ERROR holds under its own reason; the policy's judge is not the Deployment's fault
    assert choose(VERDICT_POLICIES, VerdictInput("FAIL", "x", True, None, view.hold))[0] == "VerdictFailed"
    assert choose(VERDICT_POLICIES, VerdictInput("ERROR", "x", True, None, view.hold))[0] == "VerdictError"
    assert not counts_as_block("JudgeNotTrusted")


def test_warn_says_so_and_lets_the_verdict_stand() -> None:
    view = judge_trust_view("oil-rag", MISSES, hold_untrusted=False)
    assert view.status == "False" and view.hold is None
    assert "oil-rag" in view.message and "safety" in view.message and "judgeTrust: Warn" in view.message
    dec = decide(
        "PASS",
        "ok",
        allow_warn=True,
        on_fail="Hold",
        mode=ENFORCE,
        circuit_open=False,
        has_approved_template=True,
        judge_hold=view.hold,
    )
    assert dec.action is Action.APPROVE and not dec.blocked


def test_only_a_false_condition_holds_and_unknown_is_said_as_unknown() -> None:
    for cond in (("True", "RecallAboveFloor", "ok"), ("Unknown", "TooFewReviews", "3 reviews")):
        view = judge_trust_view("oil-rag", cond, hold_untrusted=True)
        assert view.hold is None and (view.status, view.reason) == cond[:2]
    none_yet = judge_trust_view("oil-rag", None, hold_untrusted=True)
    assert (none_yet.status, none_yet.reason, none_yet.hold) == ("Unknown", "JudgeTrustUnknown", None)
    no_profile = judge_trust_view(None, None, hold_untrusted=True)
    assert (no_profile.status, no_profile.hold) == ("Unknown", None)


def test_observing_never_holds_for_the_judge() -> None:
    view = judge_trust_view("oil-rag", MISSES, hold_untrusted=True)
    observe = Mode(False, "ObserveOnly", "observing")
    dec = decide(
        "PASS",
        "ok",
        allow_warn=True,
        on_fail="Hold",
        mode=observe,
        circuit_open=False,
        has_approved_template=True,
        judge_hold=view.hold,
    )
    assert not dec.acted and not dec.blocked and dec.message.startswith("would hold")
