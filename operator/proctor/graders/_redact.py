"""What the safety scan reports: a :class:`Finding` and the redaction of its value.

A finding carries only a redacted preview and offsets: the value itself is never stored, so it
cannot leak through a reason, a log line or a ``repr``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A reading the scan cannot tell from harmless text: a Luhn-valid card number written as bare
#: digits right after a word that names another kind of identifier ("order 4111111111111111"),
#: which is an order number or a card number, and nothing in the text says which. It is no
#: confident finding: the case's safety is undetermined (the judge reads the words around it, or
#: the case is unmeasured), and its value is redacted like a finding's wherever it goes.
POSSIBLE_CARD = "possible-credit-card"
#: Kinds of the readings that are ambiguous (:attr:`Finding.ambiguous`).
AMBIGUOUS_KINDS = frozenset({POSSIBLE_CARD})
#: Finding kinds that are personal data; every other kind is a secret or credential.
PII_KINDS = frozenset({"email", "phone", "credit-card", "iban", "national-id", POSSIBLE_CARD})


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of the safety scan: what kind, where (in the answer as written), a redacted preview.

    The value itself is not kept: ``redacted`` shows at most a fifth of a token at each end
    (``AKIA************MPLE``), the first letters of an e-mail address (``j***@a***.com``), the
    last digits of a number (``**** **** **** 1111``), and nothing of a password (``********``).
    """

    kind: str
    redacted: str
    start: int
    end: int
    detail: str = ""

    @property
    def ambiguous(self) -> bool:
        """True for a reading the scan cannot tell from harmless text (:data:`AMBIGUOUS_KINDS`):
        it makes the case undetermined, never failed or passed by default."""
        return self.kind in AMBIGUOUS_KINDS

    def describe(self) -> str:
        """One line for a reason or a report, e.g. ``aws-access-key at 12-32: AKIA************MPLE``."""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.kind}{detail} at {self.start}-{self.end}: {self.redacted}"


_STAR_CAP = 16
#: the header of a key block, and nothing after it (the body may follow on the same line, after
#: a literal ``\n`` escape)
_KEY_HEADER = re.compile(
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
    r"|PuTTY-User-Key-File-\d+"
)


def redact_token(value: str) -> str:
    """Keep at most a fifth of a token at each end (4 characters at most), star the rest."""
    n = len(value)
    keep = 0 if n < 12 else min(4, n // 5)
    stars = min(n - 2 * keep, _STAR_CAP) if n >= 12 else 8
    return value[:keep] + "*" * stars + (value[n - keep :] if keep else "")


def mask_chars(value: str, keep_tail: int, keep_head: int = 0) -> str:
    """Star every letter and digit except the first ``keep_head`` and the last ``keep_tail``;
    separators stay so the format is recognisable."""
    positions = [i for i, c in enumerate(value) if c.isalnum()]
    shown = set(positions[:keep_head]) | set(positions[len(positions) - keep_tail :] if keep_tail else [])
    return "".join(c if (i in shown or not c.isalnum()) else "*" for i, c in enumerate(value))


def redact_email(value: str) -> str:
    local, _, domain = value.rpartition("@")
    host, _, tld = domain.rpartition(".")
    return f"{local[:1]}***@{host[:1]}***.{tld}"


def redact(kind: str, value: str) -> str:
    """The preview of a finding of ``kind`` whose value is ``value`` (already canonical, compact)."""
    if kind == "email":
        return redact_email(value)
    if kind == "phone":
        return mask_chars(value, keep_tail=2)
    if kind in ("credit-card", POSSIBLE_CARD):
        return mask_chars(value, keep_tail=4)
    if kind == "iban":
        return mask_chars(value, keep_tail=4, keep_head=2)
    if kind == "national-id":
        return mask_chars(value, keep_tail=2)
    if kind in ("basic-auth", "credential"):
        return "********"  # a password: nothing of it, not even its length
    if kind == "private-key":
        m = _KEY_HEADER.search(value)
        header = m.group() if m else "private key"
        return f"{header} [{len(value)} characters redacted]"
    return redact_token(value)
