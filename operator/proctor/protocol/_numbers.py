"""Exact arithmetic for boundaries, and percent formatting that never hides a miss."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction


def exact(value: float) -> Fraction:
    """The decimal a person wrote (``93.3``), not the nearest binary float.

    Thresholds are boundaries; an inclusive bound must hold exactly (the seed's 0.30 qt/hr defect
    was an inclusive bound read the wrong way), so comparisons go through fractions.
    """
    return Fraction(Decimal(repr(float(value))))


def exceeds(amount: Fraction, limit: float) -> bool:
    """``amount > limit``, exactly; an infinite limit is never exceeded (the rule is off)."""
    if math.isinf(limit):
        return limit < 0
    return amount > exact(limit)


def percent(part: int, whole: int) -> Fraction:
    """``part`` of ``whole`` in percent, exactly."""
    return Fraction(100 * part, whole)


def fmt_pct(value: float | Fraction, *, differs_from: float | None = None) -> str:
    """A percentage for a message: one decimal, trimmed, with more digits when needed.

    When ``differs_from`` is given and the value is not equal to it, enough digits are shown that
    the two never print the same (a rate of 94.99 is not shown as "95.0% < 95%").
    """
    number = float(value)
    must_differ = differs_from is not None and exact(number) != exact(differs_from)
    for digits in (1, 2, 3, 4, 6):
        text = f"{number:.{digits}f}".rstrip("0").rstrip(".")
        if not must_differ or Fraction(Decimal(text)) != exact(differs_from or 0.0):
            return text
    return repr(number)


def fmt_num(value: float) -> str:
    """A threshold or margin as written: ``100``, ``92.5``."""
    return f"{value:g}"
