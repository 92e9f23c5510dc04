"""What the protocol remembers of a finished EvalRun, read from its status (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from proctor.api import (
    TERMINAL_PHASES,
    EvalRun,
    ManifestError,
    Provenance,
    RecentRun,
    format_time,
    parse_evalrun,
)
from proctor.protocol import RunRecord, Tier, Verdict

#: How many finished runs a CaseSet's status lists (``status.recentRuns``).
RECENT_RUNS = 10


def comparable_provenance(prov: Provenance | None) -> str:
    """The part of a run's provenance that must match for two runs to be comparable: the judge's
    prompts, rubrics and model, and the scoring policy (the case-set digest is compared apart)."""
    both = f"{(prov.judge_prompt if prov else None) or ''}|{(prov.scoring if prov else None) or ''}"
    return "sha256:" + hashlib.sha256(both.encode()).hexdigest()


def run_record(run: EvalRun) -> RunRecord:
    """A finished run as the protocol's freeze and canary rules take it."""
    st = run.status
    tiers = st.tiers if st is not None else None
    rates = {t: (summary.rate if (summary := tiers.get(t) if tiers else None) else None) for t in Tier}
    prov = st.provenance if st is not None else None
    return RunRecord(
        name=run.metadata.name or "",
        verdict=st.verdict.verdict if st is not None and st.verdict is not None else Verdict.ERROR,
        digest=(prov.case_set if prov else None) or "",
        provenance=comparable_provenance(prov),
        rates=rates,
    )


def finished_runs(runs: Iterable[EvalRun], caseset: str) -> list[EvalRun]:
    """A case set's finished runs, oldest first."""
    done = [
        r
        for r in runs
        if r.spec.case_set_ref.name == caseset
        and r.status is not None
        and r.status.phase is not None
        and r.status.phase.terminal
    ]
    done.sort(
        key=lambda r: (
            format_time(r.status.completion_time) if r.status and r.status.completion_time else "",
            r.metadata.name or "",
        )
    )
    return done


def recent_runs(runs: Sequence[Mapping[str, Any]], *, digest: str | None) -> list[RecentRun]:
    """The newest :data:`RECENT_RUNS` finished runs of a case set (``runs`` as listed), newest last.

    A run that measured nothing (the harness failed) has no case-set digest of its own; it is listed
    with the case set's ``digest`` (its ERROR still counts against a freeze).
    """
    done = [r for r in runs if (r.get("status") or {}).get("phase") in TERMINAL_PHASES]
    done.sort(key=lambda r: ((r.get("status") or {}).get("completionTime") or "", r["metadata"]["name"]))
    out = []
    for raw in done[-RECENT_RUNS:]:
        try:
            run = parse_evalrun(raw)
        except ManifestError:
            continue
        record = run_record(run)
        if not record.digest:
            if not digest:
                continue
            record = replace(record, digest=digest)
        completed = run.status.completion_time if run.status is not None else None
        out.append(RecentRun.from_record(record, completion_time=completed))
    return out
