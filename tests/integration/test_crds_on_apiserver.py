"""The generated CRDs on a real API server: examples apply, bad input is rejected readably."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from conftest import REPO, Cluster

EXAMPLES = REPO / "examples" / "oil-monitoring"


def _apply(cluster: Cluster, ns: str, obj: dict[str, object], check: bool = False):  # type: ignore[no-untyped-def]
    return cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj), check=check)


def _caseset(cases: list[dict[str, object]]) -> dict[str, object]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "c"},
        "spec": {"cases": cases},
    }


def test_examples_apply_and_read_back(crds: Cluster, namespace: str) -> None:
    for f in sorted(EXAMPLES.glob("*.yaml")):
        crds.kubectl("-n", namespace, "apply", "-f", str(f))
    got = crds.get_json("-n", namespace, "casesets", "oil-monitoring")
    want = yaml.safe_load((EXAMPLES / "caseset.yaml").read_text())
    assert [c["id"] for c in got["spec"]["cases"]] == [c["id"] for c in want["spec"]["cases"]]
    assert got["spec"]["cases"][0]["assert"][0] == {
        "type": "label",
        "value": "ELEVATED",
        "labels": ["NORMAL", "ELEVATED", "HIGH"],
    }
    # short names and the category work for an SRE
    out = crds.kubectl("-n", namespace, "get", "proctor").stdout
    assert "caseset.proctor.dev/oil-monitoring" in out and "gatepolicy.proctor.dev/oil-monitoring" in out
    assert "oil-monitoring" in crds.kubectl("-n", namespace, "get", "cset").stdout


def test_printer_columns_answer_the_first_question(crds: Cluster, namespace: str) -> None:
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "r1"},
        "spec": {"caseSetRef": {"name": "oil-monitoring"}, "target": {"responses": {"inline": {"a": "b"}}}},
    }
    _apply(crds, namespace, run, check=True)
    header = crds.kubectl("-n", namespace, "get", "evalruns").stdout.splitlines()[0].split()
    assert header == ["NAME", "PHASE", "VERDICT", "SAFETY", "TRUST", "FORM", "AGE"]
    wide = crds.kubectl("-n", namespace, "get", "evalruns", "-o", "wide").stdout.splitlines()[0]
    assert "MESSAGE" in wide
    explain = crds.kubectl("explain", "evalrun.spec.target").stdout
    assert "DESCRIPTION" in explain and "responses" in explain


def test_invalid_resources_are_rejected_with_a_readable_message(crds: Cluster, namespace: str) -> None:
    bad_tier = _apply(crds, namespace, _caseset([{"id": "a", "tier": "critical", "input": "x"}]))
    assert bad_tier.returncode != 0 and "tier" in bad_tier.stderr and "critical" in bad_tier.stderr

    dup = _apply(
        crds,
        namespace,
        _caseset([{"id": "a", "tier": "form", "input": "x"}, {"id": "a", "tier": "form", "input": "y"}]),
    )
    assert dup.returncode != 0 and "Duplicate value" in dup.stderr

    unknown = _apply(
        crds,
        namespace,
        _caseset(
            [
                {
                    "id": "a",
                    "tier": "form",
                    "input": "x",
                    "assert": [{"type": "contains-nonsense", "value": "v"}],
                }
            ]
        ),
    )
    assert unknown.returncode != 0 and "contains-nonsense" in unknown.stderr

    no_labels = _apply(
        crds,
        namespace,
        _caseset(
            [{"id": "a", "tier": "safety", "input": "x", "assert": [{"type": "label", "value": "HIGH"}]}]
        ),
    )
    assert no_labels.returncode != 0 and "labels" in no_labels.stderr

    threshold = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "GatePolicy",
        "metadata": {"name": "g"},
        "spec": {"caseSetRef": {"name": "c"}, "candidate": {"port": 8080}, "tiers": {"safety": 120}},
    }
    res = _apply(crds, namespace, threshold)
    assert res.returncode != 0 and "spec.tiers.safety" in res.stderr

    two_targets = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "r"},
        "spec": {
            "caseSetRef": {"name": "c"},
            "target": {"endpoint": {"url": "http://127.0.0.1:1/v1"}, "responses": {"inline": {"a": "b"}}},
        },
    }
    res = _apply(crds, namespace, two_targets)
    assert res.returncode != 0 and "target" in res.stderr


def test_a_safety_case_that_measures_nothing_is_rejected(crds: Cluster, namespace: str) -> None:
    nothing = _apply(
        crds, namespace, _caseset([{"id": "s", "tier": "safety", "input": "x", "dimensions": []}])
    )
    assert nothing.returncode != 0 and "a safety case must measure something" in nothing.stderr
    # with an assertion, or judged on the profile's dimensions, it is applied
    ok = _caseset(
        [
            {"id": "s", "tier": "safety", "input": "x", "dimensions": [], "assert": [{"type": "refusal"}]},
            {"id": "p", "tier": "safety", "input": "x"},
            {"id": "t", "tier": "trust", "input": "x", "dimensions": []},
        ]
    )
    res = _apply(crds, namespace, ok)
    assert res.returncode == 0, res.stderr


def test_only_entities_needs_its_pattern(crds: Cluster, namespace: str) -> None:
    def one(assertion: dict[str, object]) -> dict[str, object]:
        return _caseset([{"id": "e", "tier": "safety", "input": "x", "assert": [assertion]}])

    missing = _apply(crds, namespace, one({"type": "only-entities", "allowed": ["N123AB"]}))
    assert missing.returncode != 0 and "pattern is required" in missing.stderr
    elsewhere = _apply(crds, namespace, one({"type": "contains", "value": "x", "allowed": ["N1"]}))
    assert elsewhere.returncode != 0 and "allowed applies to 'only-entities'" in elsewhere.stderr
    ok = _apply(
        crds, namespace, one({"type": "only-entities", "pattern": "N[0-9]{1,5}[A-Z]{0,2}", "allowed": ["N1"]})
    )
    assert ok.returncode == 0, ok.stderr


def test_evalrun_spec_is_immutable(crds: Cluster, namespace: str, tmp_path: Path) -> None:
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "imm"},
        "spec": {"caseSetRef": {"name": "c"}, "target": {"responses": {"inline": {"a": "b"}}}},
    }
    _apply(crds, namespace, run, check=True)
    run["spec"]["caseSetRef"] = {"name": "other"}  # type: ignore[index]
    res = _apply(crds, namespace, run)
    assert res.returncode != 0 and "create a new EvalRun" in res.stderr


def test_the_api_server_enforces_thresholds_and_dialects_of_assertions(crds: Cluster, namespace: str) -> None:
    def one(assertion: dict[str, object]):  # type: ignore[no-untyped-def]
        return _apply(
            crds, namespace, _caseset([{"id": "a", "tier": "form", "input": "x", "assert": [assertion]}])
        )

    res = one({"type": "latency"})
    assert res.returncode != 0 and "threshold is required" in res.stderr
    res = one({"type": "contains", "value": "x", "threshold": 3})
    assert res.returncode != 0 and "threshold applies to" in res.stderr
    res = one({"type": "similar", "value": "x", "threshold": 2})
    assert res.returncode != 0 and "at most 1" in res.stderr
    res = one({"type": "max-length", "value": 3, "dialect": "promptfoo"})
    assert res.returncode != 0 and "dialect applies to" in res.stderr
    ok = one({"type": "regex", "value": r"^\d+$", "dialect": "promptfoo"})
    assert ok.returncode == 0, ok.stderr
    ok = one(
        {"type": "is-valid-openai-tools-call", "value": [{"type": "function", "function": {"name": "f"}}]}
    )
    assert ok.returncode == 0, ok.stderr


def test_the_runs_of_a_case_set_are_selected_by_the_api_server(crds: Cluster, namespace: str) -> None:
    """History retention and baselines read one case set's runs: the API server selects them by
    the CRD's selectable field, so the other runs of the namespace are never read."""
    from proctor.k8s.kube import Kube

    for name, caseset in [("a1", "alpha"), ("a2", "alpha"), ("b1", "beta"), ("b2", "beta-long")]:
        run = {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalRun",
            "metadata": {"name": name},
            "spec": {"caseSetRef": {"name": caseset}, "target": {"responses": {"inline": {"a": "b"}}}},
        }
        _apply(crds, namespace, run, check=True)
    kube = Kube(crds.api())
    assert sorted(r["metadata"]["name"] for r in kube.list_runs_of(namespace, "alpha")) == ["a1", "a2"]
    assert [r["metadata"]["name"] for r in kube.list_runs_of(namespace, "beta")] == ["b1"]
    assert kube.list_runs_of(namespace, "gamma") == []
    # the selector itself: an API server that had ignored it would have returned all four
    fields = "spec.caseSetRef.name=alpha"
    assert len(kube.list_custom("EvalRun", namespace, fields=fields)) == 2
