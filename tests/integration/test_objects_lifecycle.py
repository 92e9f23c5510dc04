"""Objects of any size apply, reconcile and delete cleanly, with or without the operator running.

Kopf keeps nothing in Proctor's objects (no ``last-handled-configuration`` annotation, no
finalizer): a CaseSet at the documented 2,000-case limit is reconciled and deleted like a small one,
and a namespace is deleted even while the operator is down. Objects an older operator finalized are
released.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_operator as kit
import yaml
from test_operator import EXAMPLE, _cond, _setup, _wait_done

from conftest import Cluster, wait_for

operator = kit.operator

GROUP = "proctor.dev"
KINDS = ("caseset", "evalprofile", "gatepolicy", "evalrun")


def _cases(n: int, *, ordinary: bool) -> list[dict[str, Any]]:
    """``n`` cases: ordinary ones (about 550 bytes each: a question, a context document, an
    assertion), or minimal ones (about 95 bytes)."""
    filler = " ".join(f"w{i}" for i in range(40))
    out = []
    for i in range(n):
        case: dict[str, Any] = {
            "id": f"case-{i:04d}",
            "tier": ("safety", "trust", "form")[i % 3],
            "input": f"q{i}",
            "assert": [{"type": "contains", "value": "ok"}],
        }
        if ordinary:
            case["input"] = f"Reading {i}: is the oil consumption normal? {filler}"
            case["context"] = [{"id": "amm-72-00", "text": f"NORMAL below 0.30 qt/hr. {filler}"}]
        out.append(case)
    return out


def _caseset(name: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": name},
        "spec": {"cases": cases},
    }


def _status(cluster: Cluster, ns: str, kind: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = cluster.get_json("-n", ns, kind, name).get("status") or {}
    return out


def _resolved(cluster: Cluster, ns: str, name: str, count: int) -> dict[str, Any]:
    def ready() -> dict[str, Any] | None:
        st = _status(cluster, ns, "caseset", name)
        return st if st.get("caseCount") == count and _cond(st, "Ready").get("status") == "True" else None

    found: dict[str, Any] = wait_for(
        ready, timeout=120, interval=0.5, what=f"CaseSet {name} with {count} cases"
    )
    return found


def _no_bookkeeping(cluster: Cluster, ns: str, kind: str, name: str) -> None:
    meta = cluster.get_json("-n", ns, kind, name)["metadata"]
    assert not meta.get("finalizers"), meta.get("finalizers")
    assert not [a for a in meta.get("annotations") or {} if a.startswith(f"{GROUP}/")], meta.get(
        "annotations"
    )


def _gone(cluster: Cluster, ns: str, kind: str, name: str) -> bool:
    return cluster.kubectl("-n", ns, "get", kind, name, check=False).returncode != 0


@pytest.mark.parametrize("apply", ["server-side", "client-side"])
def test_a_two_thousand_case_set_applies_reconciles_updates_and_deletes(
    crds: Cluster, namespace: str, operator: Any, tmp_path: Any, apply: str
) -> None:
    # client-side apply keeps the whole object in kubectl's own last-applied annotation (256 KiB at
    # most, for any kind), so its cases are minimal; server-side apply takes ordinary ones (~1 MB)
    cases = _cases(2000, ordinary=apply == "server-side")
    flags = ["--server-side"] if apply == "server-side" else []
    proc = operator()
    body = _caseset("big", cases)
    size = len(json.dumps(body))
    assert size > (1_000_000 if apply == "server-side" else 150_000), size
    crds.kubectl("-n", namespace, "apply", *flags, "-f", "-", input=json.dumps(body))
    first = _resolved(crds, namespace, "big", 2000)
    assert first["tiers"] == {"safety": 667, "trust": 667, "form": 666}
    _no_bookkeeping(crds, namespace, "caseset", "big")
    # updated: one case changes, the digest follows
    cases[7]["input"] = "Reading 7, again"
    crds.kubectl("-n", namespace, "apply", *flags, "-f", "-", input=json.dumps(_caseset("big", cases)))
    wait_for(
        lambda: _status(crds, namespace, "caseset", "big").get("digest") not in (None, first["digest"]),
        timeout=120,
        what="the digest to follow the change",
    )
    # a run on it pins its cases (gzipped, in ConfigMaps the run owns) and is measured
    answers = {c["id"]: "ok" for c in cases}
    crds.kubectl(
        "-n",
        namespace,
        "create",
        "configmap",
        "answers",
        f"--from-literal=answers.json={json.dumps(answers)}",
    )
    run = {
        "apiVersion": f"{GROUP}/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "big"},
        "spec": {
            "caseSetRef": {"name": "big"},
            "target": {"responses": {"configMapRef": {"name": "answers", "key": "answers.json"}}},
        },
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    status = _wait_done(crds, namespace, "big", timeout=300)
    assert (status["verdict"], status["snapshot"]["cases"]) == ("PASS", 2000)
    # deleted at once: nothing holds it
    crds.kubectl("-n", namespace, "delete", "caseset", "big", "--wait=true", "--timeout=60s")
    assert _gone(crds, namespace, "caseset", "big")
    # and the operator never logged a failed patch or a huge traceback
    assert proc.poll() is None
    log = (tmp_path / "operator-0.log").read_text()
    assert "Too long" not in log and "Traceback" not in log
    assert max(len(line) for line in log.splitlines()) < 20_000


def test_a_namespace_is_deleted_while_the_operator_is_down(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    proc = operator()
    _setup(crds, namespace, None)  # the CaseSet
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "gatepolicy.yaml"))
    profile = {
        "apiVersion": f"{GROUP}/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p"},
        "spec": {},
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(profile))
    answers = yaml.safe_load((EXAMPLE / "answers" / "v1-correct.yaml").read_text())
    run = {
        "apiVersion": f"{GROUP}/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "r"},
        "spec": {"caseSetRef": {"name": "oil-monitoring"}, "target": {"responses": {"inline": answers}}},
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    assert _wait_done(crds, namespace, "r")["verdict"] == "PASS"
    wait_for(
        lambda: _cond(_status(crds, namespace, "gatepolicy", "oil-monitoring"), "Ready"), what="the policy"
    )
    wait_for(lambda: _cond(_status(crds, namespace, "evalprofile", "p"), "Ready"), what="the profile")
    for kind, name in zip(KINDS, ("oil-monitoring", "p", "oil-monitoring", "r"), strict=True):
        _no_bookkeeping(crds, namespace, kind, name)
    proc.terminate()
    proc.wait(30)
    assert crds.delete_namespace(namespace, timeout=120), f"namespace {namespace} still terminating"


def test_objects_an_older_operator_finalized_are_released(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    old = {"finalizers": ["proctor.dev/finalizer"], "annotations": {}}
    cs = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    cs["metadata"] |= old | {
        "annotations": {
            "proctor.dev/last-handled-configuration": json.dumps({"spec": cs["spec"]}),
            "proctor.dev/kopf-managed": "yes",
        }
    }
    policy = yaml.safe_load((EXAMPLE / "gatepolicy.yaml").read_text())
    policy["metadata"] |= old | {"annotations": {"proctor.dev/last-handled-configuration": "{}"}}
    profile = {
        "apiVersion": f"{GROUP}/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p", **old, "annotations": {"proctor.dev/last-handled-configuration": "{}"}},
        "spec": {},
    }
    for obj in (cs, policy, profile):
        crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(obj))
    operator()
    for kind, name in (("caseset", "oil-monitoring"), ("gatepolicy", "oil-monitoring"), ("evalprofile", "p")):

        def released(kind: str = kind, name: str = name) -> bool:
            meta = crds.get_json("-n", namespace, kind, name)["metadata"]
            ours = [a for a in meta.get("annotations") or {} if a.startswith(f"{GROUP}/")]
            return not meta.get("finalizers") and not ours

        wait_for(released, timeout=60, what=f"{kind} {name} to be released")
        crds.kubectl("-n", namespace, "delete", kind, name, "--wait=true", "--timeout=30s")
        assert _gone(crds, namespace, kind, name)
