"""The candidate's pod in the exam: run whole with production's downward-API values, or refused."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.k8s.candidate import exam_problems, production_hostname
from proctor.k8s.objects import JUDGE_TOKEN_VOLUME, JudgeJobSpec, RunRef, judge_job

RUN = RunRef("agents", "oil-agent-1a2b3c", "0b6c1f9e-0000-0000-0000-000000000000")

PRODUCTION: dict[str, Any] = {
    "metadata": {
        "labels": {"app": "oil-agent", "track": "stable"},
        "annotations": {"team": "maintenance", "prometheus.io/scrape": "true"},
    },
    "spec": {
        "serviceAccountName": "oil-agent",
        "initContainers": [
            {
                "name": "fetch-model",
                "image": "fetch:1",
                "volumeMounts": [{"name": "cache", "mountPath": "/c"}],
            },
            {
                "name": "proxy",
                "image": "proxy:1",
                "restartPolicy": "Always",
                "lifecycle": {
                    "postStart": {"exec": {"command": ["warm-up"]}},
                    "preStop": {"exec": {"command": ["sleep", "30"]}},
                },
            },
        ],
        "containers": [
            {
                "name": "agent",
                "image": "agent:2",
                "env": [
                    {"name": "TRACK", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['track']"}}},
                    {
                        "name": "TEAM",
                        "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['team']"}},
                    },
                    {"name": "MISSING", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['none']"}}},
                    {"name": "SA", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                    {
                        "name": "MEM",
                        "valueFrom": {
                            "resourceFieldRef": {"containerName": "agent", "resource": "limits.memory"}
                        },
                    },
                ],
                "volumeMounts": [
                    {"name": "cache", "mountPath": "/c"},
                    {"name": "settings", "mountPath": "/etc/agent"},
                ],
            }
        ],
        "volumes": [
            {"name": "cache", "emptyDir": {}},
            {"name": "settings", "configMap": {"name": "agent-settings"}},
        ],
    },
}


def _pod(template: dict[str, Any], hostname: str | None = None) -> dict[str, Any]:
    spec = JudgeJobSpec(image="judge", deadline_seconds=60, candidate=template, hostname=hostname)
    pod: dict[str, Any] = judge_job(RUN, 0, 1, 1, spec)["spec"]["template"]
    return pod


def test_the_candidate_sees_production_values_through_the_downward_api() -> None:
    host = production_hostname("oil-agent", PRODUCTION, RUN.uid)
    pod = _pod(PRODUCTION, host)
    agent = next(c for c in pod["spec"]["initContainers"] if c["name"] == "candidate-agent")
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in agent["env"]}
    assert env["TRACK"] == "stable" and env["TEAM"] == "maintenance" and env["MISSING"] == ""
    assert env["SA"] == "oil-agent"  # not the judge's proctor-judge
    assert env["POD"] == host == pod["spec"]["hostname"]
    assert env["IP"] == {"fieldRef": {"fieldPath": "status.podIP"}}  # the real one is production's too
    assert env["MEM"] == {
        "resourceFieldRef": {"containerName": "candidate-agent", "resource": "limits.memory"}
    }
    # none of the template's labels are on the exam pod: its Service cannot select it
    assert not set(PRODUCTION["metadata"]["labels"].items()) & set(pod["metadata"]["labels"].items())
    assert pod["spec"]["enableServiceLinks"] is True  # production pods get the Service variables


def test_a_production_hostname_looks_like_a_deployments_pod_name() -> None:
    host = production_hostname("oil-agent", PRODUCTION, RUN.uid)
    assert host is not None
    name, stem, suffix = host.rsplit("-", 2)
    assert name == "oil-agent" and len(stem) == 10 and len(suffix) == 5
    assert "judge" not in host and len(host) <= 63
    assert production_hostname(None, PRODUCTION, RUN.uid) is None
    assert len(production_hostname("a." * 60 + "b", PRODUCTION, "x") or "") <= 63


def test_the_pod_runs_whole_with_its_own_volumes_never_the_judges() -> None:
    pod = _pod(PRODUCTION)["spec"]
    names = [c["name"] for c in pod["initContainers"]]
    assert names == ["candidate-fetch-model", "candidate-proxy", "candidate-agent"]
    fetch, proxy, agent = pod["initContainers"]
    assert "restartPolicy" not in fetch  # an init container runs to completion first
    assert proxy["restartPolicy"] == agent["restartPolicy"] == "Always"
    assert proxy["lifecycle"] == {"postStart": {"exec": {"command": ["warm-up"]}}}  # not its preStop
    assert [v["name"] for v in pod["volumes"]] == [
        JUDGE_TOKEN_VOLUME,
        "candidate-cache",
        "candidate-settings",
    ]
    assert {m["name"] for m in agent["volumeMounts"]} == {"candidate-cache", "candidate-settings"}
    assert exam_problems(PRODUCTION) == []


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"hostNetwork": True}, "spec.hostNetwork"),
        ({"hostAliases": [{"ip": "10.0.0.9", "hostnames": ["judge.example"]}]}, "spec.hostAliases"),
        ({"dnsConfig": {"nameservers": ["10.0.0.9"]}}, "spec.dnsConfig"),
        ({"dnsPolicy": "None"}, "spec.dnsPolicy"),
        (
            {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]},
            "persistentVolumeClaim",
        ),
        (
            {"volumes": [{"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]},
            "serviceAccountToken",
        ),
        (
            {
                "volumes": [
                    {
                        "name": "info",
                        "downwardAPI": {
                            "items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]
                        },
                    }
                ]
            },
            "metadata.labels",
        ),
        (
            {"containers": [{"name": "a", "image": "a", "volumeMounts": [{"name": "x", "mountPath": "/x"}]}]},
            "does not declare",
        ),
    ],
)
def test_what_the_exam_cannot_reproduce_is_refused_with_its_reason(
    change: dict[str, Any], named: str
) -> None:
    template = {"spec": {"containers": [{"name": "a", "image": "a"}], **change}}
    problems = exam_problems(template)
    assert problems and any(named in p for p in problems), problems


def test_a_downward_api_file_of_other_fields_is_reproduced() -> None:
    template = {
        "spec": {
            "containers": [
                {"name": "a", "image": "a", "volumeMounts": [{"name": "info", "mountPath": "/i"}]}
            ],
            "volumes": [
                {
                    "name": "info",
                    "downwardAPI": {
                        "items": [{"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]
                    },
                }
            ],
        }
    }
    assert exam_problems(template) == []
