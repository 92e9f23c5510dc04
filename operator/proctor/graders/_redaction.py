"""Redacting text with the safety scan's own findings, before it is stored, served or sent.

A finding of the scan is replaced in place by a *marker*, ``[redacted KIND: PREVIEW]`` (the
preview is the finding's redaction: ``AKIA************MPLE``, ``j***@a***.com``), so what is
kept still says what was there and where, never the value. The marker is the evidence: the
collector redacts a live run when it receives it and judges the redacted run, and
:func:`redacted_findings` reads the markers back as the scan's findings, so safety still fails
with certainty on a run nobody can read the secret of any more.

Redaction is checked, not hoped for: the redacted text is scanned again, and a text the scan
still finds something in after a few passes is withheld whole. A JSON document stays a JSON
document where it can (its strings are redacted one by one when a finding spans its syntax),
because the collector reads messages from JSON-valued span attributes.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from proctor.graders._redact import Finding
from proctor.graders._scanpolicy import DEFAULT_SCAN, ScanPolicy
from proctor.protocol.types import CaseResult

__all__ = ["MARKER", "marker", "redact_result", "redact_text", "redact_value", "redacted_findings"]

#: A finding replaced by its redaction: ``[redacted aws-access-key: AKIA************MPLE]``.
MARKER = re.compile(r"\[redacted ([a-z][a-z0-9-]{0,40}): ([^\[\]\n]{0,300})\]")
#: The detail of a finding read back from a marker.
RECEIVED = "redacted when received"
#: Shorter texts hold no finding (the shortest, an e-mail address, is ``a@b.io``).
_MIN_FINDING = 6
_PASSES = 3


def marker(f: Finding) -> str:
    """The text that stands in for ``f``'s value."""
    preview = f.redacted.replace("[", "(").replace("]", ")").replace("\n", " ")[:300]
    return f"[redacted {f.kind}: {preview}]"


def _outside_markers(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """The findings not inside a marker (a preview is no secret, whatever a detector reads in it)."""
    spans = [(m.start(), m.end()) for m in MARKER.finditer(text)] if "[redacted " in text else []
    return [f for f in findings if not any(s <= f.start and f.end <= e for s, e in spans)]


def _substitute(text: str, findings: Sequence[Finding]) -> str:
    out: list[str] = []
    pos = 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.start >= pos:
            out.append(text[pos : f.start])
        out.append(marker(f))
        pos = max(pos, f.end)
    out.append(text[pos:])
    return "".join(out)


def _withheld(findings: Sequence[Finding]) -> str:
    kinds = " ".join(sorted({f.kind for f in findings}))
    return f"[redacted withheld: the whole text, the scan still found {kinds} in its redaction]"


def _plain(text: str, policy: ScanPolicy) -> tuple[str, tuple[Finding, ...]]:
    # the text as received is scanned whole: a marker in it may be forged ("[redacted note: <a key>]")
    # to keep a value in clear; only the markers written here are taken as no secret
    findings = tuple(policy.findings(text))
    if not findings:
        return text, ()
    out = _substitute(text, findings)
    for _ in range(_PASSES):
        left = _outside_markers(out, policy.findings(out))
        if not left:
            return out, findings
        out = _substitute(out, left)
    return _withheld(findings), findings


def redact_text(text: str, policy: ScanPolicy = DEFAULT_SCAN) -> tuple[str, tuple[Finding, ...]]:
    """``text`` with every finding of ``policy`` replaced by its marker, and the findings (offsets
    in ``text``). A text with no finding is returned as it is (the same object)."""
    if len(text) < _MIN_FINDING or not policy.enabled:
        return text, ()
    out, findings = _plain(text, policy)
    if not findings or text.lstrip()[:1] not in ("{", "["):
        return out, findings
    try:
        doc = json.loads(text)
    except ValueError:
        return out, findings
    try:
        json.loads(out)
        return out, findings
    except ValueError:
        pass
    # a finding spans the document's syntax ("password": "..."): redact its strings one by one,
    # and keep that only if the document as a whole is then clean too
    redacted, _ = redact_value(doc, policy)
    dumped = json.dumps(redacted, ensure_ascii=False)
    if _outside_markers(dumped, policy.findings(dumped)):
        return out, findings
    return dumped, findings


def redact_value(value: Any, policy: ScanPolicy = DEFAULT_SCAN) -> tuple[Any, tuple[Finding, ...]]:
    """A JSON-like value (strings, numbers, lists, mappings) with every string redacted (mapping
    keys too); the same object when nothing was found."""
    if isinstance(value, str):
        return redact_text(value, policy)
    if isinstance(value, list | tuple):
        found: list[Finding] = []
        items = []
        for v in value:
            r, f = redact_value(v, policy)
            items.append(r)
            found.extend(f)
        return (type(value)(items) if found else value), tuple(found)
    if isinstance(value, dict):
        found = []
        out: dict[Any, Any] = {}
        for k, v in value.items():
            rk, fk = redact_text(k, policy) if isinstance(k, str) else (k, ())
            rv, fv = redact_value(v, policy)
            out[rk] = rv
            found.extend(fk)
            found.extend(fv)
        return (out if found else value), tuple(found)
    return value, ()


def redacted_findings(text: str) -> tuple[Finding, ...]:
    """The findings a text redacted earlier carries, read back from its markers (offsets are the
    markers' in ``text``)."""
    if "[redacted " not in text:
        return ()
    return tuple(Finding(m.group(1), m.group(2), m.start(), m.end(), RECEIVED) for m in MARKER.finditer(text))


def redact_result(result: CaseResult, policy: ScanPolicy = DEFAULT_SCAN) -> CaseResult:
    """``result`` with every text in it redacted: the judge's rationales and skip reasons (a judge
    may quote what it read), the failures' reasons and the error (an agent's error page may
    echo a credential). What is stored or reported of a case goes through here first."""

    def clean(text: str) -> str:
        return redact_text(text, policy)[0]

    dims = tuple(
        dataclasses.replace(
            d,
            rationale=clean(d.rationale),
            skipped_reason=clean(d.skipped_reason) if d.skipped_reason else d.skipped_reason,
        )
        for d in result.dimensions
    )
    failures = tuple(dataclasses.replace(f, reason=clean(f.reason)) for f in result.failures)
    error = clean(result.error) if result.error else result.error
    return dataclasses.replace(result, dimensions=dims, failures=failures, error=error)
