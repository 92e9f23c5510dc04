"""Which monitor and run a span belongs to, who may send it, and the native event format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.api import ManifestError, parse_monitor, parse_profile
from proctor.collector.events import BadEvents, event_id, parse, schema
from proctor.collector.monitors import build, load_files, revision_of
from proctor.collector.views import SUMMARY_KEYS, run_json, run_summary
from proctor.store import RunView, ScoreView

PROFILE = parse_profile(
    {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {},
    }
)


def monitor(name: str = "m", service: str = "oil-agent", **spec: Any) -> Any:
    return parse_monitor(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"agent": {"serviceName": service}, "profileRef": {"name": "p"}, **spec},
        }
    )


def test_the_run_key_is_the_first_attribute_present_span_then_resource() -> None:
    reg = build([monitor()], [PROFILE], default_token="t")
    mon = reg.get("ns/m")
    assert mon is not None
    resource = {"service.name": "oil-agent", "session.id": "s-1"}
    assert mon.run_of("ab" * 16, {}, resource).key == "s-1"  # type: ignore[union-attr]
    ref = mon.run_of("ab" * 16, {"gen_ai.conversation.id": "conv-9"}, resource)
    assert ref is not None and (ref.key, ref.key_source) == ("conv-9", "gen_ai.conversation.id")
    ref = mon.run_of("ab" * 16, {"proctor.execution_id": "exec-1", "gen_ai.conversation.id": "c"}, resource)
    assert ref is not None and ref.key == "exec-1"
    ref = mon.run_of("ab" * 16, {}, {"service.name": "oil-agent"})
    assert ref is not None and (ref.key, ref.key_source) == ("ab" * 16, "trace_id")
    strict = build([monitor(runKey=["session.id"])], [PROFILE], default_token="t").get("ns/m")
    assert strict is not None and strict.run_of("ab" * 16, {}, {"service.name": "oil-agent"}) is None


def test_the_revision_tells_a_canary_from_the_stable_pods() -> None:
    assert revision_of({"service.version": "1.2.0"}) == "1.2.0"
    assert (
        revision_of({"service.version": "1.2.0", "k8s.pod.labels.pod-template-hash": "7d9f"}) == "1.2.0@7d9f"
    )
    assert revision_of({"k8s.deployment.name": "agent", "k8s.replicaset.name": "agent-5c6b"}) == "@5c6b"
    assert revision_of({}) is None


def test_tokens_grant_only_their_monitors_and_a_missing_secret_grants_nothing() -> None:
    reg = build(
        [monitor("a", "svc-a"), monitor("b", "svc-b"), monitor("c", "svc-c")],
        [PROFILE],
        default_token="shared",
        tokens={"ns/b": "b-only", "ns/c": ""},  # c's Secret could not be read
    )
    assert reg.ingest_grant("shared") == {"ns/a"}
    assert reg.ingest_grant("b-only") == {"ns/b"}
    assert (
        reg.ingest_grant("") == set() and reg.ingest_grant(None) == set() and reg.ingest_grant("x") == set()
    )
    assert reg.for_resource({"service.name": "svc-b"}, frozenset({"ns/a"})) is None
    assert "b-only" not in repr(reg) and "shared" not in repr(reg)


def test_a_version_pin_narrows_the_monitor() -> None:
    reg = build([monitor(agent={"serviceName": "oil-agent", "version": "2"})], [PROFILE], default_token="t")
    assert reg.for_resource({"service.name": "oil-agent", "service.version": "2"}, None) is not None
    assert reg.for_resource({"service.name": "oil-agent", "service.version": "1"}, None) is None


def test_monitor_files_need_their_profile(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text(json.dumps(monitor().model_dump(mode="json", by_alias=True, exclude_none=True)))
    with pytest.raises(ManifestError, match=r"EvalProfile ns/p not found \(give it with --profile\)"):
        load_files([f], default_token="t")


def test_native_events_validate_whole_and_derive_stable_ids() -> None:
    body = {
        "agent": {"serviceName": "oil-agent", "version": "1"},
        "events": [
            {"executionId": "x1", "kind": "input", "text": "hi", "timestamp": "2026-01-31T12:00:00.250Z"},
            {"executionId": "x1", "kind": "final", "text": "bye", "timestamp": 1769860800.5},
        ],
    }
    batch = parse(json.dumps(body).encode(), now=5.0)
    assert [e.final for e in batch.events] == [False, True]
    assert batch.events[0].record.timestamp == pytest.approx(1769860800.25)
    again = parse(json.dumps(body).encode(), now=99.0)
    assert [e.record.id for e in again.events] == [
        e.record.id for e in batch.events
    ]  # a resend is recognised
    assert event_id("x1", "input", None, None, "a") != event_id("x1", "input", None, None, "b")
    for bad, words in [
        ({"events": []}, "agent"),
        ({**body, "events": [{"executionId": "x", "kind": "thought", "text": "?"}]}, r"events\[0\]\.kind"),
        ({**body, "events": [{"kind": "input", "text": "?"}]}, "executionId"),
        ({**body, "extra": 1}, "extra"),
    ]:
        with pytest.raises(BadEvents, match=words):
            parse(json.dumps(bad).encode(), now=0.0)
    assert schema()["title"].startswith("Proctor native events")


def test_the_stable_run_summary_is_exactly_the_documented_shape() -> None:
    view = RunView(
        id="r1",
        monitor="ns/m",
        key="k",
        key_source="trace_id",
        agent="a",
        revision=None,
        state="Evaluated",
        attempts=1,
        sampled=True,
        stale=False,
        breached=False,
        first_event_at=0.0,
        last_event_at=1.0,
        next_attempt_at=None,
        last_error=None,
        span_count=2,
        event_count=0,
        scores=(
            ScoreView("safety", 90.0, None, 50.0, "judge", None, (90.0,), "", "sha256:x", 1),
            ScoreView("task_success", None, "judge unavailable", 50.0, "judge", None, (), "", "sha256:x", 1),
        ),
    )
    summary = run_summary(run_json(view))
    assert tuple(summary) == SUMMARY_KEYS
    assert summary == {
        "id": "r1",
        "monitor": "ns/m",
        "state": "Evaluated",
        "attempts": 1,
        "scores": {
            "safety": {"score": 90.0, "skipped": None},
            "task_success": {"score": None, "skipped": "judge unavailable"},
        },
    }


def _in(ns: str, name: str, service: str = "oil-agent") -> Any:
    m = monitor(name, service)
    return m.model_copy(update={"metadata": m.metadata.model_copy(update={"namespace": ns})})


def test_two_tenants_watching_one_service_receive_only_what_carries_their_token() -> None:
    """In a cluster (no collector-wide token) a span reaches only the monitor whose token it carries;
    a monitor without a token of its own, or whose Secret could not be read, is closed."""
    reg = build(
        [_in("team-a", "oil"), _in("team-b", "oil"), _in("team-c", "oil"), _in("team-d", "oil")],
        [PROFILE],
        default_token=None,
        tokens={"team-a/oil": "token-a", "team-b/oil": "token-b"},
        closed={"team-c/oil": "spec.tokenSecretRef is not set", "team-d/oil": "cannot read Secret"},
    )
    span = {"service.name": "oil-agent"}
    for token, tenant in (("token-a", "team-a/oil"), ("token-b", "team-b/oil")):
        grant = reg.ingest_grant(token)
        assert grant == {tenant}
        routed = reg.for_resource(span, grant)
        assert routed is not None and routed.name == tenant
    for nobody in ("", None, "token-c", "token-a "):
        assert reg.ingest_grant(nobody) == set()
    closed = reg.get("team-c/oil")
    assert closed is not None and closed.closed == "spec.tokenSecretRef is not set"
    # the same closed monitors with a default token (a collector from files): still closed
    with_default = build([_in("team-c", "oil")], [PROFILE], default_token="t", closed={"team-c/oil": "x"})
    assert with_default.ingest_grant("t") == set()


def test_the_management_token_is_never_the_ingestion_token() -> None:
    import asyncio

    from proctor.collector.auth import LocalAuth, Unauthenticated

    with pytest.raises(ValueError, match="PROCTOR_API_TOKEN equals the ingestion token"):
        LocalAuth("same", ingestion_token="same")
    auth = LocalAuth("api-token", ingestion_token="ingest-token")
    assert asyncio.run(auth.authenticate("api-token")).name == "proctor-api-token"
    for wrong in ("ingest-token", "", None, "api-token2"):
        with pytest.raises(Unauthenticated):
            asyncio.run(auth.authenticate(wrong))
    closed = LocalAuth(None, ingestion_token="ingest-token")  # no PROCTOR_API_TOKEN: closed, not open
    with pytest.raises(Unauthenticated, match="PROCTOR_API_TOKEN"):
        asyncio.run(closed.authenticate("ingest-token"))
    assert "api-token" not in repr(auth)
