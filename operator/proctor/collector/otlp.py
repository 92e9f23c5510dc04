"""OTLP/HTTP traces in: protobuf and OTLP/JSON decoded into plain spans, with OTLP's answers.

OTLP/JSON differs from protobuf's canonical JSON mapping in two ways that matter here: trace and
span ids are hex strings (not base64), and enums are integers; field names are the mapping's
lowerCamelCase (``resourceSpans``, ``startTimeUnixNano``), snake_case is accepted too, and 64-bit
integers may be strings or numbers. Unknown fields are ignored, as the specification asks.

Attribute values longer than :data:`MAX_VALUE_CHARS` characters (a 10 MB prompt) are truncated,
never dropped, and end in a marker saying how long they were; the span then carries
``proctor.truncated`` listing those attributes. Arrays and maps are capped the same way.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from proctor.store import SpanRecord

#: Longest attribute value kept whole, in characters; longer ones are truncated with a marker.
MAX_VALUE_CHARS: Final = 65536
#: Most items kept of an array or map attribute value.
MAX_ITEMS: Final = 1000
#: The span attribute listing which attributes were truncated.
TRUNCATED_ATTRIBUTE: Final = "proctor.truncated"
#: The span (or event) attribute listing the fields whose characters no database stores (NUL, lone
#: surrogates) were replaced with U+FFFD.
SANITIZED_ATTRIBUTE: Final = "proctor.sanitized"
#: The largest time a span may carry, in ns since the epoch (a signed 64-bit column; year 2262).
MAX_TIME_NS: Final = 2**63 - 1
#: What replaces a character no database stores.
REPLACEMENT: Final = "\ufffd"
#: Content types of the two encodings.
PROTOBUF: Final = "application/x-protobuf"
JSON: Final = "application/json"

#: What an OTLP/JSON id that is not hex becomes: one byte, a length no id has, so its span is rejected.
_NOT_HEX: Final = b"\xff"
_ID_FIELDS: Final = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"})


class BadPayload(ValueError):
    """The body is not an OTLP ExportTraceServiceRequest; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class DecodedSpan:
    """One span with its resource's attributes (service.name, service.version, k8s.pod.*...)."""

    span: SpanRecord
    resource: Mapping[str, Any]
    scope: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """A span that could not be taken, and why (reported in partial_success); ``kind`` is the
    reason's label in ``proctor_collector_spans_rejected_total``."""

    reason: str
    kind: str = "invalid_id"


def truncation_marker(length: int) -> str:
    """What ends a truncated value: says it was cut and how long it was."""
    return f"\u2026[truncated by proctor: {length} characters]"


def unstorable(text: str) -> bool:
    """Whether ``text`` holds a character PostgreSQL or UTF-8 refuses (NUL, a lone surrogate)."""
    return "\x00" in text or (not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text))


def storable(text: str) -> tuple[str, bool]:
    """``text`` with every NUL and lone surrogate replaced by U+FFFD, and whether one was."""
    if not unstorable(text):
        return text, False
    return "".join(REPLACEMENT if ch == "\x00" or "\ud800" <= ch <= "\udfff" else ch for ch in text), True


def storable_value(value: Any) -> tuple[Any, bool]:
    """:func:`storable` applied to every string (keys included) of a JSON-like value."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        out, changed = {}, False
        for k, v in value.items():
            key, a = storable(str(k))
            out[key], b = storable_value(v)
            changed = changed or a or b
        return out, changed
    if isinstance(value, list):
        pairs = [storable_value(v) for v in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    return value, False


def _truncate(text: str) -> tuple[str, bool]:
    if len(text) <= MAX_VALUE_CHARS:
        return text, False
    return text[:MAX_VALUE_CHARS] + truncation_marker(len(text)), True


def _value(v: AnyValue) -> tuple[Any, bool]:
    """An AnyValue as plain data, and whether anything in it was truncated."""
    which = v.WhichOneof("value")
    if which == "string_value":
        return _truncate(v.string_value)
    if which == "bool_value":
        return v.bool_value, False
    if which == "int_value":
        return v.int_value, False
    if which == "double_value":
        return v.double_value, False
    if which == "bytes_value":
        return _truncate(base64.b64encode(v.bytes_value).decode("ascii"))
    if which == "array_value":
        cut = len(v.array_value.values) > MAX_ITEMS
        items = []
        for item in v.array_value.values[:MAX_ITEMS]:
            value, t = _value(item)
            items.append(value)
            cut = cut or t
        return items, cut
    if which == "kvlist_value":
        out, cut_keys = _attributes(v.kvlist_value.values)
        return out, bool(cut_keys)
    return None, False


def _attributes(kvs: Any) -> tuple[dict[str, Any], list[str]]:
    out: dict[str, Any] = {}
    truncated: list[str] = []
    for i, kv in enumerate(kvs):
        if i >= MAX_ITEMS:
            truncated.append("(more attributes)")
            break
        value, cut = _value(kv.value)
        out[kv.key] = value
        if cut:
            truncated.append(kv.key)
    return out, truncated


def _hex_to_b64(node: Any) -> Any:
    """OTLP/JSON's hex ids to the base64 protobuf's JSON mapping expects, everywhere they occur."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in _ID_FIELDS and isinstance(v, str):
                try:
                    raw = bytes.fromhex(v)
                except ValueError:
                    raw = _NOT_HEX  # rejected with its span in iter_spans, never the whole request
                out[k] = base64.b64encode(raw).decode("ascii")
            else:
                out[k] = _hex_to_b64(v)
        return out
    if isinstance(node, list):
        return [_hex_to_b64(x) for x in node]
    return node


def parse_request(body: bytes, content_type: str) -> ExportTraceServiceRequest:
    """Decode an export request (protobuf or OTLP/JSON by ``content_type``). Raises :class:`BadPayload`."""
    request = ExportTraceServiceRequest()
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == JSON:
        try:
            doc = json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            raise BadPayload(f"not JSON: {e}") from None
        if not isinstance(doc, dict):
            raise BadPayload(
                f"not an OTLP ExportTraceServiceRequest: a JSON {type(doc).__name__}, not an object"
            )
        if doc and not ({"resourceSpans", "resource_spans"} & doc.keys()):
            raise BadPayload(
                "not an OTLP ExportTraceServiceRequest: no resourceSpans (keys: "
                + ", ".join(sorted(doc)[:5])
                + ")"
            )
        try:
            json_format.ParseDict(_hex_to_b64(doc), request, ignore_unknown_fields=True)
        except (json_format.ParseError, binascii.Error, ValueError, TypeError) as e:
            raise BadPayload(f"not an OTLP ExportTraceServiceRequest: {str(e)[:300]}") from None
        return request
    if kind in (PROTOBUF, "application/protobuf", "application/octet-stream", ""):
        try:
            request.ParseFromString(body)
        except DecodeError as e:
            raise BadPayload(f"malformed protobuf: {e}") from None
        return request
    raise BadPayload(f"unsupported Content-Type {content_type!r}: use {PROTOBUF} or {JSON}")


def _span_id(raw: bytes, size: int, what: str) -> str:
    if len(raw) != size or not any(raw):
        raise ValueError(f"{what} must be {size} bytes ({2 * size} hex digits in OTLP/JSON), not all zero")
    return raw.hex()


def _checked(s: Any) -> tuple[str, str, str | None]:
    """The span's ids (hex), or ValueError saying which id or time no span may carry."""
    trace_id = _span_id(s.trace_id, 16, "trace_id")
    span_id = _span_id(s.span_id, 8, "span_id")
    parent = _span_id(s.parent_span_id, 8, "parent_span_id") if s.parent_span_id else None
    return trace_id, span_id, parent


def _time_error(s: Any) -> str | None:
    for what in ("start_time_unix_nano", "end_time_unix_nano"):
        if getattr(s, what) > MAX_TIME_NS:
            return f"{what} {getattr(s, what)} is beyond {MAX_TIME_NS} (the year 2262)"
    return None


def iter_spans(request: ExportTraceServiceRequest) -> Iterator[DecodedSpan | Rejected]:
    """Every span of ``request``, decoded, or rejected with the reason."""
    for rs in request.resource_spans:
        resource, _ = _attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for s in ss.spans:
                try:
                    trace_id, span_id, parent = _checked(s)
                except ValueError as e:
                    yield Rejected(f"span {storable(s.name[:100])[0]!r}: {e}")
                    continue
                late = _time_error(s)
                if late is not None:
                    yield Rejected(f"span {storable(s.name[:100])[0]!r}: {late}", "invalid_value")
                    continue
                attrs, truncated = _attributes(s.attributes)
                if truncated:
                    attrs[TRUNCATED_ATTRIBUTE] = truncated
                name, bad_name = storable(_truncate(s.name)[0][:1024])
                message, bad_message = storable(s.status.message[:4096])
                if bad_name or bad_message:
                    attrs[SANITIZED_ATTRIBUTE] = ["name"] * bad_name + ["status.message"] * bad_message
                events = []
                for ev in s.events:
                    ev_attrs, ev_cut = _attributes(ev.attributes)
                    if ev_cut:
                        ev_attrs[TRUNCATED_ATTRIBUTE] = ev_cut
                    events.append(
                        {"name": ev.name, "timeUnixNano": ev.time_unix_nano, "attributes": ev_attrs}
                    )
                op = attrs.get("gen_ai.operation.name")
                yield DecodedSpan(
                    span=SpanRecord(
                        trace_id=trace_id,
                        span_id=span_id,
                        parent_span_id=parent,
                        name=name,
                        kind=int(s.kind),
                        start_ns=int(s.start_time_unix_nano),
                        end_ns=int(s.end_time_unix_nano),
                        status_code=int(s.status.code),
                        status_message=message or None,
                        operation=storable(str(op)[:64])[0] if op is not None else None,
                        attributes=attrs,
                        resource=resource,
                        events=tuple(events),
                    ),
                    resource=resource,
                    scope=scope,
                )


def response(rejected: int, message: str, content_type: str) -> tuple[bytes, str]:
    """The ExportTraceServiceResponse body (``partial_success`` when spans were rejected), in the
    request's encoding."""
    out = ExportTraceServiceResponse()
    if rejected:
        out.partial_success.rejected_spans = rejected
        out.partial_success.error_message = message
    if content_type.split(";", 1)[0].strip().lower() == JSON:
        doc: dict[str, Any] = {}
        if rejected:
            doc = {"partialSuccess": {"rejectedSpans": str(rejected), "errorMessage": message}}
        return json.dumps(doc).encode(), JSON
    return out.SerializeToString(), PROTOBUF


def status_body(code: int, message: str, content_type: str) -> tuple[bytes, str]:
    """A ``google.rpc.Status`` (code, message) in the request's encoding: OTLP's error body."""
    if content_type.split(";", 1)[0].strip().lower() == JSON:
        return json.dumps({"code": code, "message": message}).encode(), JSON
    text = message.encode()
    # google.rpc.Status: field 1 (int32 code, varint), field 2 (string message); encoded by hand
    # (the proto is not shipped with opentelemetry-proto).
    out = bytearray(b"\x08")
    out += _varint(code)
    out += b"\x12" + _varint(len(text)) + text
    return bytes(out), PROTOBUF


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
