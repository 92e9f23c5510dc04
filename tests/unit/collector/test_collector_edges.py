"""Edge values and identities of native events (issue 24): every event an agent sends is one
event, and a value no database stores is made storable and marked, or refused with its path."""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

import pytest

from proctor.collector.app import BadEncoding, BodyTooLarge, inflate
from proctor.collector.events import BadEvents, parse
from proctor.collector.otlp import SANITIZED_ATTRIBUTE


def body(*events: dict[str, Any]) -> bytes:
    return json.dumps({"agent": {"serviceName": "a", "version": "1\u0000"}, "events": list(events)}).encode()


def test_identical_events_in_one_request_are_two_events_and_a_resend_is_recognised() -> None:
    same = {"executionId": "x", "kind": "output", "text": "checking again"}
    first = parse(body(same, same, {**same, "id": "mine"}, {**same, "id": "mine"}), now=1.0)
    ids = [e.record.id for e in first.events]
    assert ids[0] != ids[1] and ids[2] == ids[3] == "mine"
    again = parse(body(same, same, {**same, "id": "mine"}, {**same, "id": "mine"}), now=2.0)
    assert [e.record.id for e in again.events] == ids


def test_nul_and_lone_surrogates_are_replaced_and_marked() -> None:
    raw = (
        b'{"agent": {"serviceName": "a", "version": "v\\u0000"}, "events": [{"executionId": "x", '
        b'"kind": "tool_result", "name": "t\\ud800", "text": "out\\u0000put \\udfff", '
        b'"attributes": {"k\\u0000": "v\\ud83d"}}]}'
    )
    batch = parse(raw, now=1.0)
    (event,) = batch.events
    assert event.record.text == "out\ufffdput \ufffd" and event.record.name == "t\ufffd"
    assert event.record.attributes["k\ufffd"] == "v\ufffd"
    assert event.record.attributes[SANITIZED_ATTRIBUTE] == ["text", "name", "attributes"]
    assert batch.version == "v\ufffd"
    json.dumps(event.record.attributes).encode("utf-8")  # storable: encodes without an error


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"executionId": "x\u0000", "kind": "input", "text": "?"}, r"events\[0\]\.executionId"),
        ({"id": "\ud800", "executionId": "x", "kind": "input", "text": "?"}, r"events\[0\]\.id"),
        ({"executionId": "x", "kind": "input", "text": "?", "timestamp": 1e300}, "1970 and the year 2262"),
        ({"executionId": "x", "kind": "input", "text": "?", "timestamp": -1}, "1970 and the year 2262"),
        ({"executionId": "x", "kind": "input", "text": "?", "timestamp": "9999-12-31T00:00:00Z"}, "2262"),
    ],
)
def test_an_identity_or_a_time_no_database_keeps_is_refused_with_its_path(
    event: dict[str, Any], words: str
) -> None:
    with pytest.raises(BadEvents, match=words):
        parse(json.dumps({"agent": {"serviceName": "a"}, "events": [event]}).encode(), now=1.0)


def test_a_nan_timestamp_is_refused() -> None:
    raw = (
        b'{"agent": {"serviceName": "a"}, "events": '
        b'[{"executionId": "x", "kind": "input", "text": "?", "timestamp": NaN}]}'
    )
    with pytest.raises(BadEvents):
        parse(raw, now=1.0)


def test_inflate_stops_at_its_limit_and_refuses_what_is_not_its_encoding() -> None:
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = b"".join(bomb.compress(bytes(1 << 20)) for _ in range(64)) + bomb.flush()  # 64 MiB of zeros
    with pytest.raises(BodyTooLarge):
        inflate(body, "gzip", 1 << 20)
    assert inflate(gzip.compress(b"spans"), "gzip", 5) == b"spans"
    assert inflate(zlib.compress(b"spans"), "deflate", 100) == b"spans"
    raw = zlib.compressobj(wbits=-15)
    assert inflate(raw.compress(b"spans") + raw.flush(), "deflate", 100) == b"spans"
    with pytest.raises(BadEncoding, match="ends before"):
        inflate(gzip.compress(b"spans" * 100)[:-12], "gzip", 10_000)
    with pytest.raises(BadEncoding, match="not valid gzip"):
        inflate(b"plain text", "gzip", 100)
