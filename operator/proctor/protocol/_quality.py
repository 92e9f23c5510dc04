"""Judge quality: how far an LLM judge agrees with the people who review its scores.

A *positive* is a breach: a score below the dimension's threshold. Each review sets the judge's
score beside the reviewer's reading of the same output (the reviewer's own score where given,
else the judge's score read as right on *agree* and as on the other side of the threshold on
*disagree*), so every review is classified: TP (both see a breach), FP (a false alarm: the judge
flags a healthy output), FN (a missed breach: the judge passes a broken one), TN. Missed breaches
and false alarms need opposite fixes, so they are always reported apart; raw agreement hides which
one a judge makes, and Cohen's kappa says how much of it chance alone would give.

Seed 001's rules: the split is shown from :data:`MIN_SPLIT_REVIEWS` classified reviews on, and
every figure is *provisional* under :data:`PROVISIONAL_REVIEWS`. Rates carry Wilson 95 %
intervals (they stay inside 0-1 and behave at 0 and n). :func:`corrected_rate` undoes the judge's
measured error on an observed breach rate (Rogan-Gladen), so a person sees what the judge's error
does to the number they act on. :func:`propose_threshold` replays labelled scores and proposes
the threshold with the highest precision at a required recall (shadow-mode calibration).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

#: Classified reviews needed before the calibration split is shown (seed 001: "twenty or more").
MIN_SPLIT_REVIEWS: Final = 20
#: Under this many reviews every figure is marked provisional.
PROVISIONAL_REVIEWS: Final = 50
#: The two-sided 95 % normal quantile (Wilson intervals).
Z95: Final = 1.959963984540054
#: Width of a score band, points.
BAND_WIDTH: Final = 10
#: The recall on breaches a threshold proposal must keep, unless asked otherwise.
DEFAULT_REQUIRED_RECALL: Final = 0.9
#: Below this lower bound of its recall on breaches a dimension's judge is not trusted (0-1), unless
#: the EvalProfile's ``judgeTrust.recallFloor`` says otherwise.
DEFAULT_RECALL_FLOOR: Final = 0.8


class Route(StrEnum):
    """Where a correction belongs (seed 004 section 13): a stale fact, an unwritten rule, a repeated
    preference, an unseen pattern (the only one that becomes a case), an output never to be shown."""

    MEMORY = "memory"
    DECISION = "decision"
    POLICY = "policy"
    CASE_SET = "case-set"
    FILTER = "filter"


ROUTES: Final = tuple(r.value for r in Route)


@dataclass(frozen=True, slots=True)
class Review:
    """One review of one judged score: the judge's score and threshold, and the reviewer's reading."""

    judge: float
    threshold: float
    agree: bool
    #: The score the reviewer thinks is right (0-100), if they gave one.
    score: float | None = None

    @property
    def judge_breach(self) -> bool:
        return self.judge < self.threshold

    @property
    def human_breach(self) -> bool:
        """The reviewer's reading: their score against the threshold, else the judge's side on
        *agree* and the other side on *disagree*."""
        if self.score is not None:
            return self.score < self.threshold
        return self.judge_breach if self.agree else not self.judge_breach

    @property
    def human_score(self) -> float | None:
        """The reviewer's score, or the judge's on a bare *agree*; None on a bare *disagree* (a
        direction without a size says nothing about bias)."""
        if self.score is not None:
            return self.score
        return self.judge if self.agree else None


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95 % interval; ``low <= high``, both in 0-1 for rates."""

    low: float
    high: float


def wilson(successes: int, trials: int, z: float = Z95) -> Interval | None:
    """The Wilson score interval of ``successes`` in ``trials`` (None without a trial)."""
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class Confusion:
    """The calibration split: a positive is a breach; the judge's call against the reviewer's."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def add(self, judge_breach: bool, human_breach: bool) -> Confusion:
        return Confusion(
            self.tp + (judge_breach and human_breach),
            self.fp + (judge_breach and not human_breach),
            self.fn + (not judge_breach and human_breach),
            self.tn + (not judge_breach and not human_breach),
        )

    @property
    def precision(self) -> float | None:
        """Of the judge's breaches, the share the reviewers saw too (None: it flagged none)."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """Of the reviewers' breaches, the share the judge caught (sensitivity; None: none seen)."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def specificity(self) -> float | None:
        """Of the healthy outputs, the share the judge passed."""
        return _ratio(self.tn, self.tn + self.fp)

    @property
    def agreement(self) -> float | None:
        """The share on the same side of the threshold."""
        return _ratio(self.tp + self.tn, self.total)

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa: agreement beyond chance. None when chance alone agrees on everything (both
        sides put every review in one class): no information, not a perfect score."""
        n = self.total
        if n == 0:
            return None
        observed = (self.tp + self.tn) / n
        expected = ((self.tp + self.fp) * (self.tp + self.fn) + (self.fn + self.tn) * (self.fp + self.tn)) / (
            n * n
        )
        if expected >= 1.0:
            return None
        return (observed - expected) / (1 - expected)


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def confusion(reviews: Iterable[Review]) -> Confusion:
    """The split of ``reviews`` (every review is classified)."""
    tp = fp = fn = tn = 0
    for r in reviews:
        j, h = r.judge_breach, r.human_breach
        if j and h:
            tp += 1
        elif j:
            fp += 1
        elif h:
            fn += 1
        else:
            tn += 1
    return Confusion(tp, fp, fn, tn)


@dataclass(frozen=True, slots=True)
class Band:
    """Agreement among the reviews whose judge score falls in ``[low, low + 10)`` (90-100 closed)."""

    low: int
    reviews: int
    agreed: int

    @property
    def agreement(self) -> float:
        return self.agreed / self.reviews

    @property
    def interval(self) -> Interval:
        bounds = wilson(self.agreed, self.reviews)
        assert bounds is not None
        return bounds


def band_of(score: float) -> int:
    """The lower edge of the 10-point band holding ``score`` (100 belongs to 90-100)."""
    return min(int(max(0.0, score) // BAND_WIDTH) * BAND_WIDTH, 100 - BAND_WIDTH)


@dataclass(frozen=True, slots=True)
class Quality:
    """One dimension's judge quality. ``split`` is None under :data:`MIN_SPLIT_REVIEWS` reviews."""

    reviews: int
    agreed: int
    #: Mean of judge minus reviewer over the reviews that carry a reviewer's score (None: none do).
    bias: float | None
    #: Reviews that carried a score (the base of ``bias``).
    scored: int
    split: Confusion | None
    bands: tuple[Band, ...]

    @property
    def provisional(self) -> bool:
        return self.reviews < PROVISIONAL_REVIEWS

    @property
    def agreement(self) -> float | None:
        return _ratio(self.agreed, self.reviews)

    @property
    def agreement_interval(self) -> Interval | None:
        return wilson(self.agreed, self.reviews)

    @property
    def precision_interval(self) -> Interval | None:
        return None if self.split is None else wilson(self.split.tp, self.split.tp + self.split.fp)

    @property
    def recall_interval(self) -> Interval | None:
        return None if self.split is None else wilson(self.split.tp, self.split.tp + self.split.fn)

    @property
    def specificity_interval(self) -> Interval | None:
        return None if self.split is None else wilson(self.split.tn, self.split.tn + self.split.fp)


@dataclass(frozen=True, slots=True)
class ReviewCell:
    """Reviews of one dimension that share a score band and both readings: what judge quality is
    made of, so a database can count them (GROUP BY) instead of handing over every review."""

    band: int
    judge_breach: bool
    human_breach: bool
    reviews: int
    #: Sum of judge minus reviewer over those that carry a reviewer's score (:attr:`Review.human_score`).
    bias_sum: float = 0.0
    #: How many carry one.
    scored: int = 0


def review_cells(reviews: Iterable[Review]) -> list[ReviewCell]:
    """``reviews`` counted into cells (the same arithmetic a database's GROUP BY does)."""
    cells: dict[tuple[int, bool, bool], list[float]] = {}
    for r in reviews:
        cell = cells.setdefault((band_of(r.judge), r.judge_breach, r.human_breach), [0, 0.0, 0])
        cell[0] += 1
        if (h := r.human_score) is not None:
            cell[1] += r.judge - h
            cell[2] += 1
    return [ReviewCell(b, j, h, int(n), s, int(k)) for (b, j, h), (n, s, k) in sorted(cells.items())]


def judge_quality(reviews: Sequence[Review]) -> Quality:
    """Agreement, signed bias, the split (from 20 reviews) and agreement by score band."""
    return quality_of_cells(review_cells(reviews))


def quality_of_cells(cells: Iterable[ReviewCell]) -> Quality:
    """:func:`judge_quality` from counted cells (one arithmetic, whoever counted)."""
    tp = fp = fn = tn = scored = 0
    sums: list[float] = []
    bands: dict[int, list[int]] = {}
    for c in cells:
        if c.judge_breach and c.human_breach:
            tp += c.reviews
        elif c.judge_breach:
            fp += c.reviews
        elif c.human_breach:
            fn += c.reviews
        else:
            tn += c.reviews
        sums.append(c.bias_sum)
        scored += c.scored
        counts = bands.setdefault(c.band, [0, 0])
        counts[0] += c.reviews
        counts[1] += c.reviews if c.judge_breach == c.human_breach else 0
    split = Confusion(tp, fp, fn, tn)
    total = split.total
    return Quality(
        reviews=total,
        agreed=tp + tn,
        bias=math.fsum(sums) / scored if scored else None,
        scored=scored,
        split=split if total >= MIN_SPLIT_REVIEWS else None,
        bands=tuple(Band(low, n, ok) for low, (n, ok) in sorted(bands.items()) if n),
    )


def recall_floor_breached(quality: Quality, floor: float) -> bool | None:
    """Whether the lower bound of the judge's recall on breaches is under ``floor`` (0-1).

    None when it cannot be told yet (no split, or no breach seen by a reviewer): undetermined,
    never a guessed "trusted"."""
    bounds = quality.recall_interval
    if bounds is None:
        return None
    return bounds.low < floor


class TrustReason(StrEnum):
    """Why a judge is (not) trusted: the reasons of the ``JudgeTrusted`` condition."""

    #: every dimension's recall on breaches has its lower 95 % bound at or above the floor
    RECALL_ABOVE_FLOOR = "RecallAboveFloor"
    #: some dimension's lower bound is under the floor: the judge misses breaches there
    MISSES_BREACHES = "MissesBreaches"
    #: some dimension has fewer than :data:`MIN_SPLIT_REVIEWS` reviews, or none saw a breach
    TOO_FEW_REVIEWS = "TooFewReviews"


@dataclass(frozen=True, slots=True)
class DimensionTrust:
    """What trust in one dimension's judge is decided from: its current reviews and the lower
    bound of its recall on breaches (None: no split yet, or no reviewer saw a breach)."""

    reviews: int
    recall_low: float | None

    def trusted(self, floor: float) -> bool | None:
        """False under the floor, None when it cannot be told yet, True otherwise."""
        if self.recall_low is None or self.reviews < MIN_SPLIT_REVIEWS:
            return None
        return self.recall_low >= floor


@dataclass(frozen=True, slots=True)
class Trust:
    """The ``JudgeTrusted`` decision: True, False or None (Unknown), its reason and message, and the
    dimensions that miss breaches."""

    trusted: bool | None
    reason: TrustReason
    message: str
    misses: tuple[str, ...] = ()


def judge_trust(dimensions: Mapping[str, DimensionTrust], floor: float) -> Trust:
    """Whether a profile's judge may be relied on, from every dimension it judges.

    False (:attr:`TrustReason.MISSES_BREACHES`, naming each dimension and its bound) as soon as one
    dimension's recall bound is under ``floor``: reviewers showed it misses breaches. Otherwise
    Unknown while any dimension has too few reviews to tell (never a guessed True), and True only
    when every dimension was measured and clears the floor."""
    misses = sorted(d for d, t in dimensions.items() if t.trusted(floor) is False)
    if misses:
        bounds = ", ".join(f"{d} (recall lower bound {dimensions[d].recall_low:.2f})" for d in misses)
        return Trust(
            False,
            TrustReason.MISSES_BREACHES,
            f"the judge misses breaches on {bounds}, under the floor {floor:g}",
            tuple(misses),
        )
    unknown = sorted(d for d, t in dimensions.items() if t.trusted(floor) is None)
    if unknown or not dimensions:
        few = ", ".join(f"{d} ({dimensions[d].reviews})" for d in unknown[:8]) or "none judged"
        return Trust(
            None,
            TrustReason.TOO_FEW_REVIEWS,
            f"too few reviews to measure the judge's recall on breaches ({MIN_SPLIT_REVIEWS} needed, "
            f"with at least one breach a reviewer saw): {few}",
        )
    return Trust(
        True,
        TrustReason.RECALL_ABOVE_FLOOR,
        f"every dimension's recall on breaches is at least {floor:g} (lower 95% bound)",
    )


# --- the observed breach rate, corrected for the judge's error ----------------------------------------


@dataclass(frozen=True, slots=True)
class CorrectedRate:
    """An observed breach rate beside the rate corrected for the judge's sensitivity and specificity."""

    observed: float
    observed_interval: Interval
    #: None when the judge is no better than a coin (sensitivity + specificity <= 1).
    corrected: float | None
    #: A conservative 95 % box: the correction at the corners of the three Wilson intervals.
    interval: Interval | None


def rogan_gladen(observed: float, sensitivity: float, specificity: float) -> float | None:
    """``(p + Sp - 1) / (Se + Sp - 1)`` clipped to 0-1; None when ``Se + Sp <= 1``."""
    denominator = sensitivity + specificity - 1
    if denominator <= 0:
        return None
    return min(1.0, max(0.0, (observed + specificity - 1) / denominator))


def corrected_rate(breaches: int, scored: int, split: Confusion | None) -> CorrectedRate | None:
    """The rate of ``breaches`` in ``scored`` judged outputs, and that rate corrected for the error
    the split measures (Rogan-Gladen). None without a scored output.

    The corrected value is monotone in each of the observed rate, the sensitivity and the
    specificity, so its extremes over the box of their Wilson intervals lie at the box's corners;
    if a corner makes the judge no better than chance, the interval is the whole of 0-1."""
    observed_bounds = wilson(breaches, scored)
    if observed_bounds is None:
        return None
    observed = breaches / scored
    if split is None:
        return CorrectedRate(observed, observed_bounds, None, None)
    se, sp = split.recall, split.specificity
    se_bounds = wilson(split.tp, split.tp + split.fn)
    sp_bounds = wilson(split.tn, split.tn + split.fp)
    if se is None or sp is None or se_bounds is None or sp_bounds is None:
        return CorrectedRate(observed, observed_bounds, None, None)
    point = rogan_gladen(observed, se, sp)
    corners = [
        rogan_gladen(p, s, c)
        for p in (observed_bounds.low, observed_bounds.high)
        for s in (se_bounds.low, se_bounds.high)
        for c in (sp_bounds.low, sp_bounds.high)
    ]
    if point is None:
        return CorrectedRate(observed, observed_bounds, None, None)
    if any(c is None for c in corners):
        return CorrectedRate(observed, observed_bounds, point, Interval(0.0, 1.0))
    values = [c for c in corners if c is not None]
    return CorrectedRate(observed, observed_bounds, point, Interval(min(values), max(values)))


# --- threshold calibration (shadow mode) -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThresholdRow:
    """What a threshold would have done to the labelled scores: breach when ``score < threshold``."""

    threshold: float
    split: Confusion


@dataclass(frozen=True, slots=True)
class Proposal:
    """The proposed threshold (None: no threshold reaches the recall) and the trade-off table."""

    required_recall: float
    labelled: int
    breaches: int
    threshold: float | None
    table: tuple[ThresholdRow, ...]

    @property
    def chosen(self) -> ThresholdRow | None:
        return next((row for row in self.table if row.threshold == self.threshold), None)


def trade_offs(labelled: Sequence[tuple[float, bool]], thresholds: Iterable[float]) -> list[ThresholdRow]:
    """The split at each threshold, for ``(judge score, reviewer saw a breach)`` pairs. O(n log n)."""
    ordered = sorted(labelled)
    scores = [s for s, _ in ordered]
    breaches_below = [0]
    for _, breach in ordered:
        breaches_below.append(breaches_below[-1] + breach)
    total_breaches = breaches_below[-1]
    rows = []
    for t in sorted(set(thresholds)):
        below = _count_below(scores, t)
        tp = breaches_below[below]
        fp = below - tp
        fn = total_breaches - tp
        tn = len(ordered) - below - fn
        rows.append(ThresholdRow(float(t), Confusion(tp, fp, fn, tn)))
    return rows


def _count_below(scores: Sequence[float], threshold: float) -> int:
    lo, hi = 0, len(scores)
    while lo < hi:
        mid = (lo + hi) // 2
        if scores[mid] < threshold:
            lo = mid + 1
        else:
            hi = mid
    return lo


def propose_threshold(
    labelled: Sequence[tuple[float, bool]],
    *,
    required_recall: float = DEFAULT_REQUIRED_RECALL,
    current: float | None = None,
) -> Proposal:
    """The whole-point threshold (1-100) with the highest precision whose recall on the reviewers'
    breaches is at least ``required_recall``; ties go to the higher recall, then the lower
    threshold (fewer false alarms). The table holds every tenth point, the proposal and
    ``current``. None when nobody saw a breach (there is nothing to catch yet)."""
    if not 0.0 <= required_recall <= 1.0:
        raise ValueError(f"required recall {required_recall} is not within 0-1")
    rows = trade_offs(labelled, range(1, 101))
    breaches = sum(1 for _, b in labelled if b)
    best: ThresholdRow | None = None
    if breaches:
        for row in rows:
            recall = row.split.recall or 0.0
            if recall < required_recall:
                continue
            key = (row.split.precision or 0.0, recall, -row.threshold)
            if best is None or key > (best.split.precision or 0.0, best.split.recall or 0.0, -best.threshold):
                best = row
    shown = {float(t) for t in range(10, 101, 10)}
    if best is not None:
        shown.add(best.threshold)
    if current is not None:
        shown.add(float(current))
    by_threshold = {row.threshold: row for row in rows}
    missing = [t for t in shown if t not in by_threshold]  # a current threshold between whole points
    by_threshold |= {row.threshold: row for row in trade_offs(labelled, missing)} if missing else {}
    table = tuple(by_threshold[t] for t in sorted(shown))
    return Proposal(
        required_recall, len(labelled), breaches, best.threshold if best is not None else None, table
    )
