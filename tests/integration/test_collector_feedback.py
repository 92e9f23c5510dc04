"""Arm C on the real collector process: reviews, judge quality, calibration and outcomes through the
HTTP API and the ``proctor`` verbs, spans from the OpenTelemetry SDK's own exporter, judged by the
scripted judge server, stored on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from collecting import API_TOKEN, agent_turn, collector, manifests, run_in, tracer, wait_for
from judging import JudgeServer
from proctor.cli import main as proctor
from proctor.reconcile.monitors import parse_summary
from proctor.store import OUTCOME_ATTRIBUTE, OUTCOME_MINUTES_ATTRIBUTE

QUALITY_KEYS = {
    "reviews",
    "agreement",
    "bias",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "kappa",
    "provisional",
}


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def cli(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = proctor([*argv, "--server", url, "--token", API_TOKEN])
    out, err = capsys.readouterr()
    return code, out, err


def api(
    url: str, method: str, path: str, body: object = None, token: str | None = API_TOKEN
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, f"{url}{path}", json=body, headers=headers, timeout=30)


def test_reviews_make_judge_quality_and_bad_input_stores_nothing(
    judge: JudgeServer, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            agent_turn(tr, "conv-1", "Oil at exactly 0.30 qt/hr on engine 2: normal?", "NORMAL.")
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        rid = run["id"]

        # bad input: a clear 4xx (exit 1 from the CLI), the cause said, nothing stored
        for argv, said in [
            (["--dimension", "safety", "--agree", "--score", "101"], "outside 0-100"),
            (["--dimension", "safety", "--agree", "--minutes", "-1"], "within 0 and a day"),
            (["--dimension", "safety", "--agree", "--minutes", "1441"], "within 0 and a day"),
            (["--dimension", "safety", "--agree", "--route", "retrain"], "not one of"),
            (["--dimension", "charisma", "--agree"], "no score for dimension 'charisma'"),
        ]:
            code, _, err = cli(capsys, c.url, "feedback", rid, *argv)
            assert code == 1 and said in err, (argv, err)
        code, _, err = cli(capsys, c.url, "feedback", "r" + "0" * 24, "--dimension", "safety", "--agree")
        assert code == 1 and "404" in err and "no run" in err
        forged = api(
            c.url,
            "POST",
            "/api/v1/feedback",
            {"run": rid, "dimension": "safety", "agree": True, "reviewer": "the-boss"},
        )
        assert forged.status_code == 400 and "reviewer" in forged.json()["error"]
        assert api(c.url, "POST", "/api/v1/feedback", {"run": rid}, token=None).status_code == 401
        assert api(c.url, "GET", f"/api/v1/feedback?run={rid}").json() == {"feedback": []}

        # a review, then the same reviewer's second word supersedes it; both stay in the record
        code, out, _ = cli(
            capsys, c.url, "feedback", rid, "--dimension", "factual_grounding", "--agree", "--minutes", "2"
        )
        assert code == 0 and "agrees with factual_grounding 75" in out
        code, out, _ = cli(
            capsys,
            c.url,
            "feedback",
            rid,
            "--dimension",
            "factual_grounding",
            "--disagree",
            "--score",
            "40",
            "--route",
            "case-set",
            "--reason",
            "0.30 is ELEVATED; I used the key AKIAIOSFODNN7EXAMPLX to check",
            "-o",
            "json",
        )
        stored = json.loads(out)
        assert code == 0 and stored["reviewer"] == "proctor-api-token" and stored["candidateCase"] is True
        # a credential pasted into a reason is stored (and served) redacted, like a run's
        assert "AKIAIOSFODNN7EXAMPLX" not in out and "[redacted aws-access-key: AKIA" in stored["reason"]
        assert stored["judgeScore"] == 75.0 and stored["threshold"] == 70.0
        (case,) = api(c.url, "GET", "/api/v1/feedback/cases?profile=demo/oil-rag").json()["cases"]
        assert case["input"].find("Oil at exactly 0.30") >= 0 and "NORMAL." in case["answer"]
        assert case["dimension"] == "factual_grounding" and case["tier"] == "safety"
        assert case["expectedScore"] == 40.0 and "AKIAIOSFODNN7EXAMPLX" not in json.dumps(case)
        history = api(c.url, "GET", f"/api/v1/feedback?run={rid}").json()["feedback"]
        assert [(f["agree"], f["current"]) for f in history] == [(False, True), (True, False)]

        code, out, _ = cli(capsys, c.url, "judge-quality", "--profile", "demo/oil-rag", "-o", "json")
        doc = json.loads(out)
        assert code == 0 and set(doc) == {"profile", "dimensions"} and doc["profile"] == "demo/oil-rag"
        fg = doc["dimensions"]["factual_grounding"]
        assert set(fg) == QUALITY_KEYS
        # one current review: the judge's 75 passed what the reviewer scores 40 (a missed breach)
        assert fg["reviews"] == 1 and fg["agreement"] == 0.0 and fg["bias"] == 35.0 and fg["provisional"]
        assert fg["tp"] is None and fg["fn"] is None  # no split under 20 reviews
        code, out, _ = cli(capsys, c.url, "judge-quality", "--profile", "oil-rag", "-n", "demo")
        assert code == 0 and "factual_grounding (provisional)" in out and "MISSED(FN)" in out
        assert "breach rate observed -> corrected" in out
        full = api(c.url, "GET", "/api/v1/judge-quality?profile=demo/oil-rag").json()
        assert full["dimensions"]["factual_grounding"]["breachRate"]["scored"] == 1
        code, _, err = cli(capsys, c.url, "judge-quality", "--profile", "demo/nobody")
        assert code == 1 and "404" in err

        code, out, _ = cli(capsys, c.url, "calibrate", "--monitor", "demo/oil-agent", "--recall", "1")
        assert code == 0 and "factual_grounding: 1 labelled, 1 breaches" in out and "<- proposed" in out


def test_outcomes_from_the_api_and_from_telemetry(
    judge: JudgeServer, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            agent_turn(tr, "conv-1", "Oil at 0.2 qt/hr: normal?", "NORMAL.")
            # the agent learns later what became of the output, and says so in its own telemetry
            with tr.start_as_current_span(
                "outcome",
                attributes={
                    "gen_ai.conversation.id": "conv-2",
                    OUTCOME_ATTRIBUTE: "accepted",
                    OUTCOME_MINUTES_ATTRIBUTE: 3.0,
                },
            ):
                pass

        def both() -> list[dict[str, object]] | None:
            with c.client() as client:
                found = client.list_runs()
            return found if len(found) == 2 else None

        runs = wait_for(both, "two runs")
        first = next(r["id"] for r in runs if r["key"] == "conv-1")
        code, out, _ = cli(capsys, c.url, "outcome", first, "modified", "--minutes", "9")
        assert code == 0 and "run " + first + ": modified (9 min)" in out
        # acceptance 100 % only ever printed beside its cost: 12 minutes for 2 kept outputs
        assert (
            "acceptance 100%" in out and "6.0 human minutes per accepted output" in out and "0 ignored" in out
        )
        code, out, _ = cli(capsys, c.url, "outcome", first, "ignored")
        doc = api(c.url, "GET", "/api/v1/monitors/demo/oil-agent/outcomes").json()
        assert (doc["accepted"], doc["modified"], doc["ignored"]) == (1, 0, 1)
        assert doc["acceptanceRate"] == 1.0 and doc["minutesPerAccepted"] == 3.0
        for body, said in [
            ({"outcome": "loved"}, "not one of"),
            ({"outcome": "accepted", "minutes": 99999}, "within 0 and a day"),
        ]:
            reply = api(c.url, "POST", f"/api/v1/runs/{first}/outcome", body)
            assert reply.status_code == 400 and said in reply.json()["error"]
        code, out, _ = cli(capsys, c.url, "outcome", "--monitor", "demo/oil-agent", "-o", "json")
        assert json.loads(out) == doc
        # the monitor's summary carries them, and the operator's status parser reads them
        summary = api(c.url, "GET", "/api/v1/monitors/demo/oil-agent").json()
        outcomes = parse_summary(summary).outcomes
        assert (
            outcomes is not None and outcomes.acceptance_rate == 1.0 and outcomes.minutes_per_accepted == 3.0
        )
        assert outcomes.ignored == 1 and outcomes.model_dump(by_alias=True)["minutesPerAccepted"] == 3.0
        metrics = httpx.get(f"{c.url}/metrics", timeout=30).text
        assert 'proctor_outcome_acceptance_ratio{monitor="demo/oil-agent"} 1.0' in metrics
        assert 'proctor_outcome_minutes_per_accepted{monitor="demo/oil-agent"} 3.0' in metrics
