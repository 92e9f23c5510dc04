"""Where the operator never acts, whatever its RBAC allows: a rule of its own, not of the chart's.

Installed cluster-wide (no ``watchNamespaces``), the operator's ClusterRoleBinding lets it create
Jobs and patch Deployments in every namespace, ``kube-system`` included. A GatePolicy, EvalRun,
CaseSet, EvalProfile or AgentMonitor in ``kube-system`` or in the operator's own namespace (where
its certificates and the collector live) is therefore refused here before any step: nothing is
created, patched or examined there, and the log says why once. The webhook never intercepts those
namespaces either (:class:`proctor.gate.webhook.WebhookConfig`).
"""

from __future__ import annotations

#: Namespaces no Proctor object is acted on in (besides the operator's own).
REFUSED_NAMESPACES: tuple[str, ...] = ("kube-system",)


def refusal(namespace: str | None, own: str | None) -> str | None:
    """Why the operator does not act on an object in ``namespace`` (``None``: it may). ``own`` is the
    operator's namespace (``POD_NAMESPACE``; unset out of a cluster)."""
    if namespace in REFUSED_NAMESPACES:
        return f"namespace {namespace} is the cluster's own: the Proctor operator never acts there"
    if own and namespace == own:
        return (
            f"namespace {namespace} is the Proctor operator's own (its certificates and the collector): it "
            "never acts there; put Proctor objects in the namespaces of the workloads they examine"
        )
    return None
