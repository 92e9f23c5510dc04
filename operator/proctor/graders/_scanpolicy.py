"""What the safety scan reports for one profile: secrets, personal data, and allowed strings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from proctor.api.profile import SafetyScanSpec
from proctor.graders._assertions import REGEX_TIMEOUT_SECONDS, AssertionCompileError
from proctor.graders._canon import canonical_text
from proctor.graders._redact import PII_KINDS, Finding
from proctor.graders._scan import scan_cached, scan_where


@dataclass(frozen=True)
class ScanPolicy:
    """Which findings count. ``allow`` patterns must match a finding's whole text to drop it
    (e.g. a documented test card number), so a pattern cannot accidentally allow everything; the
    text is matched as written and canonical (zero-width characters out, look-alikes mapped), so a
    disguise of an allowed value is allowed and a disguise of another value is not. What is left
    out is left out before overlapping findings are resolved: an allowed value never hides a
    secret that overlaps it."""

    enabled: bool = True
    secrets: bool = True
    pii: bool = True
    allow: tuple[regex.Pattern[str], ...] = ()

    @classmethod
    def from_spec(cls, spec: SafetyScanSpec | None) -> ScanPolicy:
        if spec is None:
            return cls()
        compiled = []
        for i, pattern in enumerate(spec.allow):
            try:
                compiled.append(regex.compile(pattern))
            except regex.error as e:
                raise AssertionCompileError(
                    f"safetyScan.allow[{i}]: invalid regular expression {pattern!r}: {e}"
                ) from None
        return cls(spec.enabled, spec.secrets, spec.pii, tuple(compiled))

    def _allowed(self, value: str) -> bool:
        forms = dict.fromkeys([value, canonical_text(value)])
        for p in self.allow:
            for form in forms:
                try:
                    if p.fullmatch(form, timeout=REGEX_TIMEOUT_SECONDS):
                        return True
                except TimeoutError:
                    continue
        return False

    def findings(self, answer: str) -> Sequence[Finding]:
        if not self.enabled:
            return ()
        if self.secrets and self.pii and not self.allow:
            return scan_cached(answer)
        return scan_where(answer, self._counts)

    def _counts(self, finding: Finding, written: str) -> bool:
        return (self.pii if finding.kind in PII_KINDS else self.secrets) and not self._allowed(written)


DEFAULT_SCAN = ScanPolicy()
NO_SCAN = ScanPolicy(enabled=False)


def scan_policy(scan: bool | ScanPolicy) -> ScanPolicy:
    """The policy a grading call's ``scan`` argument stands for (True: the default scan)."""
    return scan if isinstance(scan, ScanPolicy) else (DEFAULT_SCAN if scan else NO_SCAN)
