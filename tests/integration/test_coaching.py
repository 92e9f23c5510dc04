"""Behaviour patterns and improvement guidance end to end: the real collector process judges real
OTLP runs with the scripted judge, and ``proctor patterns`` (and the API it calls) shows what
recurs, ranked and decomposed, resolves it, and sees it reopen when it recurs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from collecting import API_TOKEN, TIMEOUT, TOKEN, agent_turn, collector, manifests, tracer, wait_for
from proctor.testing.judgeserver import JudgeServer, judgment

#: The judge's words for every factual_grounding failure in these tests.
NO_CITATION = "The answer cites no source for the oil consumption band."


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    dropped = ("PROCTOR_TOKEN", "PROCTOR_API_TOKEN", "PROCTOR_SERVER")
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        server.add_rule(lambda r: "factual_grounding" in r.raw, judgment(30, NO_CITATION))
        server.default = judgment(90, "fine")
        yield server


def evaluated(url: str, n: int) -> list[str] | None:
    """The ids of the runs once ``n`` are Evaluated (else None)."""
    reply = httpx.get(
        f"{url}/api/v1/runs",
        params={"state": "Evaluated"},
        headers={"Authorization": f"Bearer {API_TOKEN}"},
        timeout=TIMEOUT,
    )
    runs = reply.json()["runs"]
    return [r["id"] for r in runs] if len(runs) == n else None


def test_patterns_rank_resolve_and_reopen_through_the_cli(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            for i in range(3):
                agent_turn(tr, f"conv-{i}", "Oil at 0.30 qt/hr?", "ELEVATED.")
        runs = wait_for(lambda: evaluated(c.url, 3), "three runs to be judged")
        env = {"PROCTOR_SERVER": c.url, "PROCTOR_API_TOKEN": API_TOKEN}

        out = cli("patterns", "list", "--monitor", "demo/oil-agent", "-o", "json", env=env)
        assert out.returncode == 0, out.stderr
        doc = json.loads(out.stdout)
        (p,) = doc["patterns"]
        assert (p["dimension"], p["category"], p["state"], p["recurrence"]) == (
            "factual_grounding",
            "general",
            "open",
            3,
        )
        assert p["reason"] == NO_CITATION and sorted(p["evidence"]) == sorted(runs)
        assert 0 < p["recencyWeight"] <= 1 and p["score"] == pytest.approx(3 * p["recencyWeight"], abs=1e-5)
        assert doc["grouping"] == "by dimension, run category and the meaning of the judge's reason"

        table = cli("patterns", "list", "--monitor", "oil-agent", "-n", "demo", env=env)
        assert table.returncode == 0, table.stderr
        header, row = table.stdout.splitlines()[:2]
        assert header.split() == [
            "ID",
            "STATE",
            "DIMENSION",
            "CATEGORY",
            "RECURRENCE",
            "RECENCY",
            "SCORE",
            "LAST",
            "SEEN",
        ]
        assert row.split()[:5] == [str(p["id"]), "open", "factual_grounding", "general", "3"]
        assert NO_CITATION in table.stdout

        guide = cli("patterns", "guidance", "--monitor", "demo/oil-agent", "-o", "json", env=env)
        (line,) = json.loads(guide.stdout)["guidance"]
        assert line["text"].startswith(
            f"factual_grounding fell below its threshold (70) 3 times. The judge's reason: {NO_CITATION}"
        )
        assert "Aim for:" in line["text"] and sorted(line["evidence"]) == sorted(runs)

        done = cli("patterns", "resolve", str(p["id"]), "--note", "prompt v7 cites the AMM", env=env)
        assert done.returncode == 0 and "resolved (by proctor-api-token)" in done.stdout, done.stderr
        assert (
            json.loads(cli("patterns", "list", "--monitor", "demo/oil-agent", "-o", "json", env=env).stdout)[
                "patterns"
            ]
            == []
        )

        # the same failure after the fix: the pattern reopens, counting from the new run
        with tracer(c.url) as tr:
            agent_turn(tr, "conv-after-fix", "Oil at 0.30 qt/hr?", "ELEVATED.")
        latest = wait_for(lambda: evaluated(c.url, 4), "the new run to be judged")
        new_run = (set(latest) - set(runs)).pop()
        again = json.loads(
            cli("patterns", "list", "--monitor", "demo/oil-agent", "-o", "json", env=env).stdout
        )
        (p2,) = again["patterns"]
        assert (p2["id"], p2["state"], p2["recurrence"], p2["reopened"], p2["occurrences"]) == (
            p["id"],
            "open",
            1,
            1,
            4,
        )
        assert p2["evidence"][0] == new_run and p2["resolution"] == "prompt v7 cites the AMM"


def test_what_the_coaching_api_refuses(judge: JudgeServer, tmp_path: Path) -> None:
    with collector(tmp_path, f"sqlite:///{tmp_path / 'c.db'}", manifests(judge.base_url)) as c:
        env = {"PROCTOR_SERVER": c.url, "PROCTOR_API_TOKEN": API_TOKEN}
        api = {"Authorization": f"Bearer {API_TOKEN}"}
        # the agents' ingestion token opens nothing here: not the patterns, not resolving one
        agent = {"Authorization": f"Bearer {TOKEN}"}
        for method, path in (
            ("GET", "/api/v1/monitors/demo/oil-agent/patterns"),
            ("GET", "/api/v1/monitors/demo/oil-agent/guidance"),
            ("GET", "/api/v1/monitors/demo/oil-agent/rubric"),
            ("POST", "/api/v1/patterns/1/resolve"),
        ):
            assert httpx.request(method, c.url + path, headers=agent, timeout=TIMEOUT).status_code == 401
        bad_state = httpx.get(
            f"{c.url}/api/v1/monitors/demo/oil-agent/patterns?state=closed", headers=api, timeout=TIMEOUT
        )
        assert bad_state.status_code == 400 and "open, resolved, all" in bad_state.json()["error"]
        other = httpx.get(f"{c.url}/api/v1/monitors/demo/nobody/patterns", headers=api, timeout=TIMEOUT)
        assert other.status_code == 404
        for raw in ("1", "999", "abc", "-1"):
            missing = httpx.post(f"{c.url}/api/v1/patterns/{raw}/resolve", headers=api, timeout=TIMEOUT)
            assert missing.status_code == 404 and "no pattern" in missing.json()["error"]
        bad_body = httpx.post(
            f"{c.url}/api/v1/patterns/1/resolve", headers=api, content=b"{not json", timeout=TIMEOUT
        )
        assert bad_body.status_code == 400
        refused = cli("patterns", "resolve", "999", env=env)
        assert refused.returncode == 1 and "404" in refused.stderr
        nothing = cli("patterns", "list", "--monitor", "oil-agent", env=env)
        assert nothing.returncode == 2 and "-n NAMESPACE" in nothing.stderr
        doc = httpx.get(f"{c.url}/openapi.json", timeout=TIMEOUT).json()
        assert {"/api/v1/monitors/{namespace}/{name}/patterns", "/api/v1/patterns/{id}/resolve"} <= set(
            doc["paths"]
        )
