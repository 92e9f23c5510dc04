"""Redaction at ingestion (``proctor.collector.redaction``): every text a span or a native event
carries is redacted with its monitor's scan policy before the Writer inserts it; the markers are
the evidence evaluation reads back. (Through the real collector and databases:
``tests/integration/test_collector_secrets.py``.)"""

from __future__ import annotations

import json
from typing import Any

from proctor.api import parse_monitor, parse_profile
from proctor.collector.monitors import build
from proctor.collector.redaction import Redactor, redact_item
from proctor.graders import redacted_findings
from proctor.store import EventRecord, Item, RunRef, SpanRecord

AWS = "AKIAIOSFODNN7EXAMPLX"
EMAIL = "jane.doe@acme-corp.com"


def _span(**fields: Any) -> SpanRecord:
    base: dict[str, Any] = {
        "trace_id": "0" * 32,
        "span_id": "1" * 16,
        "name": "execute_tool",
        "start_ns": 1,
        "end_ns": 2,
    }
    return SpanRecord(**(base | fields))


def _item(monitor: str = "ns/m", **fields: Any) -> Item:
    return Item(RunRef(monitor, "k", "gen_ai.conversation.id", "oil-agent", None), span=_span(**fields))


def test_every_text_of_a_span_is_redacted_and_the_markers_read_back() -> None:
    item = _item(
        name=f"execute_tool {AWS}",
        status_message=f"failed for {EMAIL}",
        attributes={
            "gen_ai.tool.call.result": json.dumps({"key": AWS, "n": 2}),
            "gen_ai.usage.input_tokens": 12,
            "tags": ["ok", f"mail {EMAIL}"],
        },
        resource={"service.name": "oil-agent", "deploy.owner": EMAIL},
        events=({"name": "gen_ai.choice", "attributes": {"message": f"use {AWS}"}},),
    )
    out = redact_item(item)
    text = repr(out)
    assert AWS not in text and EMAIL not in text
    assert out.run == item.run and out.span is not None
    assert out.span.attributes["gen_ai.usage.input_tokens"] == 12
    result = json.loads(out.span.attributes["gen_ai.tool.call.result"])  # still a JSON document
    assert result["n"] == 2 and [f.kind for f in redacted_findings(result["key"])] == ["aws-access-key"]
    assert out.span.resource["service.name"] == "oil-agent"
    assert redacted_findings(out.span.events[0]["attributes"]["message"])


def test_a_clean_item_is_the_same_object() -> None:
    item = _item(attributes={"gen_ai.tool.call.result": "NORMAL below 0.30 qt/hr"})
    assert redact_item(item) is item


def test_a_native_event_is_redacted() -> None:
    event = EventRecord(
        id="e1", kind="tool_result", text=f"key {AWS}", timestamp=1.0, attributes={"to": EMAIL}
    )
    item = Item(RunRef("ns/m", "k", "executionId", "oil-agent", None), event=event)
    out = redact_item(item)
    assert out.event is not None and AWS not in repr(out) and EMAIL not in repr(out)
    assert out.event.id == "e1" and redacted_findings(out.event.text)


def _monitor(name: str, profile: str) -> Any:
    return parse_monitor(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"agent": {"serviceName": name}, "profileRef": {"name": profile}},
        }
    )


def _profile(name: str, scan: dict[str, Any]) -> Any:
    return parse_profile(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"safetyScan": scan},
        }
    )


def test_each_monitor_is_redacted_with_its_profiles_scan_and_an_unknown_one_with_the_default() -> None:
    registry = build(
        [
            _monitor("secrets-only", "a"),
            _monitor("everything", "b"),
            _monitor("orphan", "missing"),
            _monitor("bad-allow", "bad"),
        ],
        [_profile("a", {"pii": False}), _profile("b", {}), _profile("bad", {"allow": ["("]})],
        default_token="t",
    )
    redactor = Redactor(lambda: registry)
    text = f"key {AWS} mail {EMAIL}"
    out = redactor(
        [
            _item(m, attributes={"x": text})
            for m in ("ns/secrets-only", "ns/everything", "ns/orphan", "ns/gone", "ns/bad-allow")
        ]
    )
    values = [i.span.attributes["x"] for i in out if i.span is not None]
    assert AWS not in "".join(values)
    assert EMAIL in values[0]  # that profile does not scan for personal data
    # the default scan where no profile says otherwise, or its allow list does not compile
    assert all(EMAIL not in v for v in values[1:]) and len(values) == 5
