"""Outcome metrics (arm C): what people did with the outputs an agent delivered.

Each delivered output ends ``accepted``, ``modified`` (used after a person changed it),
``rejected`` or ``ignored`` (nobody acted on it), with the minutes a person spent on it. The
acceptance rate is ``(accepted + modified) / (accepted + modified + rejected)``: the outputs a
person acted on. ``ignored`` is counted on its own, never folded into "rejected" (an output nobody
read says nothing about its quality, and much about where it was shown). The rate is always
reported beside the human minutes per accepted output (all minutes spent, over the outputs that
were accepted or modified): a rate bought with hours of editing is not the rate it looks like
(seed 004 section 13). Neither number is ever shown without the other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class OutcomeKind(StrEnum):
    ACCEPTED = "accepted"
    MODIFIED = "modified"
    REJECTED = "rejected"
    IGNORED = "ignored"


OUTCOME_KINDS: Final = tuple(k.value for k in OutcomeKind)
#: Minutes one output may take a person, at most: more is a unit mistake, not an effort (a day).
MAX_MINUTES: Final = 24 * 60


def valid_minutes(minutes: float) -> bool:
    """0 to a day, a finite number."""
    return math.isfinite(minutes) and 0 <= minutes <= MAX_MINUTES


class InvalidFeedback(ValueError):
    """What a reviewer or an agent reported cannot be stored (the collector answers 400 with this
    message, or counts a span's outcome as invalid)."""


def check_outcome(outcome: object, minutes: object) -> tuple[str, float | None]:
    """An outcome and its minutes, checked (raises :class:`InvalidFeedback` naming the field): a pure
    rule, so the collector checks what a span reports without going into the store for it."""
    if outcome not in OUTCOME_KINDS:
        raise InvalidFeedback(f"outcome {outcome!r} is not one of {', '.join(OUTCOME_KINDS)}")
    if minutes is not None:
        if isinstance(minutes, bool) or not isinstance(minutes, int | float):
            raise InvalidFeedback("minutes must be a number")
        if not valid_minutes(float(minutes)):
            raise InvalidFeedback(f"minutes {minutes:g} is not within 0 and a day (1440)")
    return str(outcome), float(minutes) if isinstance(minutes, int | float) else None


@dataclass(frozen=True, slots=True)
class OutcomeSummary:
    """Counts, the acceptance rate and the human minutes per accepted output, together."""

    accepted: int = 0
    modified: int = 0
    rejected: int = 0
    ignored: int = 0
    #: All minutes reported, over every outcome (ignored ones included, if any were given).
    minutes: float = 0.0
    #: Outcomes that carried minutes.
    timed: int = 0

    @property
    def acted_on(self) -> int:
        return self.accepted + self.modified + self.rejected

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted or modified over the outputs a person acted on (None: none yet)."""
        acted = self.acted_on
        return (self.accepted + self.modified) / acted if acted else None

    @property
    def minutes_per_accepted(self) -> float | None:
        """Human minutes per accepted (or modified) output; None without one or without minutes."""
        kept = self.accepted + self.modified
        return self.minutes / kept if kept and self.timed else None


def summarise(outcomes: Iterable[tuple[str, float | None]]) -> OutcomeSummary:
    """The summary of ``(outcome, minutes)`` pairs (one per output: the latest word on it)."""
    counts = dict.fromkeys(OUTCOME_KINDS, 0)
    minutes: list[float] = []
    for kind, spent in outcomes:
        counts[OutcomeKind(kind).value] += 1
        if spent is not None:
            minutes.append(spent)
    return OutcomeSummary(
        accepted=counts["accepted"],
        modified=counts["modified"],
        rejected=counts["rejected"],
        ignored=counts["ignored"],
        minutes=math.fsum(minutes),
        timed=len(minutes),
    )
