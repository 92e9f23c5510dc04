"""A real Kubernetes API server for tests and benchmarks: the local control plane, or any cluster.

The one harness behind the test suite's ``cluster`` fixture (``tests/conftest.py``) and the
benchmarks (``bench/``): it starts the local control plane (:mod:`proctor.devcluster`) in a
directory of its own, tied to this process so it also stops when the process is killed, or wraps the
cluster in ``KUBECONFIG``; it runs ``kubectl`` against it and hands out API clients (one per thread:
the generated clients are not meant to be shared)::

    cluster = Cluster.start(tmp_dir)                 # or Cluster(Path(os.environ["KUBECONFIG"]))
    try:
        cluster.install_crds(repo / "crds")
        cluster.create_namespace("team-a")
        cluster.kubectl("-n", "team-a", "apply", "-f", "caseset.yaml")
    finally:
        cluster.stop()

Every deadline a test or benchmark waits with is scaled by one setting, ``PROCTOR_TEST_TIME_SCALE``
(default 1; say 3 on a machine that is busy with other work): :func:`scaled` reads it, here only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from proctor.api import GROUP, RESOURCE_KINDS, VERSION
from proctor.devcluster import controlplane as cp


class ClusterError(RuntimeError):
    """The harness could not do what it was asked (the message says what and why)."""


#: The one setting that scales every deadline tests and benchmarks wait with.
TIME_SCALE_ENV = "PROCTOR_TEST_TIME_SCALE"


def time_scale() -> float:
    """``PROCTOR_TEST_TIME_SCALE`` (default 1): how much longer than usual waits may take here."""
    text = os.environ.get(TIME_SCALE_ENV, "").strip()
    try:
        scale = float(text) if text else 1.0
    except ValueError:
        raise ClusterError(f"{TIME_SCALE_ENV}={text!r}: expected a number, such as 2 or 3") from None
    if not scale > 0:
        raise ClusterError(f"{TIME_SCALE_ENV}={text!r}: expected a positive number")
    return scale


def scaled(seconds: float) -> float:
    """A deadline of ``seconds`` on an idle machine, scaled by :func:`time_scale`."""
    return seconds * time_scale()


def kubectl_path() -> str:
    """kubectl as ``make k8s`` built it (beside the control plane), from ``PROCTOR_K8S_BIN``, or on PATH."""
    candidates = [Path(p) for p in [os.environ.get("PROCTOR_K8S_BIN")] if p]
    root = cp.repo_root()
    if root is not None:
        out = subprocess.run(
            ["bash", str(root / "hack" / "build-k8s.sh"), "--print"],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    for c in candidates:
        if (c / "kubectl").exists():
            return str(c / "kubectl")
    found = shutil.which("kubectl")
    if not found:
        raise ClusterError("kubectl not found: run 'make k8s' (it builds kubectl with the control plane)")
    return found


_TIMEOUT_FLAG = re.compile(r"--timeout=(\d+(?:\.\d+)?)s")


def _seconds(arg: str) -> float | None:
    m = _TIMEOUT_FLAG.fullmatch(arg)
    return float(m.group(1)) if m else None


def _scaled_flag(arg: str) -> str:
    seconds = _seconds(arg)
    return arg if seconds is None else f"--timeout={scaled(seconds):.0f}s"


class Cluster:
    """How tests and benchmarks reach the API server."""

    def __init__(
        self, kubeconfig: Path, *, kubectl_bin: str | None = None, state_dir: Path | None = None
    ) -> None:
        self.kubeconfig = kubeconfig
        self.kubectl_bin = kubectl_bin or kubectl_path()
        #: The local control plane's directory (None: a cluster this harness did not start).
        self.state_dir = state_dir
        self._local = threading.local()

    @classmethod
    def start(cls, state_dir: Path, *, node: bool = True, kubectl_bin: str | None = None) -> Cluster:
        """Start the local control plane in ``state_dir`` (with the node stand-in unless ``node`` is
        False); it stops with :meth:`stop`, or when this process dies."""
        kubectl = kubectl_bin or kubectl_path()
        try:
            kubeconfig = cp.up(state_dir, node=node, tie_to_parent=True)
        except cp.DevClusterError as e:
            raise ClusterError(f"the control plane did not start: {e}") from None
        return cls(kubeconfig, kubectl_bin=kubectl, state_dir=state_dir)

    @property
    def local(self) -> bool:
        """Whether this harness started the cluster (the local control plane)."""
        return self.state_dir is not None

    def stop(self) -> None:
        """Stop the control plane this harness started (a cluster it did not start is left alone)."""
        if self.state_dir is not None:
            cp.down(self.state_dir)

    def pids(self) -> dict[str, int]:
        """The local control plane's processes, by name."""
        if self.state_dir is None:
            return {}
        return {k: int(v) for k, v in (cp.read_state(self.state_dir).get("pids") or {}).items()}

    def env(self) -> dict[str, str]:
        return {**os.environ, "KUBECONFIG": str(self.kubeconfig)}

    def kubectl(
        self, *args: str, input: str | None = None, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """Run kubectl; its own ``--timeout=Ns`` and ``timeout`` (of the process) are :func:`scaled`."""
        argv = [_scaled_flag(a) for a in args]
        flags = [t for a in argv if (t := _seconds(a)) is not None]
        limit = max([scaled(timeout), *(t + 30 for t in flags)])
        proc = subprocess.run(
            [self.kubectl_bin, *argv],
            input=input,
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=limit,
            check=False,
        )
        if check and proc.returncode != 0:
            raise ClusterError(
                f"kubectl {' '.join(args)[:300]} failed ({proc.returncode}):\n{proc.stderr}{proc.stdout}"[
                    :4000
                ]
            )
        return proc

    def get_json(self, *args: str) -> Any:
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)

    # --- API clients ------------------------------------------------------------------------------

    def api(self) -> client.ApiClient:
        """This thread's API client."""
        api = getattr(self._local, "api", None)
        if api is None:
            cfg = client.Configuration()
            cast(Any, config).load_kube_config(config_file=str(self.kubeconfig), client_configuration=cfg)
            cfg.connection_pool_maxsize = 4
            api = self._local.api = client.ApiClient(cfg)
        return api

    def core(self) -> client.CoreV1Api:
        return client.CoreV1Api(self.api())

    def custom(self) -> client.CustomObjectsApi:
        return client.CustomObjectsApi(self.api())

    def batch(self) -> client.BatchV1Api:
        return client.BatchV1Api(self.api())

    def apps(self) -> client.AppsV1Api:
        apps = getattr(self._local, "apps", None)
        if apps is None:
            apps = self._local.apps = client.AppsV1Api(self.api())
        return apps

    # --- set-up -----------------------------------------------------------------------------------

    def install_crds(self, directory: Path, *, timeout: float = 60) -> None:
        """The generated CRDs, applied and Established, and their storage ready to list."""
        self.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(directory))
        wait = f"--timeout={scaled(timeout):.0f}s"
        self.kubectl("wait", "--for=condition=Established", "-f", str(directory), wait)
        self.wait_crd_storage(timeout)

    def wait_crd_storage(self, timeout: float = 60) -> None:
        """Until the new CRDs can be listed (just after install the server answers 429 for a moment)."""
        deadline = time.monotonic() + scaled(timeout)
        for model in RESOURCE_KINDS.values():
            while True:
                try:
                    self.custom().list_cluster_custom_object(GROUP, VERSION, model.PLURAL, limit=1)
                    break
                except ApiException:
                    if time.monotonic() > deadline:
                        raise ClusterError(
                            f"{model.PLURAL} could not be listed within {timeout:.0f}s"
                        ) from None
                    time.sleep(0.2)

    def create_namespace(
        self, name: str, *, labels: Mapping[str, str] | None = None, timeout: float = 60
    ) -> None:
        """A namespace, once its default service account exists (pods need it)."""
        meta: dict[str, Any] = {"name": name} | ({"labels": dict(labels)} if labels else {})
        cast(Any, self.core()).create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
        deadline = time.monotonic() + scaled(timeout)
        while True:
            try:
                self.core().read_namespaced_service_account("default", name)
                return
            except ApiException as e:
                if e.status != 404 or time.monotonic() > deadline:
                    raise ClusterError(
                        f"namespace {name}: the default service account never appeared"
                    ) from None
            time.sleep(0.2)

    def delete_namespace(self, name: str, *, wait: bool = True, timeout: float = 120) -> bool:
        """Delete a namespace; with ``wait``, until it is gone (False if it lingers past ``timeout``)."""
        try:
            self.core().delete_namespace(name)
        except ApiException as e:
            if e.status != 404:
                raise
            return True
        deadline = time.monotonic() + scaled(timeout)
        while wait and time.monotonic() < deadline:
            try:
                self.core().read_namespace(name)
            except ApiException as e:
                if e.status == 404:
                    return True
                raise
            time.sleep(0.5)
        return not wait
