"""Who may read and resolve an agent's behaviour patterns, on the real API server, acting as the
actors it guards against: the tenant's agent (its ingestion token), another tenant's
ServiceAccount, the tenant's own reader (get/list), and a ServiceAccount granted the verb
``resolve`` (tokens for the collector's audience). SQLite and PostgreSQL."""

from __future__ import annotations

import httpx
from test_collector_tenancy import Setup, _apply, _get, _token, tenants  # noqa: F401 (fixture)

from collecting import TIMEOUT
from conftest import Cluster
from proctor.protocol import PatternState
from proctor.store import Failure, Patterns, Pending, Store


def _fixer(ns: str) -> list[dict[str, object]]:
    """A ServiceAccount ``fixer`` that may get AgentMonitors and resolve their patterns in ``ns``."""
    meta = {"name": "fixer", "namespace": ns}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": meta,
            "rules": [
                {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get", "resolve"]}
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "fixer"},
            "subjects": [{"kind": "ServiceAccount", "name": "fixer", "namespace": ns}],
        },
    ]


def test_resolving_a_pattern_takes_the_resolve_verb_on_its_monitor(
    tenants: Setup,  # noqa: F811 (the fixture imported above)
    crds: Cluster,
    db_url: str,
) -> None:
    a, b = tenants.tenants["a"], tenants.tenants["b"]
    monitor = f"{a.namespace}/oil-agent"
    store = Store.open(db_url)  # the collector's database: a failing judgment of tenant a's agent
    try:
        failure = Failure(1, "factual_grounding", "r-a-1", 30.0, 70.0, "Cites no source.", "general", 100.0)
        Patterns(store.engine).record(monitor, Pending((failure,), 0, False), None, similarity=0.45)
        (pattern,) = Patterns(store.engine).find(monitor)
    finally:
        store.close()
    path = f"/api/v1/monitors/{monitor}/patterns"
    resolve = f"{tenants.url}/api/v1/patterns/{pattern.id}/resolve"

    def post(token: str | None) -> httpx.Response:
        return httpx.post(
            resolve, headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=TIMEOUT
        )

    # the tenant's agent (its ingestion token): nothing
    assert a.ingest_token and _get(tenants.url, path, a.ingest_token).status_code == 401
    assert post(a.ingest_token).status_code == 401
    # another tenant's ServiceAccount: neither read nor resolve
    assert _get(tenants.url, path, b.reader).status_code == 403
    other = post(b.reader)
    assert other.status_code == 403 and "resolve" in other.json()["error"]
    # the tenant's own reader (get/list) reads the pattern, and may not resolve it
    shown = _get(tenants.url, path, a.reader)
    assert shown.status_code == 200 and [p["id"] for p in shown.json()["patterns"]] == [pattern.id]
    reader = post(a.reader)
    assert reader.status_code == 403 and "may not resolve" in reader.json()["error"]
    # a ServiceAccount with the verb resolve: resolved, recorded as who did it
    _apply(crds, _fixer(a.namespace))
    done = post(_token(crds, a.namespace, "fixer"))
    assert done.status_code == 200, done.text
    assert done.json()["resolvedBy"] == f"system:serviceaccount:{a.namespace}:fixer"
    store = Store.open(db_url)
    try:
        assert Patterns(store.engine).get(pattern.id).facts.state is PatternState.RESOLVED
    finally:
        store.close()
