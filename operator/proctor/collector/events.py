"""The native event format (``POST /v1/events``), for agents without OpenTelemetry.

The format is the JSON Schema in ``events.schema.json`` beside this module (served at
``GET /v1/events/schema``). Events are validated whole: one invalid event refuses the request
(nothing stored) with the path of the problem, so an agent learns of a bug at once.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema

from proctor.collector.otlp import (
    MAX_TIME_NS,
    MAX_VALUE_CHARS,
    SANITIZED_ATTRIBUTE,
    TRUNCATED_ATTRIBUTE,
    storable,
    storable_value,
    truncation_marker,
    unstorable,
)
from proctor.store import EventRecord

SCHEMA_PATH: Final = Path(__file__).with_name("events.schema.json")
#: Reserved attribute keys the event's role and call id are kept under.
ROLE_ATTRIBUTE: Final = "proctor.role"
CALL_ID_ATTRIBUTE: Final = "proctor.call_id"


class BadEvents(ValueError):
    """The body does not follow the native event schema; the message names where."""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the native event format."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


@dataclass(frozen=True, slots=True)
class NativeEvent:
    """One validated event, with its run's execution id."""

    execution_id: str
    record: EventRecord
    final: bool


@dataclass(frozen=True, slots=True)
class NativeBatch:
    service_name: str
    version: str | None
    events: tuple[NativeEvent, ...]


#: The latest timestamp an event may carry, in seconds since the epoch (what a span may carry).
MAX_TIMESTAMP: Final = MAX_TIME_NS / 1e9


def _timestamp(value: Any, default: float, where: str) -> float:
    if value is None:
        return default
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        try:
            parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            shown = storable(str(value)[:40])[0]
            raise BadEvents(
                f"{where}: timestamp {shown!r} is neither RFC 3339 nor seconds since the epoch"
            ) from None
        if parsed.tzinfo is None:
            raise BadEvents(f"{where}: timestamp {value!r} has no time zone (add Z or an offset)")
        seconds = parsed.timestamp()
    if not 0.0 <= seconds <= MAX_TIMESTAMP:  # NaN fails this too
        raise BadEvents(f"{where}: timestamp {value!r} is not between 1970 and the year 2262")
    return seconds


def event_id(
    execution_id: str, kind: str, timestamp: Any, name: str | None, text: str, occurrence: int = 0
) -> str:
    """The id of an event that came without one: the same content at the same place gives the
    same id (a resent request is recognised), and the ``occurrence``-th identical event of one
    request is another event (an agent repeating itself is two events, which loop detection needs).
    The store scopes ids to their run, so equal content in another run or monitor never collides."""
    doc = json.dumps(
        [execution_id, kind, timestamp, name, text, occurrence], separators=(",", ":"), ensure_ascii=False
    )
    return "e" + hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def parse(body: bytes, *, now: float) -> NativeBatch:
    """Validate and decode a ``POST /v1/events`` body. Raises :class:`BadEvents`."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadEvents(f"not JSON: {e}") from None
    error = next(iter(sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        raise BadEvents(f"{where or 'body'}: {error.message[:300]}")
    events = []
    seen: Counter[tuple[Any, ...]] = Counter()  # identical events without an id, so far in this request
    for i, raw in enumerate(doc["events"]):
        for identity in ("id", "executionId"):
            if unstorable(raw.get(identity) or ""):
                raise BadEvents(f"events[{i}].{identity}: holds a NUL character or a lone surrogate")
        text, bad_text = storable(raw["text"])
        attrs, bad_attrs = storable_value(dict(raw.get("attributes") or {}))
        name, bad_name = storable(raw["name"]) if "name" in raw else (None, False)
        sanitized = ["text"] * bad_text + ["name"] * bad_name + ["attributes"] * bad_attrs
        if len(text) > MAX_VALUE_CHARS:
            text = text[:MAX_VALUE_CHARS] + truncation_marker(len(text))
            attrs[TRUNCATED_ATTRIBUTE] = ["text"]
        if "role" in raw:
            attrs[ROLE_ATTRIBUTE], bad_role = storable(raw["role"])
            sanitized += ["role"] * bad_role
        if "callId" in raw:
            attrs[CALL_ID_ATTRIBUTE], bad_call = storable(raw["callId"])
            sanitized += ["callId"] * bad_call
        if sanitized:
            attrs[SANITIZED_ATTRIBUTE] = sanitized
        eid = raw.get("id")
        if eid is None:
            content = (raw["executionId"], raw["kind"], raw.get("timestamp"), raw.get("name"), raw["text"])
            eid = event_id(*content, occurrence=seen[content])
            seen[content] += 1
        events.append(
            NativeEvent(
                execution_id=raw["executionId"],
                record=EventRecord(
                    id=eid,
                    kind=raw["kind"],
                    text=text,
                    timestamp=_timestamp(raw.get("timestamp"), now, f"events[{i}]"),
                    name=name,
                    status=raw.get("status"),
                    attributes=attrs,
                ),
                final=raw["kind"] == "final",
            )
        )
    agent = doc["agent"]
    version = storable(agent["version"])[0] if "version" in agent else None
    return NativeBatch(agent["serviceName"], version, tuple(events))
