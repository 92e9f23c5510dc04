"""Listing one case set's runs, on an API server with and without selectable fields."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from proctor.k8s.kube import Kube, KubeError

RUNS = [
    {"metadata": {"name": n}, "spec": {"caseSetRef": {"name": c}}}
    for n, c in [("a1", "alpha"), ("b1", "beta"), ("a2", "alpha"), ("x", "")]
] + [{"metadata": {"name": "bare"}}]


class Custom:
    """The custom objects API of an API server that knows selectable fields or not."""

    def __init__(self, *, selectable: bool, status: int = 400) -> None:
        self.selectable, self.status = selectable, status
        self.calls: list[str | None] = []

    def list_namespaced_custom_object(self, *args: Any, **kw: Any) -> Any:
        fields = kw.get("field_selector")
        self.calls.append(fields)
        items = RUNS
        if fields:
            if not self.selectable:
                raise ApiException(status=self.status, reason="field label not supported")
            want = fields.removeprefix("spec.caseSetRef.name=")
            items = [r for r in RUNS if r.get("spec", {}).get("caseSetRef", {}).get("name") == want]
        return SimpleNamespace(data=json.dumps({"items": items}).encode())


def _kube(custom: Custom) -> Kube:
    kube = Kube(client.ApiClient(client.Configuration()))
    kube.custom = custom  # type: ignore[assignment]
    return kube


def test_the_api_server_selects_the_runs_when_it_can() -> None:
    custom = Custom(selectable=True)
    assert [r["metadata"]["name"] for r in _kube(custom).list_runs_of("ns", "alpha")] == ["a1", "a2"]
    assert custom.calls == ["spec.caseSetRef.name=alpha"]


def test_an_api_server_without_selectable_fields_gets_one_full_list_filtered_here() -> None:
    custom = Custom(selectable=False)
    assert [r["metadata"]["name"] for r in _kube(custom).list_runs_of("ns", "alpha")] == ["a1", "a2"]
    assert custom.calls == ["spec.caseSetRef.name=alpha", None]


def test_other_errors_are_not_taken_for_a_missing_feature() -> None:
    with pytest.raises(KubeError, match="403"):
        _kube(Custom(selectable=False, status=403)).list_runs_of("ns", "alpha")
