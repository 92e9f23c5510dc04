"""The native event format (``POST /v1/events``), for agents without OpenTelemetry.

The format is the JSON Schema in ``events.schema.json`` beside this module (served at
``GET /v1/events/schema``). Events are validated whole: one invalid event refuses the request
(nothing stored) with the path of the problem, so an agent learns of a bug at once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema

from proctor.collector.otlp import MAX_VALUE_CHARS, TRUNCATED_ATTRIBUTE, truncation_marker
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


def _timestamp(value: Any, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, int | float):
        return float(value)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise BadEvents(
            f"timestamp {str(value)[:40]!r} is neither RFC 3339 nor seconds since the epoch"
        ) from None
    if parsed.tzinfo is None:
        raise BadEvents(f"timestamp {value!r} has no time zone (add Z or an offset)")
    return parsed.timestamp()


def event_id(execution_id: str, kind: str, timestamp: Any, name: str | None, text: str) -> str:
    """The id of an event that came without one: the same content gives the same id."""
    doc = json.dumps([execution_id, kind, timestamp, name, text], separators=(",", ":"), ensure_ascii=False)
    return "e" + hashlib.sha256(doc.encode()).hexdigest()[:40]


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
    for raw in doc["events"]:
        text = raw["text"]
        attrs = dict(raw.get("attributes") or {})
        if len(text) > MAX_VALUE_CHARS:
            text = text[:MAX_VALUE_CHARS] + truncation_marker(len(text))
            attrs[TRUNCATED_ATTRIBUTE] = ["text"]
        if "role" in raw:
            attrs[ROLE_ATTRIBUTE] = raw["role"]
        if "callId" in raw:
            attrs[CALL_ID_ATTRIBUTE] = raw["callId"]
        eid = raw.get("id") or event_id(
            raw["executionId"], raw["kind"], raw.get("timestamp"), raw.get("name"), raw["text"]
        )
        events.append(
            NativeEvent(
                execution_id=raw["executionId"],
                record=EventRecord(
                    id=eid,
                    kind=raw["kind"],
                    text=text,
                    timestamp=_timestamp(raw.get("timestamp"), now),
                    name=raw.get("name"),
                    status=raw.get("status"),
                    attributes=attrs,
                ),
                final=raw["kind"] == "final",
            )
        )
    agent = doc["agent"]
    return NativeBatch(agent["serviceName"], agent.get("version"), tuple(events))
