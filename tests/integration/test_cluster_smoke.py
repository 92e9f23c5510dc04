"""The local control plane is a real Kubernetes: CRDs, Jobs, garbage collection, namespaces."""

from __future__ import annotations

import json

from conftest import Cluster, wait_for

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.smoke.proctor.dev}
spec:
  group: smoke.proctor.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1}
"""


def _job(name: str, command: str, image: str = "proctor:dev", **spec: object) -> str:
    return json.dumps(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": name},
            "spec": {
                "backoffLimit": 0,
                **spec,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "main", "image": image, "command": ["sh", "-c", command]}],
                    }
                },
            },
        }
    )


def test_crd_applies_and_reads_back_with_kubectl(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("apply", "-f", "-", input=CRD)
    cluster.kubectl("wait", "--for=condition=Established", "crd/widgets.smoke.proctor.dev", "--timeout=30s")
    cluster.kubectl(
        "-n",
        namespace,
        "apply",
        "-f",
        "-",
        input="apiVersion: smoke.proctor.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n",
    )
    got = cluster.get_json("-n", namespace, "widget", "w")
    assert got["spec"] == {"size": 3}
    bad = cluster.kubectl(
        "-n",
        namespace,
        "apply",
        "-f",
        "-",
        check=False,
        input="apiVersion: smoke.proctor.dev/v1\nkind: Widget\nmetadata: {name: x}\nspec: {size: 0}\n",
    )
    assert bad.returncode != 0
    assert "spec.size" in bad.stderr


def test_job_runs_to_complete_through_the_real_job_controller(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=_job("ok", "echo hello from $HOSTNAME"))
    cluster.kubectl("-n", namespace, "wait", "--for=condition=Complete", "job/ok", "--timeout=90s")
    job = cluster.get_json("-n", namespace, "job", "ok")
    assert job["status"]["succeeded"] == 1


def test_failed_container_fails_the_job_with_exit_code_and_message(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=_job("boom", "echo kaput >&2; exit 3"))
    cluster.kubectl("-n", namespace, "wait", "--for=condition=Failed", "job/boom", "--timeout=90s")
    pods = cluster.get_json("-n", namespace, "pods", "-l", "job-name=boom")["items"]
    term = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert term["exitCode"] == 3
    if cluster.local:  # a kubelet would read /dev/termination-log instead
        assert "kaput" in term["message"]


def test_an_image_the_node_cannot_run_backs_off_like_a_pull(cluster: Cluster, namespace: str) -> None:
    """Not a failed pod (a Job or ReplicaSet would replace it without end): the container waits in
    ImagePullBackOff, as on a kubelet that cannot pull the image."""
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=_job("img", "true", image="nginx:1.27"))

    def waiting() -> dict[str, str] | None:
        pods = cluster.get_json("-n", namespace, "pods", "-l", "job-name=img")["items"]
        statuses = pods[0].get("status", {}).get("containerStatuses", []) if pods else []
        w = statuses[0].get("state", {}).get("waiting") if statuses else None
        return w if w and w.get("reason") == "ImagePullBackOff" else None

    w = wait_for(waiting, timeout=90, what="ImagePullBackOff")
    assert '"nginx:1.27"' in w["message"]
    if cluster.local:
        assert "no local command maps to this image" in w["message"]
    pods = cluster.get_json("-n", namespace, "pods", "-l", "job-name=img")["items"]
    assert len(pods) == 1 and pods[0]["status"]["phase"] == "Pending"
    assert cluster.get_json("-n", namespace, "job", "img")["status"].get("failed", 0) == 0


def test_env_from_secret_configmap_and_field_refs(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("-n", namespace, "create", "secret", "generic", "judge", "--from-literal=key=s3cr3t")
    cluster.kubectl("-n", namespace, "create", "configmap", "cfg", "--from-literal=model=tiny")
    job = json.loads(_job("env", 'test "$K=$M=$NS=$POD" = "s3cr3t=tiny=$EXPECT_NS=$HOSTNAME"'))
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "K", "valueFrom": {"secretKeyRef": {"name": "judge", "key": "key"}}},
        {"name": "M", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "model"}}},
        {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "EXPECT_NS", "value": namespace},
    ]
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(job))
    cluster.kubectl("-n", namespace, "wait", "--for=condition=Complete", "job/env", "--timeout=90s")


def test_native_sidecar_starts_first_and_stops_after_the_main_container(
    cluster: Cluster, namespace: str
) -> None:
    # like containers in a pod: the sidecar listens on the pod IP, probed there by the "kubelet"
    pod_ip = {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
    job = json.loads(_job("side", 'curl -sf "http://$POD_IP:18931/" > /dev/null'))
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [pod_ip]
    job["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "agent",
            "image": "proctor:dev",
            "restartPolicy": "Always",
            "env": [pod_ip],
            "command": ["sh", "-c", 'exec python -m http.server 18931 --bind "$POD_IP"'],
            # the main container starts once the sidecar has started: its startup probe passed
            "startupProbe": {
                "httpGet": {"port": 18931, "path": "/"},
                "periodSeconds": 1,
                "failureThreshold": 60,
            },
        }
    ]
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(job))
    cluster.kubectl("-n", namespace, "wait", "--for=condition=Complete", "job/side", "--timeout=90s")
    pod = cluster.get_json("-n", namespace, "pods", "-l", "job-name=side")["items"][0]
    main = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    side = pod["status"]["initContainerStatuses"][0]["state"]["terminated"]
    assert main["exitCode"] == 0
    assert side["startedAt"] <= main["startedAt"] and side["finishedAt"] >= main["finishedAt"]


def test_owned_child_is_garbage_collected(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("-n", namespace, "create", "configmap", "parent")
    uid = cluster.get_json("-n", namespace, "configmap", "parent")["metadata"]["uid"]
    child = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "child",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "parent", "uid": uid}],
        },
    }
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(child))
    cluster.kubectl("-n", namespace, "delete", "configmap", "parent")
    wait_for(
        lambda: cluster.kubectl("-n", namespace, "get", "configmap", "child", check=False).returncode != 0,
        timeout=60,
        what="the garbage collector to delete the owned ConfigMap",
    )


def test_namespace_deletion_completes_with_pods_in_it(cluster: Cluster) -> None:
    ns = "t-delete-me"
    cluster.kubectl("create", "namespace", ns)
    wait_for(
        lambda: cluster.kubectl("-n", ns, "get", "sa", "default", check=False).returncode == 0, what="sa"
    )
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=_job("sleeper", "sleep 300"))
    wait_for(lambda: cluster.get_json("-n", ns, "pods")["items"], what="the Job's pod")
    cluster.kubectl("delete", "namespace", ns, "--timeout=90s")
    assert cluster.kubectl("get", "namespace", ns, check=False).returncode != 0
