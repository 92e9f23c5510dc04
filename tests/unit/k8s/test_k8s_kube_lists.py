"""Listing one case set's runs, on an API server with and without selectable fields."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from kubernetes import client

from proctor.k8s.kube import Kube, KubeError

RUNS: list[dict[str, Any]] = [
    {"metadata": {"name": n}, "spec": {"caseSetRef": {"name": c}}}
    for n, c in [("a1", "alpha"), ("b1", "beta"), ("a2", "alpha"), ("x", "")]
] + [{"metadata": {"name": "bare"}}]


class Custom(Kube):
    """A client of an API server that knows selectable fields or not."""

    def __init__(self, *, selectable: bool, status: int = 400) -> None:
        super().__init__(client.ApiClient(client.Configuration()))
        self.selectable, self.status = selectable, status
        self.calls: list[str | None] = []

    def _send(
        self,
        method: str,
        resource: str,
        query: Mapping[str, str | None] | None = None,
        body: Any = None,
        content_type: str | None = None,
    ) -> Any:
        assert (method, resource) == ("GET", "/apis/proctor.dev/v1alpha1/namespaces/ns/evalruns")
        fields = (query or {}).get("fieldSelector")
        self.calls.append(fields)
        items = RUNS
        if fields:
            if not self.selectable:
                message = {"reason": "BadRequest", "message": "field label not supported"}
                data = json.dumps(message).encode()
                return SimpleNamespace(status=self.status, reason="Bad", data=data, headers={})
            want = fields.removeprefix("spec.caseSetRef.name=")
            items = [r for r in RUNS if r.get("spec", {}).get("caseSetRef", {}).get("name") == want]
        return SimpleNamespace(status=200, reason="OK", data=json.dumps({"items": items}).encode())


def test_the_api_server_selects_the_runs_when_it_can() -> None:
    custom = Custom(selectable=True)
    assert [r["metadata"]["name"] for r in custom.list_runs_of("ns", "alpha")] == ["a1", "a2"]
    assert custom.calls == ["spec.caseSetRef.name=alpha"]


def test_an_api_server_without_selectable_fields_gets_one_full_list_filtered_here() -> None:
    custom = Custom(selectable=False)
    assert [r["metadata"]["name"] for r in custom.list_runs_of("ns", "alpha")] == ["a1", "a2"]
    assert custom.calls == ["spec.caseSetRef.name=alpha", None]


def test_other_errors_are_not_taken_for_a_missing_feature() -> None:
    with pytest.raises(KubeError, match="403"):
        Custom(selectable=False, status=403).list_runs_of("ns", "alpha")
