"""What the protocol remembers of a finished EvalRun, read from its status (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from proctor.api import TERMINAL_PHASES
from proctor.protocol import RunRecord, Tier, Verdict


def run_provenance(status: Mapping[str, Any]) -> str:
    """The part of a run's provenance that must match for two runs to be comparable: the judge's
    prompts, rubrics and model, and the scoring policy (the case-set digest is compared apart)."""
    prov = status.get("provenance") or {}
    both = f"{prov.get('judgePrompt', '')}|{prov.get('scoring', '')}"
    return "sha256:" + hashlib.sha256(both.encode()).hexdigest()


def run_record(run: Mapping[str, Any]) -> RunRecord:
    st = run.get("status") or {}
    tiers = st.get("tiers") or {}
    return RunRecord(
        name=run["metadata"]["name"],
        verdict=Verdict[st.get("verdict", "ERROR")],
        digest=(st.get("provenance") or {}).get("caseSet", ""),
        provenance=run_provenance(st),
        rates={t: (tiers.get(t.value) or {}).get("rate") for t in Tier},
    )


def finished_runs(runs: list[Mapping[str, Any]], caseset: str) -> list[Mapping[str, Any]]:
    """A case set's finished runs, oldest first."""
    done = [
        r
        for r in runs
        if ((r.get("spec") or {}).get("caseSetRef") or {}).get("name") == caseset
        and (r.get("status") or {}).get("phase") in TERMINAL_PHASES
    ]
    done.sort(key=lambda r: ((r.get("status") or {}).get("completionTime") or "", r["metadata"]["name"]))
    return done
