"""OTLP/HTTP decoding: protobuf and OTLP/JSON (hex ids, integer enums, camelCase), and bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from proctor.collector.otlp import (
    MAX_TIME_NS,
    MAX_VALUE_CHARS,
    SANITIZED_ATTRIBUTE,
    TRUNCATED_ATTRIBUTE,
    BadPayload,
    DecodedSpan,
    Rejected,
    iter_spans,
    parse_request,
    response,
    status_body,
)

TRACE = bytes(range(1, 17))
SPAN = bytes(range(1, 9))


def kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def request(*spans: Span, service: str = "oil-agent") -> ExportTraceServiceRequest:
    rs = ResourceSpans(scope_spans=[ScopeSpans(spans=list(spans))])
    rs.resource.attributes.append(kv("service.name", service))
    return ExportTraceServiceRequest(resource_spans=[rs])


def span(**attrs: Any) -> Span:
    s = Span(trace_id=TRACE, span_id=SPAN, name="chat judge-small", kind=Span.SPAN_KIND_CLIENT)
    s.start_time_unix_nano, s.end_time_unix_nano = 1_700_000_000_000_000_000, 1_700_000_001_000_000_000
    s.attributes.extend(kv(k, v) for k, v in attrs.items())
    s.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message="tool failed"))
    return s


def decoded(req: ExportTraceServiceRequest) -> list[DecodedSpan]:
    out = list(iter_spans(req))
    assert all(isinstance(d, DecodedSpan) for d in out)
    return out  # type: ignore[return-value]


def test_protobuf_spans_decode_with_hex_ids_status_and_resource() -> None:
    body = request(
        span(**{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12})
    ).SerializeToString()
    (d,) = decoded(parse_request(body, "application/x-protobuf"))
    assert d.span.trace_id == TRACE.hex() and d.span.span_id == SPAN.hex()
    assert d.span.operation == "chat" and d.span.attributes["gen_ai.usage.input_tokens"] == 12
    assert (d.span.status_code, d.span.status_message) == (2, "tool failed")
    assert d.resource == {"service.name": "oil-agent"} and d.span.kind == 3


def test_otlp_json_hex_ids_integer_enums_and_camel_case() -> None:
    doc = {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "oil-agent"}}]},
                "scopeSpans": [
                    {
                        "scope": {"name": "my.agent"},
                        "spans": [
                            {
                                "traceId": TRACE.hex(),
                                "spanId": SPAN.hex(),
                                "parentSpanId": "0807060504030201",
                                "name": "execute_tool lookup",
                                "kind": 1,
                                "startTimeUnixNano": "1700000000000000000",
                                "endTimeUnixNano": 1700000000500000000,
                                "attributes": [
                                    {
                                        "key": "gen_ai.operation.name",
                                        "value": {"stringValue": "execute_tool"},
                                    },
                                    {"key": "n", "value": {"intValue": "7"}},
                                    {"key": "ok", "value": {"boolValue": True}},
                                    {
                                        "key": "xs",
                                        "value": {"arrayValue": {"values": [{"doubleValue": 1.5}]}},
                                    },
                                ],
                                "status": {"code": 2},
                                "unknownField": "ignored, as OTLP asks",
                            }
                        ],
                    }
                ],
            }
        ]
    }
    (d,) = decoded(parse_request(json.dumps(doc).encode(), "application/json; charset=utf-8"))
    assert d.span.trace_id == TRACE.hex() and d.span.parent_span_id == "0807060504030201"
    assert d.span.attributes == {"gen_ai.operation.name": "execute_tool", "n": 7, "ok": True, "xs": [1.5]}
    assert d.span.status_code == 2 and d.span.start_ns == 1700000000000000000 and d.scope == "my.agent"


@pytest.mark.parametrize(
    ("body", "ctype", "words"),
    [
        (b"\x0a\xff\xff\xff", "application/x-protobuf", "malformed protobuf"),
        (b"{not json", "application/json", "not JSON"),
        (b"[1, 2]", "application/json", "not an object"),
        (b'{"metrics": []}', "application/json", "no resourceSpans"),
        (b'{"resourceSpans": "nope"}', "application/json", "not an OTLP"),
        (b"x", "text/plain", "unsupported Content-Type"),
    ],
)
def test_bad_bodies_are_refused_with_a_reason(body: bytes, ctype: str, words: str) -> None:
    with pytest.raises(BadPayload, match=words):
        parse_request(body, ctype)


def test_spans_with_invalid_ids_are_rejected_one_by_one() -> None:
    bad = span()
    bad.trace_id = b"\x00" * 16
    short = span()
    short.span_id = b"\x01\x02"
    out = list(iter_spans(request(span(), bad, short)))
    assert [type(d).__name__ for d in out] == ["DecodedSpan", "Rejected", "Rejected"]
    assert isinstance(out[1], Rejected) and "trace_id" in out[1].reason


def _outcome(req: ExportTraceServiceRequest) -> list[tuple[str, str]]:
    return [
        (d.span.name, d.span.span_id) if isinstance(d, DecodedSpan) else ("rejected", d.reason)
        for d in iter_spans(req)
    ]


def test_edge_values_reject_their_span_alone_alike_in_protobuf_and_json() -> None:
    late = span()
    late.name, late.start_time_unix_nano = "late", MAX_TIME_NS + 1
    last = span()
    last.name, last.end_time_unix_nano = "last", 2**64 - 1
    orphan = span()
    orphan.name, orphan.parent_span_id = "orphan", b"\x01\x02\x03"
    nul = span()
    nul.name = "chat\x00m"
    nul.status.message = "bad\x00"
    req = request(span(), late, last, orphan, nul)
    as_json = json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "oil-agent"}}]
                    },
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": s.trace_id.hex(),
                                    "spanId": s.span_id.hex(),
                                    "parentSpanId": s.parent_span_id.hex(),
                                    "name": s.name,
                                    "startTimeUnixNano": str(s.start_time_unix_nano),
                                    "endTimeUnixNano": str(s.end_time_unix_nano),
                                    "status": {"code": 2, "message": s.status.message},
                                }
                                for s in req.resource_spans[0].scope_spans[0].spans
                            ]
                        }
                    ],
                }
            ]
        }
    ).encode()
    proto = _outcome(parse_request(req.SerializeToString(), "application/x-protobuf"))
    assert proto == _outcome(parse_request(as_json, "application/json"))
    assert [o[0] for o in proto] == ["chat judge-small", "rejected", "rejected", "rejected", "chat\ufffdm"]
    assert "start_time_unix_nano" in proto[1][1] and "end_time_unix_nano" in proto[2][1]
    assert "parent_span_id" in proto[3][1]
    (*_, cleaned) = iter_spans(req)
    assert isinstance(cleaned, DecodedSpan) and cleaned.span.status_message == "bad\ufffd"
    assert cleaned.span.attributes[SANITIZED_ATTRIBUTE] == ["name", "status.message"]


def test_an_otlp_json_id_that_is_not_hex_rejects_its_span_not_the_request() -> None:
    good = {"traceId": TRACE.hex(), "spanId": SPAN.hex(), "name": "good"}
    bad = {"traceId": "zz", "spanId": SPAN.hex(), "name": "bad"}
    bad_parent = {**good, "name": "bad parent", "parentSpanId": "not hex"}
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [good, bad, bad_parent]}]}]}).encode()
    out = list(iter_spans(parse_request(body, "application/json")))
    assert isinstance(out[0], DecodedSpan) and out[0].span.name == "good"
    assert isinstance(out[1], Rejected) and "trace_id must be 16 bytes (32 hex digits" in out[1].reason
    assert isinstance(out[2], Rejected) and "parent_span_id" in out[2].reason


def test_a_10_mb_attribute_is_truncated_with_a_marker_not_dropped() -> None:
    huge = "x" * (10 * 1024 * 1024)
    (d,) = decoded(request(span(**{"gen_ai.output.messages": huge, "small": "kept"})))
    value = d.span.attributes["gen_ai.output.messages"]
    assert value.startswith("x" * 100) and len(value) < MAX_VALUE_CHARS + 100
    assert value.endswith(f"[truncated by proctor: {len(huge)} characters]")
    assert d.span.attributes[TRUNCATED_ATTRIBUTE] == ["gen_ai.output.messages"]
    assert d.span.attributes["small"] == "kept"


def test_partial_success_and_status_bodies_in_the_request_encoding() -> None:
    body, ctype = response(2, "2 spans: no run key", "application/x-protobuf")
    parsed = ExportTraceServiceResponse.FromString(body)
    assert ctype == "application/x-protobuf"
    assert parsed.partial_success.rejected_spans == 2 and "no run key" in parsed.partial_success.error_message
    body, ctype = response(0, "", "application/json")
    assert (json.loads(body), ctype) == ({}, "application/json")
    body, _ = response(1, "why", "application/json")
    assert json.loads(body) == {"partialSuccess": {"rejectedSpans": "1", "errorMessage": "why"}}
    raw, _ = status_body(3, "bad", "application/x-protobuf")
    assert raw == b"\x08\x03\x12\x03bad"
