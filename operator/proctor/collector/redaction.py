"""Redaction at ingestion: a live run is redacted with the safety scan's own findings before it is stored.

Every text a span or a native event carries (its name, status message, attribute and resource
values, its events' names and attributes; a native event's text and attributes) is scanned with
the monitor's profile's scan policy (:class:`proctor.graders.ScanPolicy`: what it scans for and
what it allows) and each finding is replaced by its marker, ``[redacted KIND: PREVIEW]``
(:func:`proctor.graders.redact_text`). Nothing in clear reaches the database, so nothing in clear
is served (``GET /api/v1/runs/{id}``, ``proctor runs show``), exported, captured as a case or sent
to the judge: each of those reads the stored run. The markers are the evidence: evaluation reads
them back as safety-scan findings (:func:`proctor.graders.redacted_findings`), so the run still
fails safety with certainty.

The :class:`~proctor.collector.ingest.Writer` calls :class:`Redactor` on each request on its
redaction threads, off the event loop, before the request may wait for a commit (only the redacted
items are queued, so the scan of one request overlaps the fsync of another); a monitor whose
profile cannot be read is redacted with the default scan (everything the scan finds), never left
in clear.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from proctor.api.profile import SafetyScanSpec
from proctor.collector.monitors import Registry
from proctor.graders import AssertionCompileError, ScanPolicy, redact_text, redact_value
from proctor.store import EventRecord, Item, SpanRecord

__all__ = ["Redactor", "redact_item"]

_DEFAULT = ScanPolicy()


def _text(value: str | None, policy: ScanPolicy) -> tuple[str | None, bool]:
    if not value:
        return value, False
    out, found = redact_text(value, policy)
    return out, bool(found)


def _mapping(value: Mapping[str, Any], policy: ScanPolicy) -> tuple[Mapping[str, Any], bool]:
    out, found = redact_value(dict(value), policy)
    return (out, True) if found else (value, False)


def _span(span: SpanRecord, policy: ScanPolicy) -> SpanRecord:
    name, n1 = _text(span.name, policy)
    message, n2 = _text(span.status_message, policy)
    attributes, n3 = _mapping(span.attributes, policy)
    resource, n4 = _mapping(span.resource, policy)
    events, n5 = redact_value(list(span.events), policy)
    if not (n1 or n2 or n3 or n4 or n5):
        return span
    return dataclasses.replace(
        span,
        name=name or "",
        status_message=message,
        attributes=attributes,
        resource=resource,
        events=tuple(events) if n5 else span.events,
    )


def _event(event: EventRecord, policy: ScanPolicy) -> EventRecord:
    text, n1 = _text(event.text, policy)
    name, n2 = _text(event.name, policy)
    attributes, n3 = _mapping(event.attributes, policy)
    if not (n1 or n2 or n3):
        return event
    return dataclasses.replace(event, text=text or "", name=name, attributes=attributes)


def redact_item(item: Item, policy: ScanPolicy = _DEFAULT) -> Item:
    """``item`` with every finding of ``policy`` in its span or event replaced by its marker."""
    span = _span(item.span, policy) if item.span is not None else None
    event = _event(item.event, policy) if item.event is not None else None
    if span is item.span and event is item.event:
        return item
    return dataclasses.replace(item, span=span, event=event)


class Redactor:
    """Redacts a batch of items, each with its monitor's scan policy (``registry`` gives the
    current monitors; ``None``: the default scan for every monitor)."""

    def __init__(self, registry: Callable[[], Registry] | None = None) -> None:
        self._registry = registry
        self._policies: dict[str, ScanPolicy] = {}

    def policy(self, monitor: str) -> ScanPolicy:
        found = self._registry().get(monitor) if self._registry is not None else None
        spec = found.profile.spec.safety_scan if found is not None and found.profile is not None else None
        if spec is None:
            return _DEFAULT
        key = spec.model_dump_json()
        policy = self._policies.get(key)
        if policy is None:
            policy = self._policies[key] = _compile(spec)
        return policy

    def __call__(self, items: Sequence[Item]) -> list[Item]:
        return [redact_item(i, self.policy(i.run.monitor)) for i in items]


def _compile(spec: SafetyScanSpec) -> ScanPolicy:
    try:
        return ScanPolicy.from_spec(spec)
    except AssertionCompileError:  # the profile is refused when judged; meanwhile redact all
        return _DEFAULT
