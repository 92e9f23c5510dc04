"""`proctor gate` as a pipeline runs it: against the real operator on a real API server, the exit
code is the verdict; without an operator or without the CRDs it says so and exits 2; the recipes'
manifests are what the API server accepts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from lupa import lua51
from tests.conftest import assert_running

from conftest import REPO, Cluster, wait_for
from proctor.testing.judgeserver import JudgeServer

PROCTOR = [sys.executable, "-m", "proctor.cli"]
EXAMPLE = REPO / "examples" / "oil-monitoring"
RECIPES = REPO / "docs" / "recipes"
FAST = {"PROCTOR_METRICS_PORT": "0", "PROCTOR_RECONCILE_INTERVAL": "1"}
API_KEY = "sk-test-gate-key-0123456789"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gate_cmd(*args: str | Path) -> list[str]:
    return [*PROCTOR, "gate", *map(str, args)]


def gate(
    cluster: Cluster, *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        gate_cmd(*args),
        capture_output=True,
        text=True,
        env={**cluster.env(), **(env or {})},
        timeout=300,
        check=False,
    )


def started(cluster: Cluster, *args: str | Path, kubeconfig: Path | None = None) -> subprocess.Popen[str]:
    env = cluster.env() | ({"KUBECONFIG": str(kubeconfig)} if kubeconfig else {})
    return subprocess.Popen(
        gate_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def finished(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def health(obj: dict[str, Any]) -> str:
    """The Argo CD health of ``obj`` by the recipe's Lua script (see tests/unit/cli/test_argocd_health.py)."""
    lua = lua51.LuaRuntime()
    lua.globals().obj = lua.table_from(obj, recursive=True)
    return str(lua.execute((RECIPES / "argocd-health.lua").read_text())["status"])


@pytest.fixture
def operator(
    crds: Cluster, namespace: str, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> Callable[[], subprocess.Popen[bytes]]:
    """Start the operator watching the test's namespace; waits until it answers its probe."""

    def start() -> subprocess.Popen[bytes]:
        port = _free_port()
        proc = run_operator("-n", namespace, "--liveness", f"http://127.0.0.1:{port}/healthz", env=FAST)

        def healthy() -> bool:
            assert_running(proc)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=60, what="the operator to start")
        return proc

    return start


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(api_key=API_KEY) as server:
        yield server


POLICY = {
    "apiVersion": "proctor.dev/v1alpha1",
    "kind": "GatePolicy",
    "metadata": {"name": "oil-monitoring"},
    "spec": {
        "caseSetRef": {"name": "oil-monitoring"},
        "profileRef": {"name": "maintenance-rag"},
        "candidate": {
            "protocol": "http-json",
            "port": 8080,
            "path": "/ask",
            "requestTemplate": '{"question": {{input}}}',
            "responsePath": "answer",
        },
        "tiers": {"safety": 100, "trust": 95, "form": 90},
    },
}


def exam(cluster: Cluster, ns: str, judge_url: str) -> None:
    """The oil-monitoring case set, a policy for it, and the policy's profile (maintenance-rag) judged
    at ``judge_url``."""
    cluster.kubectl("-n", ns, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    cluster.kubectl("-n", ns, "create", "secret", "generic", "judge-key", f"--from-literal=api-key={API_KEY}")
    profile = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "maintenance-rag"},
        "spec": {
            "mode": "Replace",
            "dimensions": [{"name": "factual_grounding", "rubric": "Claims supported by context?"}],
            "judge": {
                "endpoint": judge_url,
                "model": "judge-small",
                "maxRetries": 1,
                "timeoutSeconds": 5,
                "apiKeySecretRef": {"name": "judge-key", "key": "api-key"},
            },
        },
    }
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(profile) + "\n---\n" + json.dumps(POLICY))


def service_account_kubeconfig(cluster: Cluster, ns: str, path: Path) -> Path:
    """A kubeconfig for the proctor-gate service account of docs/recipes/gate-rbac.yaml, with ``ns``
    as the context's namespace (so the gate finds its namespace there)."""
    cluster.kubectl("-n", ns, "apply", "-f", str(RECIPES / "gate-rbac.yaml"))
    token = cluster.kubectl("-n", ns, "create", "token", "proctor-gate").stdout.strip()
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    current = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])["context"]
    server = next(c for c in admin["clusters"] if c["name"] == current["cluster"])
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [server],
        "users": [{"name": "gate", "user": {"token": token}}],
        "contexts": [
            {"name": "gate", "context": {"cluster": server["name"], "user": "gate", "namespace": ns}}
        ],
        "current-context": "gate",
    }
    path.write_text(json.dumps(config))
    return path


def answers(version: str) -> dict[str, str]:
    name = {"v1": "v1-correct", "v2": "v2-band-bug"}[version]
    loaded: dict[str, str] = yaml.safe_load((EXAMPLE / "answers" / f"{name}.yaml").read_text())
    return loaded


def evalruns(cluster: Cluster, ns: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get_json("-n", ns, "evalruns")["items"]
    return items


# --- against the operator -------------------------------------------------------------------------------


def test_recorded_answers_pass_and_fail_with_the_verdict_code_under_the_least_privilege_role(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer, tmp_path: Path
) -> None:
    operator()
    exam(crds, namespace, judge.base_url)
    kubeconfig = service_account_kubeconfig(crds, namespace, tmp_path / "gate.kubeconfig")
    common = ("--caseset", "oil-monitoring", "--policy", "oil-monitoring")
    # no -n: the namespace comes from the context; the identity is the recipe's service account
    v1 = started(
        crds,
        *common,
        "--responses",
        EXAMPLE / "answers" / "v1-correct.yaml",
        "--format",
        "json",
        kubeconfig=kubeconfig,
    )
    v2 = started(
        crds, *common, "--responses", EXAMPLE / "answers" / "v2-band-bug.yaml", kubeconfig=kubeconfig
    )
    partial = tmp_path / "partial.yaml"
    partial.write_text(yaml.safe_dump({k: v for k, v in answers("v1").items() if k != "short-answer"}))
    v3 = started(crds, *common, "--responses", partial, "--format", "json", kubeconfig=kubeconfig)
    rc1, out1, err1 = finished(v1)
    rc2, out2, err2 = finished(v2)
    rc3, out3, err3 = finished(v3)

    # a form case without an answer is unmeasured: thresholds met, not clean; the JSON names it, as
    # proctor grade's does
    assert rc3 == 3, err3 + out3
    doc3 = json.loads(out3)
    assert (doc3["verdict"], doc3["reason"]) == ("WARN", "CasesUnmeasured")
    assert [(u["case"], u["tier"]) for u in doc3["unmeasured"]] == [("short-answer", "form")]
    assert doc3["unmeasured"][0]["reason"] and doc3["tiers"]["form"]["unmeasured"] == 1

    assert rc1 == 0, err1 + out1
    doc = json.loads(out1)
    assert (doc["verdict"], doc["exitCode"], doc["reason"]) == ("PASS", 0, "AllTiersClean")
    assert doc["run"]["namespace"] == namespace and doc["run"]["name"].startswith("gate-oil-monitoring-")
    assert doc["tiers"]["safety"] == {
        "passed": 4,
        "failed": 0,
        "measured": 4,
        "unmeasured": 0,
        "total": 4,
        "rate": 100,
        "threshold": 100,
    }
    assert doc["failures"] == [] and doc["unmeasured"] == [] and doc["cases"] == 8
    assert "created EvalRun" in err1 and "Evaluated: PASS" in err1

    assert rc2 == 1, err2 + out2
    assert "FAIL (exit 1) TierBelowThreshold" in out2
    failures = out2.split("failures (")[1]
    # the case, its tier and the assertion type; never the expected answer (README "Security": the
    # cases are the operator's; the full reason is in its namespace)
    assert "oil-consumption-boundary [safety] label: withheld: it may quote the expected answer" in failures
    assert "ELEVATED" not in out2
    assert "below threshold" in out2 and "incident: high (breach:safety)" in out2
    # progress: one line per change, on stderr only
    progress = [line for line in err2.splitlines() if "] " in line]
    assert progress and progress[-1].endswith("Evaluated: FAIL")
    assert len(progress) == len(set(line.split("] ", 1)[1] for line in progress))
    assert "Evaluated" not in out2.split("\n")[0]

    runs = {r["metadata"]["name"]: r for r in evalruns(crds, namespace)}
    assert len(runs) == 3
    for r in runs.values():
        spec = r["spec"]
        assert spec["policyRef"] == {"name": "oil-monitoring"}
        assert spec["profileRef"] == {"name": "maintenance-rag"}  # the policy's
        assert r["metadata"]["labels"]["app.kubernetes.io/created-by"] == "proctor-gate"
        ref = spec["target"]["responses"]["configMapRef"]
        cm = crds.get_json("-n", namespace, "configmap", ref["name"])
        # created before the run (the runner reads it), then owned by it (collected with it)
        assert [o["uid"] for o in cm["metadata"]["ownerReferences"]] == [r["metadata"]["uid"]]
        assert json.loads(cm["data"][ref["key"]])["oil-consumption-boundary"]
    # the Argo CD health check of the recipes reads the real objects as documented
    verdicts = sorted((r["status"]["verdict"], health(r)) for r in runs.values())
    assert verdicts == [("FAIL", "Degraded"), ("PASS", "Healthy"), ("WARN", "Healthy")]
    assert health(crds.get_json("-n", namespace, "caseset", "oil-monitoring")) == "Healthy"


class Agent:
    """A tiny http-json agent: POST {"question": ...} to /v1/ask or /v2/ask, get {"answer": ...}."""

    def __init__(self, cases: list[dict[str, Any]], *, hang: float = 0) -> None:
        by_question = {v: {c["input"]: answers(v)[c["id"]] for c in cases} for v in ("v1", "v2")}
        self.asked: list[str] = []
        self.released = threading.Event()
        agent = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                version = self.path.strip("/").split("/")[0]
                agent.asked.append(self.path)
                agent.released.wait(hang)
                answer = by_question.get(version, {}).get(body.get("question"))
                data = json.dumps({"answer": answer} if answer else {"error": "unknown question"}).encode()
                self.send_response(200 if answer else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Agent:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_live_endpoint_is_examined_over_http_json(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    operator()
    exam(crds, namespace, judge.base_url)
    cases = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())["spec"]["cases"]
    with Agent(cases) as agent:
        # the policy says how to talk to the agent: http-json, {"question": {{input}}}, answer
        v1 = started(
            crds,
            "-n",
            namespace,
            "--caseset",
            "oil-monitoring",
            "--policy",
            "oil-monitoring",
            "--endpoint",
            f"{agent.url}/v1/ask",
            "--name",
            "live-v1",
        )
        # no policy: the flags say it, default thresholds decide
        v2 = started(
            crds,
            "-n",
            namespace,
            "--caseset",
            "oil-monitoring",
            "--endpoint",
            f"{agent.url}/v2/ask",
            "--protocol",
            "http-json",
            "--request-template",
            '{"question": {{input}}}',
            "--response-path",
            "answer",
            "--name",
            "live-v2",
        )
        rc1, out1, err1 = finished(v1)
        rc2, out2, err2 = finished(v2)
    assert rc1 == 0, err1 + out1
    assert "PASS (exit 0)" in out1 and f"endpoint {agent.url}/v1/ask" in out1
    assert rc2 == 1, err2 + out2
    assert "oil-consumption-boundary [safety] label" in out2
    assert sorted(set(agent.asked)) == ["/v1/ask", "/v2/ask"] and len(agent.asked) >= 16
    endpoint = crds.get_json("-n", namespace, "evalrun", "live-v1")["spec"]["target"]["endpoint"]
    assert endpoint == {
        "url": f"{agent.url}/v1/ask",
        "protocol": "http-json",
        "requestTemplate": '{"question": {{input}}}',
        "responsePath": "answer",
        "timeoutSeconds": 120,
    }
    assert "profileRef" not in crds.get_json("-n", namespace, "evalrun", "live-v2")["spec"]


def test_a_run_still_going_at_the_timeout_exits_2_names_it_and_leaves_it(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    operator()
    exam(crds, namespace, judge.base_url)
    cases = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())["spec"]["cases"]
    with Agent(cases, hang=60) as agent:
        res = gate(
            crds,
            "-n",
            namespace,
            "--caseset",
            "oil-monitoring",
            "--policy",
            "oil-monitoring",
            "--endpoint",
            f"{agent.url}/v1/ask",
            "--name",
            "slow",
            "--timeout",
            "12",
            "--format",
            "json",
        )
    assert res.returncode == 2, res.stderr + res.stdout
    doc = json.loads(res.stdout)
    assert (doc["verdict"], doc["exitCode"], doc["reason"], doc["phase"]) == (
        "ERROR",
        2,
        "Timeout",
        "Running",
    )
    assert doc["message"].startswith("nothing conclusive was measured within the timeout (12s)")
    assert f"EvalRun {namespace}/slow is still Running (0/1 shard done)" in doc["message"]
    assert "left in place" in doc["message"] and doc["run"] == {"namespace": namespace, "name": "slow"}
    assert "Running (0/1 shard done)" in res.stderr
    # left in place (it goes on: here it finishes once the agent is released)
    assert crds.get_json("-n", namespace, "evalrun", "slow")["metadata"]["name"] == "slow"


# --- without an operator ----------------------------------------------------------------------------------


def test_a_candidate_image_run_takes_port_path_and_protocol_from_the_policy(
    crds: Cluster, namespace: str
) -> None:
    exam(crds, namespace, "http://127.0.0.1:9/v1")
    res = gate(
        crds,
        "-n",
        namespace,
        "--caseset",
        "oil-monitoring",
        "--policy",
        "oil-monitoring",
        "--image",
        "registry.example.com/oil-assistant:2.0.0",
        "--no-wait",
        "--format",
        "json",
        "--name",
        "img",
        "--shards",
        "2",
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"run": {"namespace": namespace, "name": "img"}, "created": True}
    spec = crds.get_json("-n", namespace, "evalrun", "img")["spec"]
    assert spec["shards"] == 2 and spec["timeoutSeconds"] == 1800
    container = spec["target"]["podTemplate"]["spec"]["containers"][0]
    assert container["image"] == "registry.example.com/oil-assistant:2.0.0"
    assert container["ports"] == [{"containerPort": 8080}]
    cand = spec["target"]["candidate"]
    assert (cand["port"], cand["path"], cand["protocol"], cand["responsePath"]) == (
        8080,
        "/ask",
        "http-json",
        "answer",
    )
    assert cand["container"] == "agent"
    # the same name again: a run's spec is immutable, so the gate refuses and says why
    again = gate(
        crds,
        "-n",
        namespace,
        "--caseset",
        "oil-monitoring",
        "--policy",
        "oil-monitoring",
        "--image",
        "x/y:1",
        "--no-wait",
        "--name",
        "img",
    )
    assert again.returncode == 2 and "already exists" in again.stderr and again.stdout == ""
    # without a policy the port must be given
    no_port = gate(crds, "-n", namespace, "--caseset", "oil-monitoring", "--image", "x/y:1")
    assert no_port.returncode == 2 and "--port N" in no_port.stderr


def test_bad_references_and_flags_exit_2_before_anything_is_created(crds: Cluster, namespace: str) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    v1 = EXAMPLE / "answers" / "v1-correct.yaml"
    cases = [
        (("--caseset", "nope", "--responses", v1), "CaseSet nope not found in namespace"),
        (("--caseset", "oil-monitoring", "--policy", "nope", "--responses", v1), "GatePolicy nope not found"),
        (
            ("--caseset", "oil-monitoring", "--profile", "nope", "--responses", v1),
            "EvalProfile nope not found",
        ),
        (("--caseset", "oil-monitoring", "--responses", REPO / "nope.yaml"), "nope.yaml: No such file"),
        (("--caseset", "oil-monitoring", "--responses", v1, "--protocol", "http-json"), "not --responses"),
        (
            ("--caseset", "oil-monitoring", "--endpoint", "http://a/ask", "--protocol", "http-json"),
            "http-json needs responsePath",
        ),
        (("--caseset", "oil-monitoring", "--endpoint", "not a url"), "the EvalRun would be invalid"),
    ]
    procs = [(args, message, started(crds, "-n", namespace, *args)) for args, message in cases]
    for args, message, proc in procs:
        rc, out, err = finished(proc)
        assert rc == 2, (args, err)
        assert message in err, (args, err)
        assert out == ""
    assert evalruns(crds, namespace) == []
    assert (
        crds.get_json("-n", namespace, "configmaps", "-l", "app.kubernetes.io/created-by=proctor-gate")[
            "items"
        ]
        == []
    )


def test_no_operator_means_the_run_is_not_picked_up_exit_2_and_left_in_place(
    crds: Cluster, namespace: str
) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    res = gate(
        crds,
        "-n",
        namespace,
        "--caseset",
        "oil-monitoring",
        "--responses",
        EXAMPLE / "answers" / "v1-correct.yaml",
        "--timeout",
        "5",
        "--name",
        "lonely",
    )
    assert res.returncode == 2, res.stderr + res.stdout
    assert res.stdout.startswith("ERROR (exit 2) NotPickedUp:")
    assert f"EvalRun {namespace}/lonely was not picked up within 5s: is the operator running" in res.stdout
    assert "left in place" in res.stdout
    assert [r["metadata"]["name"] for r in evalruns(crds, namespace)] == ["lonely"]


def test_without_the_crds_the_gate_says_how_to_install_them(tmp_path: Path, cluster: Cluster) -> None:
    """In a control plane of its own (the shared one has the CRDs)."""
    state = tmp_path / "bare"
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    up = subprocess.run(
        [*PROCTOR, "dev", "up", "--dir", str(state), "--no-node"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert up.returncode == 0, up.stderr
    try:
        res = subprocess.run(
            gate_cmd("--caseset", "oil-monitoring", "--responses", EXAMPLE / "answers" / "v1-correct.yaml"),
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "KUBECONFIG": str(state / "kubeconfig")},
            check=False,
        )
    finally:
        subprocess.run(
            [*PROCTOR, "dev", "down", "--dir", str(state)], capture_output=True, timeout=120, check=False
        )
    assert res.returncode == 2
    assert (
        "the Proctor CRDs are not installed in this cluster (kubectl apply --server-side -f crds/)"
        in res.stderr
    )
    assert res.stdout == ""
    # and an API server nobody answers on
    down = subprocess.run(
        gate_cmd("--caseset", "x", "--responses", EXAMPLE / "answers" / "v1-correct.yaml"),
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "KUBECONFIG": str(state / "kubeconfig")},
        check=False,
    )
    assert (
        down.returncode == 2 and "cannot reach the Kubernetes API server at https://127.0.0.1:" in down.stderr
    )


# --- the recipes -----------------------------------------------------------------------------------------


def _docs(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((RECIPES / name).read_text()) if d]


def test_the_hook_job_and_the_rbac_pass_server_side_dry_run(crds: Cluster, namespace: str) -> None:
    for name in ("gate-rbac.yaml", "gate-hook-job.yaml"):
        out = crds.kubectl("-n", namespace, "apply", "--dry-run=server", "-f", str(RECIPES / name)).stdout
        assert "(server dry run)" in out
    job = _docs("gate-hook-job.yaml")[0]
    assert job["metadata"]["annotations"]["argocd.argoproj.io/hook"] == "PreSync"
    assert job["spec"]["backoffLimit"] == 0
    script = job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert "proctor gate " in script and '--image "$CANDIDATE_IMAGE"' in script


def test_the_analysis_template_has_argo_rollouts_structure_and_a_valid_job(
    crds: Cluster, namespace: str
) -> None:
    """Argo Rollouts' CRDs are not installed here: the AnalysisTemplate's structure is checked by
    hand (against argoproj.io/v1alpha1's fields), its Job spec by the API server."""
    (at,) = _docs("argo-rollouts-analysistemplate.yaml")
    assert (at["apiVersion"], at["kind"]) == ("argoproj.io/v1alpha1", "AnalysisTemplate")
    assert set(at["spec"]) <= {"args", "metrics", "dryRun", "measurementRetention"}
    args = {a["name"] for a in at["spec"]["args"]}
    assert all(set(a) <= {"name", "value", "valueFrom"} for a in at["spec"]["args"])
    (metric,) = at["spec"]["metrics"]
    assert set(metric) <= {
        "name",
        "count",
        "failureLimit",
        "interval",
        "initialDelay",
        "provider",
        "successCondition",
        "failureCondition",
        "inconclusiveLimit",
        "consecutiveErrorLimit",
    }
    assert set(metric["provider"]) == {"job"} and set(metric["provider"]["job"]) <= {"metadata", "spec"}
    spec = metric["provider"]["job"]["spec"]
    assert spec["backoffLimit"] == 0
    script = spec["template"]["spec"]["containers"][0]["args"][0]
    used = {part.split("}}")[0] for part in script.split("{{args.")[1:]}
    assert used <= args, f"the script uses undeclared args {used - args}"
    # the Job spec, with the arguments substituted as Argo Rollouts would, is a valid Job
    filled = yaml.safe_dump(spec).replace("{{args.canary-url}}", "http://c.team.svc:8080/ask")
    filled = filled.replace("{{args.caseset}}", "oil-monitoring").replace("{{args.policy}}", "oil-monitoring")
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "analysis"},
        "spec": yaml.safe_load(filled),
    }
    out = crds.kubectl("-n", namespace, "apply", "--dry-run=server", "-f", "-", input=json.dumps(job)).stdout
    assert "(server dry run)" in out


def test_the_flux_kustomizations_gate_the_app() -> None:
    gate_ks, app = _docs("flux-gate-kustomizations.yaml")
    for ks in (gate_ks, app):
        assert (ks["apiVersion"], ks["kind"]) == ("kustomize.toolkit.fluxcd.io/v1", "Kustomization")
        assert {"interval", "sourceRef", "path"} <= set(ks["spec"])
    assert gate_ks["spec"]["wait"] is True and gate_ks["spec"]["force"] is True
    assert app["spec"]["dependsOn"] == [{"name": gate_ks["metadata"]["name"]}]


@pytest.mark.parametrize(("verdict_code", "job_succeeds"), [(0, True), (1, False), (2, False), (3, True)])
@pytest.mark.parametrize("recipe", ["gate-hook-job.yaml", "argo-rollouts-analysistemplate.yaml"])
def test_the_wrapper_lets_pass_and_warn_through(
    recipe: str, verdict_code: int, job_succeeds: bool, tmp_path: Path
) -> None:
    doc = _docs(recipe)[0]
    spec = (
        doc["spec"]["metrics"][0]["provider"]["job"]["spec"]
        if doc["kind"] == "AnalysisTemplate"
        else doc["spec"]
    )
    container = spec["template"]["spec"]["containers"][0]
    assert container["command"] == ["/bin/sh", "-c"]
    stub = tmp_path / "proctor"
    stub.write_text(f"#!/bin/sh\nexit {verdict_code}\n")
    stub.chmod(0o755)
    res = subprocess.run(
        ["/bin/sh", "-c", container["args"][0]],
        env={"PATH": f"{tmp_path}:/usr/bin:/bin"},
        capture_output=True,
        check=False,
    )
    assert (res.returncode == 0) is job_succeeds
