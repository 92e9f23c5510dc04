"""The thin Kubernetes API wrapper used by the runner (and, later, the operator's helpers).

Everything here is I/O and nothing else: reads return plain dicts, writes take the dicts the
pure builders in :mod:`proctor.k8s.objects` made. Writes use server-side apply with a named field
manager, so concurrent writers (several shards, the operator) each own their part of an object
and a retried write is a no-op.
"""

from __future__ import annotations

import json
from typing import Any, cast

from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from proctor.api import GROUP, RESOURCE_KINDS, VERSION

APPLY = "application/apply-patch+yaml"

#: Each kind's resource name in the API (``evalruns``), from the models.
PLURALS = {kind: model.PLURAL for kind, model in RESOURCE_KINDS.items()}


class KubeError(RuntimeError):
    """An API call failed; the message says which object and why (never a credential)."""

    def __init__(self, what: str, exc: ApiException) -> None:
        reason = _reason(exc)
        super().__init__(f"{what}: {reason}")
        self.status = exc.status


def _reason(exc: ApiException) -> str:
    try:
        body = json.loads(exc.body or "{}")
        return f"{exc.status} {body.get('reason', '')}: {body.get('message', '')}".strip()
    except (ValueError, TypeError):
        return f"{exc.status} {exc.reason}"


def load_client() -> client.ApiClient:
    """A client from KUBECONFIG (or ~/.kube/config) if there is one, else the in-cluster account."""
    cast(Any, config).load_config()
    return client.ApiClient()


class Kube:
    """The few calls the runner needs, as plain dicts."""

    def __init__(self, api: client.ApiClient | None = None) -> None:
        self.api = api or load_client()
        self.core = client.CoreV1Api(self.api)
        self.custom = client.CustomObjectsApi(self.api)
        self.batch = client.BatchV1Api(self.api)
        self.rbac = client.RbacAuthorizationV1Api(self.api)

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        try:
            obj = self.custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)
        except ApiException as e:
            raise KubeError(f"{kind} {namespace}/{name}", e) from None
        return cast(dict[str, Any], obj)

    def get_or_none(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return self.get(kind, namespace, name)
        except KubeError as e:
            if e.status == 404:
                return None
            raise

    def get_configmap(self, namespace: str, name: str) -> dict[str, Any]:
        try:
            reply = cast(Any, self.core.read_namespaced_config_map)(name, namespace, _preload_content=False)
        except ApiException as e:
            raise KubeError(f"ConfigMap {namespace}/{name}", e) from None
        return cast(dict[str, Any], json.loads(reply.data))

    def list_jobs(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        try:
            reply = cast(Any, self.batch.list_namespaced_job)(
                namespace, label_selector=selector, _preload_content=False
            )
        except ApiException as e:
            raise KubeError(f"Jobs {namespace} ({selector})", e) from None
        return list(json.loads(reply.data).get("items") or [])

    def create_job(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a Job; None when one of that name already exists (the caller decides to adopt)."""
        meta = obj["metadata"]
        try:
            reply = cast(Any, self.batch.create_namespaced_job)(
                meta["namespace"], obj, _preload_content=False
            )
        except ApiException as e:
            if e.status == 409:
                return None
            raise KubeError(f"Job {meta['namespace']}/{meta['name']}", e) from None
        return cast(dict[str, Any], json.loads(reply.data))

    def get_job(self, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            reply = cast(Any, self.batch.read_namespaced_job)(name, namespace, _preload_content=False)
        except ApiException as e:
            if e.status == 404:
                return None
            raise KubeError(f"Job {namespace}/{name}", e) from None
        return cast(dict[str, Any], json.loads(reply.data))

    def apply_rbac(self, objs: list[dict[str, Any]], manager: str) -> None:
        """Server-side apply of ServiceAccounts, Roles and RoleBindings."""
        for obj in objs:
            meta = obj["metadata"]
            fn = {
                "ServiceAccount": self.core.patch_namespaced_service_account,
                "Role": self.rbac.patch_namespaced_role,
                "RoleBinding": self.rbac.patch_namespaced_role_binding,
            }[obj["kind"]]
            try:
                cast(Any, fn)(
                    meta["name"],
                    meta["namespace"],
                    obj,
                    field_manager=manager,
                    force=True,
                    _content_type=APPLY,
                    _preload_content=False,
                )
            except ApiException as e:
                raise KubeError(f"{obj['kind']} {meta['namespace']}/{meta['name']}", e) from None

    def apply_webhook_configuration(self, obj: dict[str, Any], manager: str) -> None:
        api = client.AdmissionregistrationV1Api(self.api)
        try:
            cast(Any, api.patch_mutating_webhook_configuration)(
                obj["metadata"]["name"],
                obj,
                field_manager=manager,
                force=True,
                _content_type=APPLY,
                _preload_content=False,
            )
        except ApiException as e:
            raise KubeError(f"MutatingWebhookConfiguration {obj['metadata']['name']}", e) from None

    def list_deployments(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        apps = client.AppsV1Api(self.api)
        try:
            reply = cast(Any, apps.list_namespaced_deployment)(
                namespace, label_selector=selector, _preload_content=False
            )
        except ApiException as e:
            raise KubeError(f"Deployments {namespace} ({selector})", e) from None
        return list(json.loads(reply.data).get("items") or [])

    def patch_deployment(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """A merge patch (annotations and spec.paused / spec.template, as the gate decides)."""
        apps = client.AppsV1Api(self.api)
        try:
            cast(Any, apps.patch_namespaced_deployment)(
                name, namespace, patch, _content_type="application/merge-patch+json", _preload_content=False
            )
        except ApiException as e:
            raise KubeError(f"Deployment {namespace}/{name}", e) from None

    def create_custom(self, kind: str, namespace: str, obj: dict[str, Any]) -> bool:
        """Create a Proctor object; False when one of that name exists already."""
        try:
            self.custom.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], obj)
        except ApiException as e:
            if e.status == 409:
                return False
            raise KubeError(f"{kind} {namespace}/{obj['metadata']['name']}", e) from None
        return True

    def patch_custom(self, kind: str, namespace: str, name: str, patch: dict[str, Any]) -> None:
        try:
            cast(Any, self.custom.patch_namespaced_custom_object)(
                GROUP,
                VERSION,
                namespace,
                PLURALS[kind],
                name,
                patch,
                _content_type="application/merge-patch+json",
                _preload_content=False,
            )
        except ApiException as e:
            raise KubeError(f"{kind} {namespace}/{name}", e) from None

    def list_custom(self, kind: str, namespace: str, selector: str | None = None) -> list[dict[str, Any]]:
        try:
            reply = cast(Any, self.custom.list_namespaced_custom_object)(
                GROUP, VERSION, namespace, PLURALS[kind], label_selector=selector, _preload_content=False
            )
        except ApiException as e:
            raise KubeError(f"{kind} list {namespace}", e) from None
        return list(json.loads(reply.data).get("items") or [])

    def delete_custom(self, kind: str, namespace: str, name: str) -> None:
        try:
            self.custom.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)
        except ApiException as e:
            if e.status != 404:
                raise KubeError(f"{kind} {namespace}/{name}", e) from None

    def get_configmap_data(self, namespace: str, name: str) -> dict[str, str]:
        try:
            reply = cast(Any, self.core.read_namespaced_config_map)(name, namespace, _preload_content=False)
        except ApiException as e:
            raise KubeError(f"ConfigMap {namespace}/{name}", e) from None
        return dict(json.loads(reply.data).get("data") or {})

    def list_configmaps(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        try:
            reply = cast(Any, self.core.list_namespaced_config_map)(
                namespace, label_selector=selector, _preload_content=False
            )
        except ApiException as e:
            raise KubeError(f"ConfigMaps {namespace} ({selector})", e) from None
        return list(json.loads(reply.data).get("items") or [])

    def apply(self, obj: dict[str, Any], manager: str) -> None:
        """Server-side apply of a ConfigMap (creates it, or makes it equal to ``obj``)."""
        meta = obj["metadata"]
        try:
            cast(Any, self.core.patch_namespaced_config_map)(
                meta["name"],
                meta["namespace"],
                obj,
                field_manager=manager,
                force=True,
                _content_type=APPLY,
                _preload_content=False,
            )
        except ApiException as e:
            raise KubeError(f"ConfigMap {meta['namespace']}/{meta['name']}", e) from None

    def delete_configmap(self, namespace: str, name: str) -> None:
        try:
            self.core.delete_namespaced_config_map(name, namespace)
        except ApiException as e:
            if e.status != 404:
                raise KubeError(f"ConfigMap {namespace}/{name}", e) from None

    def apply_status(
        self, kind: str, namespace: str, name: str, status: dict[str, Any], manager: str
    ) -> None:
        """Server-side apply to the status subresource: this manager's fields only, list-maps merged."""
        body = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "status": status,
        }
        try:
            cast(Any, self.custom.patch_namespaced_custom_object_status)(
                GROUP,
                VERSION,
                namespace,
                PLURALS[kind],
                name,
                body,
                field_manager=manager,
                force=True,
                _content_type=APPLY,
                _preload_content=False,
            )
        except ApiException as e:
            raise KubeError(f"{kind} {namespace}/{name} status", e) from None
