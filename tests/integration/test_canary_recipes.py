"""The README's canary recipes, checked against the real things: Argo Rollouts' and Flagger's own
CRDs on the test API server (from their Go modules), Argo Rollouts' own evaluation of the
AnalysisTemplate's conditions (``utils/evaluate``, built by ``hack/build-argo-rollouts.sh``) on
the real collector's answers, asked as the analysis ServiceAccount a controller would use."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from collecting import TIMEOUT, agent_turn, manifests, tracer, wait_for
from conftest import REPO, Cluster
from judging import JudgeServer, status
from proctor.api import COLLECTOR_AUDIENCE

ARGO = "github.com/argoproj/argo-rollouts@v1.8.3"
FLAGGER = "github.com/fluxcd/flagger@v1.36.1"
DOWN = "[[judge-down]]"
GOOD = "ELEVATED: 0.30 qt/hr opens the ELEVATED band (AMM 72-00). [[score:90]]"
BAD = "NORMAL, nothing to do. [[score:20]]"


def recipe(name: str) -> list[dict[str, Any]]:
    """The YAML documents of the README's recipe ``name`` (what a user copies)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- recipe: {name} -->\n```yaml\n(.*?)```", text, re.S)
    assert found, f"the README has no recipe {name!r}"
    return [d for d in yaml.safe_load_all(found.group(1)) if d]


def module_dir(module: str) -> Path:
    out = subprocess.run(
        ["go", "mod", "download", "-json", module], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, f"the Go module proxy did not serve {module}: {out.stdout}{out.stderr}"
    return Path(json.loads(out.stdout)["Dir"])


@pytest.fixture(scope="module")
def foreign_crds(crds: Cluster) -> Cluster:
    """Argo Rollouts' AnalysisTemplate and Rollout CRDs and Flagger's CRDs, Established."""
    argo = module_dir(ARGO) / "manifests" / "crds"
    files = [argo / "analysis-template-crd.yaml", argo / "rollout-crd.yaml"]
    files.append(module_dir(FLAGGER) / "artifacts" / "flagger" / "crd.yaml")
    names = []
    for f in files:
        crds.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(f))
        names += [d["metadata"]["name"] for d in yaml.safe_load_all(f.read_text()) if d]

    def established(name: str) -> bool:
        jsonpath = '{.status.conditions[?(@.type=="Established")].status}'
        got = crds.kubectl("get", "crd", name, "-o", f"jsonpath={jsonpath}", check=False)
        return got.stdout.strip() == "True"

    for name in names:
        wait_for(lambda name=name: established(name), timeout=TIMEOUT, what=f"CRD {name} Established")
    return crds


def dry_run(cluster: Cluster, ns: str, docs: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    for d in docs:
        d["metadata"]["namespace"] = ns
    body = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs})
    return cluster.kubectl(
        "apply", "--dry-run=server", "--validate=strict", "-f", "-", input=body, check=False
    )


def test_the_recipes_are_valid_against_argo_rollouts_and_flaggers_own_crds(
    foreign_crds: Cluster, namespace: str
) -> None:
    argo = recipe("argo-analysis-template")
    assert [d["kind"] for d in argo] == ["AnalysisTemplate"]
    metric = argo[0]["spec"]["metrics"][0]
    assert metric["successCondition"] == 'result.verdict == "PASS"'
    assert metric["failureCondition"] == 'result.verdict == "FAIL"'
    done = dry_run(foreign_crds, namespace, argo)
    assert done.returncode == 0, done.stderr
    assert "analysistemplate.argoproj.io/proctor-live-verdict created (server dry run)" in done.stdout

    flagger = recipe("flagger")
    assert sorted(d["kind"] for d in flagger) == ["Canary", "MetricTemplate"]
    done = dry_run(foreign_crds, namespace, flagger)
    assert done.returncode == 0, done.stderr

    # the check can fail: a misspelled field or a wrong type is refused by the same schema
    broken = recipe("argo-analysis-template")
    broken[0]["spec"]["metrics"][0]["provider"]["web"]["headres"] = broken[0]["spec"]["metrics"][0][
        "provider"
    ]["web"].pop("headers")
    refused = dry_run(foreign_crds, namespace, broken)
    assert refused.returncode != 0 and "headres" in refused.stderr
    wrong = recipe("flagger")
    wrong[1]["spec"]["analysis"]["metrics"][0]["thresholdRange"] = {"min": "zero"}
    assert dry_run(foreign_crds, namespace, wrong).returncode != 0


def argo_phase(body: dict[str, Any], metric: dict[str, Any]) -> str:
    """The phase Argo Rollouts gives this measurement (its own EvaluateResult)."""
    bindir = subprocess.run(
        ["bash", str(REPO / "hack" / "build-argo-rollouts.sh")], capture_output=True, text=True, timeout=1800
    )
    assert bindir.returncode == 0, bindir.stderr[-3000:]
    out = subprocess.run(
        [
            str(Path(bindir.stdout.strip()) / "proctor-argo-eval"),
            "-success",
            metric["successCondition"],
            "-failure",
            metric["failureCondition"],
        ],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _apply(cluster: Cluster, objs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))


def _token(cluster: Cluster, ns: str, sa: str, audience: str | None = COLLECTOR_AUDIENCE) -> str:
    flags = ["--audience", audience] if audience else []
    return cluster.kubectl("-n", ns, "create", "token", sa, "--duration=1h", *flags).stdout.strip()


def _listening(log: Path, proc: subprocess.Popen[bytes]) -> str | None:
    if proc.poll() is not None:
        raise AssertionError(log.read_text(errors="replace")[-3000:])
    for line in log.read_text(errors="replace").splitlines():
        if "proctor collector: listening on " in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


@pytest.fixture
def in_cluster(crds: Cluster, namespace: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A collector serving ``namespace``'s AgentMonitor from the cluster (its tokens and RBAC)."""
    ingest = f"ingest-{uuid.uuid4().hex}"
    with JudgeServer() as judge:
        judge.add_rule(lambda r: DOWN in r.user_text, status(503))
        monitor, profile = manifests(
            judge.base_url,
            canary={"minRuns": 2},
            tokenSecretRef={"name": "ingest", "key": "token"},
            captureTo={"name": "oil-monitoring"},
        )
        profile["spec"]["judge"]["maxRetries"] = 0
        profile["spec"]["thresholds"] = {"safety": 10}
        for obj in (monitor, profile):
            obj["metadata"]["namespace"] = namespace
        meta = {"name": "proctor-analysis", "namespace": namespace}
        _apply(
            crds,
            [
                monitor,
                profile,
                {
                    "apiVersion": "v1",
                    "kind": "Secret",
                    "metadata": {"name": "ingest", "namespace": namespace},
                    "stringData": {"token": ingest},
                },
                # the README's analysis account: get on agentmonitors, nothing else
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {**meta, "name": "bystander"}},
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "Role",
                    "metadata": meta,
                    "rules": [
                        {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get"]}
                    ],
                },
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "RoleBinding",
                    "metadata": meta,
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "Role",
                        "name": "proctor-analysis",
                    },
                    "subjects": [
                        {"kind": "ServiceAccount", "name": "proctor-analysis", "namespace": namespace}
                    ],
                },
            ],
        )
        log = tmp_path / "collector.log"
        db = f"sqlite:///{tmp_path / 'proctor.db'}"
        args = ["--db", db, "--listen", "127.0.0.1:0", "--poll", "0.1", "-n", namespace, "--refresh", "1"]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.collector", *args],
                env={**crds.env(), "PROCTOR_LOG_FORMAT": "console"},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            url = wait_for(lambda: _listening(log, proc), timeout=TIMEOUT, what="the collector to listen")
            yield url, ingest
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_argo_reads_the_real_verdicts_as_successful_failed_inconclusive_and_error(
    in_cluster: tuple[str, str], crds: Cluster, namespace: str
) -> None:
    url, ingest = in_cluster

    def send(version: str, answers: list[str]) -> None:
        with tracer(url, version=version, token=ingest) as tr:
            for i, answer in enumerate(answers):
                agent_turn(tr, f"{version}-{i}", "What band is 0.30 qt/hr on engine 2?", answer)

    wait_for(
        lambda: httpx.get(f"{url}/readyz", timeout=10).status_code == 200,
        timeout=TIMEOUT,
        what="the collector",
    )
    token = _token(crds, namespace, "proctor-analysis")

    def ask(revision: str, bearer: str = token) -> httpx.Response:
        return httpx.get(
            f"{url}/api/v1/monitors/{namespace}/oil-agent/verdict",
            params={"revision": revision},
            headers={"Authorization": f"Bearer {bearer}"},
            timeout=30,
        )

    # the monitor's ingestion token is read from its Secret once the collector lists it
    wait_for(lambda: ask("0").status_code == 200, timeout=TIMEOUT, what="the monitor to be served")
    send("1.0", [GOOD, GOOD])
    send("2.0", [BAD, BAD])
    send("3.0", [GOOD])
    send("4.0", [f"{DOWN} {GOOD}"])

    def settled() -> bool:
        done = [ask(r).json() for r in ("1.0", "2.0", "3.0")]
        return [d["runs"] for d in done] == [2, 2, 1] and ask("4.0").status_code == 503

    wait_for(settled, timeout=TIMEOUT, what="every run judged")
    metric = recipe("argo-analysis-template")[0]["spec"]["metrics"][0]
    phases = {}
    for revision in ("1.0", "2.0", "3.0"):
        answer = ask(revision)
        assert answer.status_code == 200
        phases[answer.json()["verdict"]] = argo_phase(answer.json(), metric)
    assert phases == {"PASS": "Successful", "FAIL": "Failed", "INCONCLUSIVE": "Inconclusive"}
    # unmeasurable: a 5xx, which Argo's web provider counts as a measurement Error
    assert ask("4.0").status_code == 503

    # who may ask: the analysis account's token for the collector's audience, and nobody else
    assert ask("1.0", _token(crds, namespace, "bystander")).status_code == 403
    assert ask("1.0", _token(crds, namespace, "proctor-analysis", audience=None)).status_code == 401
    assert ask("1.0", ingest).status_code == 401

    # the breached runs go into the monitor's captureTo CaseSet: the real API server takes it, and
    # a second export adds nothing twice (the collector read as the analysis account; the
    # CaseSet written with the kubeconfig's rights)
    flags = [
        "--monitor",
        f"{namespace}/oil-agent",
        "--apply",
        "-o",
        "/dev/null",
        "--server",
        url,
        "--token",
        token,
    ]

    def export() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "proctor.cli", "cases", "export", *flags],
            capture_output=True,
            text=True,
            timeout=120,
            env=crds.env(),
        )

    first = export()
    assert first.returncode == 0, first.stderr
    assert "2 added, 0 already there" in first.stderr
    stored = crds.get_json("casesets.proctor.dev", "oil-monitoring", "-n", namespace)
    assert sorted(c["tier"] for c in stored["spec"]["cases"]) == ["trust", "trust"]
    assert all(c["category"].startswith("captured/") for c in stored["spec"]["cases"])
    again = export()
    assert again.returncode == 0 and "0 added, 2 already there" in again.stderr
