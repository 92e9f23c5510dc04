"""Property: whatever bytes and values a network client sends, the collector answers 2xx or 4xx,
never a 500, and stores every span and event it acknowledged whole and nothing it refused (issue 24,
class 4). The real collector process on SQLite and on a real PostgreSQL; hypothesis writes the
requests: protobuf and OTLP/JSON spans with arbitrary names, times, ids and attribute values,
arbitrary bytes, and native events with NULs, lone surrogates and odd timestamps."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from collecting import TOKEN, Collector, collector, manifests
from proctor.store import Store

HEADERS = {"Authorization": f"Bearer {TOKEN}"}
#: Fresh ids for every example, shrinks and replays included: a span is never a resend of another.
_IDS = itertools.count(1)
EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)

# Characters no database stores next to ordinary ones (protobuf strings cannot hold surrogates).
_odd = st.sampled_from(["\x00", "\ufffd", "\u202e", "é", "\U0001f600", "\n"])
proto_text = st.text(st.one_of(st.characters(exclude_categories=["Cs"]), _odd), max_size=40)
json_text = st.text(st.one_of(st.characters(), _odd, st.sampled_from(["\ud800", "\udfff"])), max_size=40)
u64 = st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 2**63 - 1, 2**63, 2**64 - 1]))


def any_value(depth: int = 2) -> st.SearchStrategy[AnyValue]:
    leaves = st.one_of(
        proto_text.map(lambda s: AnyValue(string_value=s)),
        st.integers(-(2**63), 2**63 - 1).map(lambda i: AnyValue(int_value=i)),
        st.floats(allow_nan=True, allow_infinity=True).map(lambda f: AnyValue(double_value=f)),
        st.booleans().map(lambda b: AnyValue(bool_value=b)),
        st.binary(max_size=20).map(lambda b: AnyValue(bytes_value=b)),
    )
    if depth == 0:
        return leaves
    return st.one_of(
        leaves,
        st.lists(any_value(depth - 1), max_size=3).map(
            lambda xs: AnyValue(array_value=ArrayValue(values=xs))
        ),
    )


@st.composite
def spans(draw: st.DrawFn) -> Span:
    n = next(_IDS)
    good = draw(st.integers(0, 9)) > 0
    trace = n.to_bytes(16, "big") if good else draw(st.binary(max_size=20))
    s = Span(
        trace_id=trace, span_id=n.to_bytes(8, "big"), name=draw(proto_text), kind=draw(st.integers(0, 5))
    )
    s.parent_span_id = draw(st.sampled_from([b"", (n + 1).to_bytes(8, "big"), b"\x01\x02"]))
    s.start_time_unix_nano, s.end_time_unix_nano = draw(u64), draw(u64)
    s.status.code, s.status.message = draw(st.integers(0, 2)), draw(proto_text)
    s.attributes.append(KeyValue(key="gen_ai.operation.name", value=AnyValue(string_value="chat")))
    s.attributes.append(
        KeyValue(key="gen_ai.conversation.id", value=AnyValue(string_value=draw(proto_text) or f"c{n}"))
    )
    for key, value in draw(st.lists(st.tuples(proto_text, any_value()), max_size=4)):
        s.attributes.append(KeyValue(key=key, value=value))
    return s


def export(batch: list[Span], version: str) -> ExportTraceServiceRequest:
    rs = ResourceSpans(scope_spans=[ScopeSpans(spans=batch)])
    for key, value in (("service.name", "oil-agent"), ("service.version", version)):
        rs.resource.attributes.append(KeyValue(key=key, value=AnyValue(string_value=value)))
    return ExportTraceServiceRequest(resource_spans=[rs])


def as_otlp_json(req: ExportTraceServiceRequest, numbers: bool) -> bytes:
    """OTLP/JSON of ``req``: hex ids, 64-bit integers as strings or numbers."""
    from google.protobuf.json_format import MessageToDict

    doc = MessageToDict(req)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in s:
                        import base64

                        s[k] = base64.b64decode(s[k]).hex()
                if numbers:
                    for k in ("startTimeUnixNano", "endTimeUnixNano"):
                        if k in s:
                            s[k] = int(s[k])
    return json.dumps(doc).encode()


class Counts:
    def __init__(self, store: Store) -> None:
        self.store = store

    def __call__(self) -> tuple[int, int]:
        return self.store.count("spans"), self.store.count("events")

    def consistent(self) -> None:
        """Every run's counters equal the rows stored for it: nothing is stored half."""
        runs = self.store.list_runs(limit=100_000)
        assert sum(r.span_count for r in runs) == self.store.count("spans")
        assert sum(r.event_count for r in runs) == self.store.count("events")


@pytest.fixture
def live(db_url: str, tmp_path: Path) -> Iterator[tuple[Collector, Counts]]:
    with collector(tmp_path, db_url, manifests(None, quiescence=3600), "--no-worker") as c:
        store = Store.open(db_url)
        try:
            yield c, Counts(store)
        finally:
            store.close()


def _rejected(r: httpx.Response) -> int:
    if r.headers["Content-Type"].startswith("application/json"):
        return int(r.json().get("partialSuccess", {}).get("rejectedSpans", 0))
    return ExportTraceServiceResponse.FromString(r.content).partial_success.rejected_spans


@EXAMPLES
@given(
    batch=st.lists(spans(), min_size=1, max_size=6),
    version=proto_text,
    encoding=st.sampled_from(["pb", "json", "json-numbers"]),
)
def test_any_spans_are_stored_whole_or_rejected_never_a_500(
    live: tuple[Collector, Counts], batch: list[Span], version: str, encoding: str
) -> None:
    c, counts = live
    req = export(batch, version or "1")
    if encoding == "pb":
        body, ctype = req.SerializeToString(), "application/x-protobuf"
    else:
        body, ctype = as_otlp_json(req, encoding == "json-numbers"), "application/json"
    before = counts()
    r = httpx.post(f"{c.url}/v1/traces", content=body, headers={**HEADERS, "Content-Type": ctype}, timeout=60)
    spans_now, _ = counts()
    assert r.status_code < 500, r.text
    if r.status_code == 200:
        assert spans_now - before[0] == len(batch) - _rejected(r)
    else:
        assert spans_now == before[0]
    counts.consistent()


@EXAMPLES
@given(
    body=st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.floats() | st.integers() | json_text,
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(["resourceSpans", "scopeSpans", "spans", "traceId", "name", "x"]),
                    inner,
                    max_size=3,
                )
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps({"resourceSpans": v}).encode()),
    ),
    ctype=st.sampled_from(["application/x-protobuf", "application/json"]),
)
def test_any_bytes_get_an_answer_never_a_500(live: tuple[Collector, Counts], body: bytes, ctype: str) -> None:
    c, counts = live
    r = httpx.post(f"{c.url}/v1/traces", content=body, headers={**HEADERS, "Content-Type": ctype}, timeout=60)
    assert r.status_code < 500, r.text
    counts.consistent()


timestamps = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**70), 2**70),
    st.sampled_from(
        [
            "2026-01-31T12:00:00Z",
            "9999-12-31T23:59:59Z",
            "0001-01-01T00:00:00+00:00",
            "soon",
            "2026-01-31T12:00:00",
        ]
    ),
)


@st.composite
def native_events(draw: st.DrawFn) -> list[dict[str, Any]]:
    execution = draw(st.one_of(st.just(f"x{next(_IDS)}"), json_text.map(lambda s: f"x{next(_IDS)}{s}")))
    out = []
    for _ in range(draw(st.integers(1, 5))):
        ev: dict[str, Any] = {
            "executionId": execution,
            "kind": draw(st.sampled_from(["input", "output", "tool_call", "tool_result", "final"])),
            "text": draw(json_text),
        }
        if draw(st.booleans()):
            ev["timestamp"] = draw(timestamps)
        if draw(st.booleans()):
            ev["name"] = draw(json_text)
        if draw(st.booleans()):
            ev["id"] = draw(
                st.one_of(st.just(f"id{next(_IDS)}"), json_text.map(lambda s: f"id{next(_IDS)}{s}"))
            )
        if draw(st.booleans()):
            ev["attributes"] = draw(
                st.dictionaries(json_text, st.one_of(json_text, st.integers(), st.floats()), max_size=3)
            )
        out.append(ev)
    return out


@EXAMPLES
@given(events=native_events())
def test_any_native_events_are_stored_whole_or_refused_never_a_500(
    live: tuple[Collector, Counts], events: list[dict[str, Any]]
) -> None:
    c, counts = live
    body = json.dumps({"agent": {"serviceName": "oil-agent"}, "events": events}, ensure_ascii=True)
    before = counts()
    r = httpx.post(
        f"{c.url}/v1/events",
        content=body.encode(),
        headers={**HEADERS, "Content-Type": "application/json"},
        timeout=60,
    )
    _, events_now = counts()
    assert r.status_code < 500, r.text
    if r.status_code == 200:
        assert (
            events_now - before[1] == r.json()["accepted"] == len(events) - len(r.json().get("rejected", []))
        )
    else:
        assert events_now == before[1]
    counts.consistent()
