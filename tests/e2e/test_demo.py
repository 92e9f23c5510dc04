"""`make demo` as a newcomer runs it: ``hack/demo.sh`` on a local control plane of its own, checked
from what it prints and from what it leaves behind. Its last chapters are arm B's incident story
(v2 of the example agent in production, a trend then a breach judged from real traced requests,
one incident with its cause, its notice once in a real Alertmanager, the breached runs exported and
graded, the circuit breaker's needs_human) and arm C's ending (reviews of the judge, the judge-quality
table, a behaviour pattern, the outcome line). Every figure asserted here is one the demo read from
the collector, the API server, Alertmanager or ``proctor grade``; the demo prints no canned figure.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import httpx
import pytest
from tests.conftest import REPO

from proctor.testing.cluster import scaled

ANSI = re.compile(r"\x1b\[[0-9;]*m")
RUN_LINE = re.compile(r"^  (r[0-9a-f]+)  (\S+)  revision (\S+)  factual_grounding (\d+)(  BREACHED)?$", re.M)


def chapters(out: str) -> dict[str, str]:
    """The demo's output by chapter: the text after each ``== TITLE`` heading, keyed by its title."""
    parts = re.split(r"^== (.*)$", out, flags=re.M)
    found: dict[str, str] = {}
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        found[title] = found.get(title, "") + body
    return found


def chapter(parts: dict[str, str], start: str) -> str:
    [body] = [body for title, body in parts.items() if title.startswith(start)]
    return body


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.timeout(scaled(2400))
def test_make_demo_tells_the_incident_story_and_ends_with_arm_c(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KUBECONFIG", "PROCTOR_SERVER", "PROCTOR_API_TOKEN", "DEMO_KEEP")
    }
    env["PROCTOR_DEV_DIR"] = str(tmp_path / "dev")  # a control plane of its own, stopped at the end
    proc = subprocess.run(
        ["bash", str(REPO / "hack" / "demo.sh")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(2400),
        check=False,
    )
    out = ANSI.sub("", proc.stdout + proc.stderr)
    assert proc.returncode == 0, out[-8000:]
    assert "Traceback" not in out, out[-8000:]
    parts = chapters(out)

    # v1 in production first: its runs judged clean (92: every band reading agrees with the manual)
    runs = {key: (run, rev, int(score), bool(b)) for run, key, rev, score, b in RUN_LINE.findall(out)}
    assert runs["v2-shift-8-engine-1"][1:] == ("v2", 92, False), out[-8000:]
    # v2's boundary bug in half the readings: above the threshold, and a trend
    assert runs["v2-shift-9-engine-3"][1:] == ("v2", 72, False)
    trend = chapter(parts, "engine 3 at the boundary")
    assert "Degrading=True TrendDeclining: trend:factual_grounding of revision v2" in trend
    assert "Breached=True" not in trend
    assert re.search(r"^  ProctorDegrading  severity=warning  revision=v2 ", trend, re.M), trend
    assert "ProctorBreach" not in trend
    # then in every reading: a breach
    breached = [k for k in runs if k.startswith(("v2-shift-10", "v2-shift-11", "v2-shift-12"))]
    assert len(breached) == 4 and all(runs[k][1:] == ("v2", 52, True) for k in breached), runs
    assert (
        "Breached=True DimensionBelowThreshold: breach:factual_grounding of revision v2 (latest 52 < 70)"
        in out
    )

    # one incident for three breached runs, with its cause
    listing = chapter(parts, "proctor incidents list").strip().splitlines()
    assert len(listing) == 2, listing  # the header and one incident
    incident, monitor, state, severity, count, revision, signatures = listing[1].split()
    assert (monitor, state, count, revision, signatures) == (
        "proctor-demo/oil-agent",
        "open",
        "3",
        "v2",
        "breach:factual_grounding",
    )
    shown = chapter(parts, f"proctor incidents show {incident}")
    assert re.search(
        r"cause: step \d+ \(output, span:[0-9a-f]+\), tool oil_bands, traces [0-9a-f]{32}", shown
    )
    assert {runs[k][0] for k in breached[:3]} == set(re.findall(r"r[0-9a-f]{24}", shown.split("runs: ")[1]))

    # the notice once, in Alertmanager's own API: one ProctorBreach for the three runs
    told = chapter(parts, "Alertmanager's own API after three breached runs")
    assert len(re.findall(r"^  ProctorBreach  ", told, re.M)) == 1, told
    assert f"  ProctorBreach  severity={severity}  revision=v2  incident={incident}  active" in told
    assert "ProctorBreach alerts: 1 " in told

    # the breached runs exported as cases; v2's answers fail them (exit code 1, the verdict)
    exported = chapter(parts, "the breached runs as candidate cases")
    assert "CaseSet oil-monitoring: 3 cases" in exported
    assert all(
        f"live-{runs[k][0]}  tier trust  category captured/factual_grounding" in exported
        for k in breached[:3]
    )
    graded = chapter(parts, "proctor grade captured.yaml")
    assert "FAIL (exit 1)" in graded and graded.rstrip().endswith("-> exit code 1"), graded

    # the breach persists past cooldownRuns: the third notice in the hour trips the breaker
    storm = chapter(parts, "one conversation more")
    assert "NeedsHuman=True TooManyNotices: more than 2 notices within 3600 s" in storm
    assert re.search(r"^  ProctorNeedsHuman  severity=critical  revision=v2 ", storm, re.M), storm
    assert len(re.findall(r"^  ProctorBreach  ", storm, re.M)) == 1

    # arm C: the reviews, the judge's quality (provisional), the pattern, the outcome line
    reviews = chapter(parts, "arm C: the SRE on call reviews the judge")
    assert "sre disagrees with factual_grounding 72 (threshold 70)" in reviews, reviews
    assert "a candidate case was captured" in reviews
    quality = chapter(parts, "proctor judge-quality")
    assert re.search(r"^  factual_grounding \(provisional\)\s+4\s+75%", quality, re.M), quality
    patterns = chapter(parts, "proctor patterns list")
    assert re.search(r"^  1\s+open\s+factual_grounding\s+general\s+4\s", patterns, re.M), patterns
    assert "Reads 0.30 qt/hr as NORMAL" in patterns
    outcomes = chapter(parts, "proctor outcome --monitor")
    assert re.search(r"acceptance 83% \(4 accepted, 1 modified, 1 rejected\)", outcomes), outcomes
    assert "human minutes per accepted output" in outcomes and "1 ignored" in outcomes

    # everything it started is stopped, its temporary files removed
    [pid] = re.findall(r"alertmanager at http://127\.0\.0\.1:\d+ \(pid (\d+)\)", out)
    [am_url] = re.findall(r"alertmanager at (http://127\.0\.0\.1:\d+)", out)
    assert not alive(int(pid))
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{am_url}/-/ready", timeout=scaled(10))
    [db] = re.findall(r"--db sqlite:///(\S+)/collector\.db", out)
    assert not Path(db).exists()
    assert "control plane stopped" in out
