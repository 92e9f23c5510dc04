"""The operator's settings, from the environment (the Helm chart sets them; tests shorten them)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from proctor import __version__
from proctor.k8s.kube import default_listen_host
from proctor.k8s.objects import DEFAULT_STORE_NAMESPACE, store_namespace
from proctor.reconcile.plan import DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS


def _floats(text: str | None, default: tuple[float, ...]) -> tuple[float, ...]:
    if not text:
        return default
    return tuple(float(x) for x in text.split(",") if x.strip())


@dataclass(frozen=True)
class OperatorConfig:
    """Knobs with production defaults. ``PROCTOR_*`` environment variables override them."""

    judge_image: str = f"ghcr.io/proctor-dev/proctor:{__version__}"
    backoff: tuple[float, ...] = DEFAULT_BACKOFF
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    reconcile_interval: float = 30.0
    #: How long a judge pod may fail to start (a missing Secret, an image it cannot pull, a pod the API
    #: server refuses) before the run ends in ERROR: the kubelet and Job controller retry within it.
    start_grace_seconds: float = 30.0
    job_ttl_seconds: int = 3600
    run_history: int = 50
    metrics_port: int = 9090
    #: Where /metrics listens: every address in a pod, loopback elsewhere (``PROCTOR_METRICS_ADDR``).
    metrics_addr: str = "127.0.0.1"
    manage_judge_rbac: bool = True
    #: The ClusterRole the judge's RoleBinding names (the chart installs it); unset, the operator
    #: applies a Role of the judge's own (a local operator, which may create Roles).
    judge_cluster_role: str | None = None
    namespaces: tuple[str, ...] = field(default=())
    #: Arm B: the collector's base URL; AgentMonitor status is read from it ("" : not configured).
    collector_url: str = ""
    #: A bearer token for the collector; default: a token of the operator's own ServiceAccount for
    #: the collector's audience (TokenRequest), never its API-server token. Needed only when the
    #: operator does not run as a ServiceAccount (a local operator with a client certificate).
    collector_token: str = field(default="", repr=False)
    #: A PEM CA bundle that verifies a collector served over TLS ("" : the system's CAs).
    collector_ca: str = ""
    #: Seconds between reads of each AgentMonitor's summary from the collector.
    monitor_interval: float = 30.0
    #: The operator's own namespace (``POD_NAMESPACE``): it never acts there (:mod:`proctor.reconcile.scope`).
    own_namespace: str = ""
    #: Where the operator keeps each run's pinned cases (never the run's namespace, where the tenant
    #: reads ConfigMaps): ``PROCTOR_STORE_NAMESPACE``, else its own namespace, else (a local operator)
    #: ``proctor-system``, created if missing.
    store_namespace: str = DEFAULT_STORE_NAMESPACE
    #: The case server (:mod:`proctor.reconcile.caseserver`): the port it listens on (0: any free
    #: one), the address, the host the judges reach it by (``https://HOST:PORT``: the chart's Service;
    #: loopback on the local control plane) and the directory of its certificate (mounted, or empty:
    #: a CA and certificate are generated there; unset, a fresh temporary one).
    cases_port: int = 0
    cases_addr: str = "127.0.0.1"
    cases_host: str = "127.0.0.1"
    cases_cert_dir: str = ""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> OperatorConfig:
        e = dict(os.environ if env is None else env)
        d = cls()
        return cls(
            judge_image=e.get("PROCTOR_JUDGE_IMAGE", d.judge_image),
            backoff=_floats(e.get("PROCTOR_RETRY_BACKOFF"), d.backoff),
            max_attempts=int(e.get("PROCTOR_MAX_ATTEMPTS", d.max_attempts)),
            reconcile_interval=float(e.get("PROCTOR_RECONCILE_INTERVAL", d.reconcile_interval)),
            start_grace_seconds=float(e.get("PROCTOR_START_GRACE_SECONDS", d.start_grace_seconds)),
            job_ttl_seconds=int(e.get("PROCTOR_JOB_TTL_SECONDS", d.job_ttl_seconds)),
            run_history=int(e.get("PROCTOR_RUN_HISTORY", d.run_history)),
            metrics_port=int(e.get("PROCTOR_METRICS_PORT", d.metrics_port)),
            metrics_addr=e.get("PROCTOR_METRICS_ADDR") or default_listen_host(e),
            manage_judge_rbac=e.get("PROCTOR_MANAGE_JUDGE_RBAC", "true").lower() != "false",
            collector_url=e.get("PROCTOR_COLLECTOR_URL", d.collector_url).strip().rstrip("/"),
            collector_token=e.get("PROCTOR_COLLECTOR_TOKEN", d.collector_token).strip(),
            collector_ca=e.get("PROCTOR_COLLECTOR_CA", d.collector_ca).strip(),
            monitor_interval=float(e.get("PROCTOR_MONITOR_INTERVAL", d.monitor_interval)),
            judge_cluster_role=e.get("PROCTOR_JUDGE_CLUSTER_ROLE") or None,
            own_namespace=e.get("POD_NAMESPACE", "").strip(),
            store_namespace=store_namespace(e),
            cases_port=int(e.get("PROCTOR_CASES_PORT", d.cases_port)),
            cases_addr=e.get("PROCTOR_CASES_ADDR") or default_listen_host(e),
            cases_host=e.get("PROCTOR_CASES_HOST", "").strip() or d.cases_host,
            cases_cert_dir=e.get("PROCTOR_CASES_CERT_DIR", "").strip(),
        )
