"""The case server: a run's pinned cases go to its own judge pods, and to nobody else.

A run's cases (inputs, context, references, assertions) are pinned when it starts into ConfigMaps of
the operator's own namespace (:func:`proctor.k8s.objects.snapshot_configmaps`), where the tenant
(who may read every ConfigMap of its namespace and create any pod there) reads nothing. A judge
container fetches its shard's cases here, over HTTPS, with a ServiceAccount token projected into it
alone for the audience :data:`~proctor.k8s.objects.OPERATOR_AUDIENCE` and bound to its pod. The
operator believes the token only through a TokenReview (that audience, not expired, the pod's name
and UID in its extras), and hands out cases only when that pod is one the run's own Job made from
its template (:func:`proctor.reconcile.results.job_problem`, :func:`~proctor.reconcile.results.
pod_problem`, the same check that makes a report believed) and only that Job's shard. Anything else
is 401 (no token the API server vouches for, for this audience) or 403 (a token, but not of a
judge pod of a running exam), with the reason in the operator's log and none of the cases.

:func:`who_calls` and :func:`shard_access` are the pure decisions; :class:`CaseServer` does the I/O
(aiohttp on the operator's loop; blocking API calls in threads).
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from proctor.api import ObjectMeta, RunPhase, content_digest, parse_cases
from proctor.gate.certs import ensure_certs, server_context
from proctor.k8s.kube import KubeError
from proctor.k8s.objects import (
    CASES_PATH,
    DETAIL_PATH,
    LABEL_ATTEMPT,
    LABEL_SHARD,
    OPERATOR_AUDIENCE,
    SNAPSHOT_KEY,
    RunRef,
    configmap_blob,
    decode_cases,
    decode_results,
    detail_configmaps,
    judge_job_name,
    shard_label,
    shard_of,
)
from proctor.reconcile.results import job_problem, pod_problem
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.cases")

#: The largest body the server reads: a shard's full results, gzipped (10,000 cases are ~1 MiB).
MAX_DETAIL_BYTES = 32 * 1024 * 1024

POD_NAME_EXTRA = "authentication.kubernetes.io/pod-name"
POD_UID_EXTRA = "authentication.kubernetes.io/pod-uid"
SA_PREFIX = "system:serviceaccount:"


class Refused(Exception):
    """No cases: ``status`` 401 (who calls is unknown) or 403 (known, not a judge of a running exam)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@dataclass(frozen=True, slots=True)
class Caller:
    """The pod a token is bound to, as the API server's TokenReview says."""

    namespace: str
    service_account: str
    pod: str
    pod_uid: str


@dataclass(frozen=True, slots=True)
class Shard:
    """What a caller may have: the run's cases at these positions (``index`` of ``count``)."""

    run: RunRef
    index: int
    count: int
    attempt: int

    @property
    def name(self) -> str:
        return f"{self.index}/{self.count}"


def _one(extra: Mapping[str, Any], key: str) -> str:
    values = extra.get(key) or []
    return str(values[0]) if isinstance(values, list) and len(values) == 1 and values[0] else ""


def who_calls(review: Mapping[str, Any], audience: str = OPERATOR_AUDIENCE) -> Caller:
    """The pod behind a TokenReview's status, or :class:`Refused`: the token must be authenticated
    for ``audience`` (a token for the API server, or another service, is not one for the operator),
    belong to a ServiceAccount and be bound to a pod (its name and UID in the extras)."""
    if not review.get("authenticated"):
        why = review.get("error") or "not authenticated"
        raise Refused(401, f"the API server does not accept the token for audience {audience}: {why}")
    if audience not in (review.get("audiences") or []):
        raise Refused(401, f"the token is not for audience {audience}")
    user = review.get("user") or {}
    name = str(user.get("username") or "")
    if not name.startswith(SA_PREFIX) or name.count(":") != 3:
        raise Refused(403, f"{name or 'the caller'} is not a ServiceAccount")
    namespace, _, sa = name.removeprefix(SA_PREFIX).partition(":")
    extra = user.get("extra") or {}
    pod, uid = _one(extra, POD_NAME_EXTRA), _one(extra, POD_UID_EXTRA)
    if not pod or not uid:
        raise Refused(403, f"the token of {name} is not bound to a pod (a projected token is)")
    return Caller(namespace, sa, pod, uid)


def _controller(obj: Mapping[str, Any], kind: str) -> str | None:
    owners = ObjectMeta.of(obj).owners(kind, controller=True)
    return str(owners[0].name) if len(owners) == 1 else None


def shard_access(
    caller: Caller,
    pod: Mapping[str, Any] | None,
    job: Mapping[str, Any] | None,
    run: Mapping[str, Any] | None,
) -> Shard:
    """Which shard's cases ``caller`` may have, or :class:`Refused` (403) with the reason: its pod
    (the very one the token is bound to, by UID), made from the template of a Job the run controls,
    of the run's current shards and attempts, while the run is not over and has pinned cases."""
    where = f"pod {caller.namespace}/{caller.pod}"
    if pod is None or ObjectMeta.of(pod).uid != caller.pod_uid:
        raise Refused(403, f"{where} (uid {caller.pod_uid}) does not exist: the token outlived its pod")
    if job is None:
        raise Refused(403, f"{where} is not controlled by a Job")
    if run is None:
        raise Refused(403, f"{where}: its Job is not controlled by an EvalRun")
    rmeta, jmeta = ObjectMeta.of(run), ObjectMeta.of(job)
    ref = RunRef(caller.namespace, str(rmeta.name), str(rmeta.uid))
    if (why := job_problem(job, ref)) is not None or (why := pod_problem(pod, job)) is not None:
        raise Refused(403, why)
    labels, jname = jmeta.labels, jmeta.name
    shards = int((run.get("spec") or {}).get("shards") or 1)
    try:
        index = int(str(labels.get(LABEL_SHARD, "")).split("-of-")[0])
        attempt = int(labels.get(LABEL_ATTEMPT, ""))
    except ValueError:
        raise Refused(403, f"Job {jname} names no shard") from None
    if (
        not 0 <= index < shards
        or labels.get(LABEL_SHARD) != shard_label(index, shards)
        or jname != judge_job_name(ref.name, index, shards, attempt)
    ):
        raise Refused(403, f"Job {jname} is not one of EvalRun {ref.name}'s shards")
    status = run.get("status") or {}
    phase = status.get("phase")
    if phase is not None and RunPhase(phase).terminal:
        raise Refused(403, f"EvalRun {ref.name} is over ({phase})")
    if not (status.get("snapshot") or {}).get("digest"):
        raise Refused(403, f"EvalRun {ref.name} has pinned no cases")
    return Shard(ref, index, shards, attempt)


def shard_cases(cases: Sequence[Mapping[str, Any]], index: int, count: int) -> list[Mapping[str, Any]]:
    """The cases of one shard, in case-set order (position p belongs to shard ``p % count``)."""
    return [c for pos, c in enumerate(cases) if shard_of(pos, count) == index]


def bearer(header: str | None) -> str | None:
    scheme, _, token = (header or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class CaseServer:
    """The HTTPS server judges fetch their cases from, on the operator's own loop."""

    def __init__(self, rt: Runtime, *, watched: Sequence[str] = ()) -> None:
        self.rt = rt
        cfg = rt.config
        # unset: one directory per API server, store and watched namespaces, so an operator started
        # again (a crash, a kill) serves the CA and port its running judge Jobs were given
        key = f"{rt.kube.host}|{cfg.store_namespace}|{','.join(sorted(watched))}"
        default = (
            Path(tempfile.gettempdir()) / f"proctor-cases-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
        )
        self.cert_dir = Path(cfg.cases_cert_dir) if cfg.cases_cert_dir else default
        self.runner: web.AppRunner | None = None
        self.url = ""
        self.ca_pem = ""

    async def start(self) -> None:
        cfg = self.rt.config
        certs = await asyncio.to_thread(ensure_certs, self.cert_dir, _sans(cfg.cases_host))
        context: ssl.SSLContext = server_context(certs)
        app = web.Application(client_max_size=MAX_DETAIL_BYTES)
        app.router.add_get(CASES_PATH, self.cases)
        app.router.add_post(DETAIL_PATH, self.detail)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        remembered = self.cert_dir / "port"
        port = cfg.cases_port
        if not port:  # any free port: the one this directory's operator had, when it is free
            try:
                port = int(remembered.read_text())
            except (OSError, ValueError):
                port = 0
        try:
            await web.TCPSite(self.runner, cfg.cases_addr, port, ssl_context=context).start()
        except OSError:
            if cfg.cases_port:
                raise
            await web.TCPSite(self.runner, cfg.cases_addr, 0, ssl_context=context).start()
        port = _bound_port(self.runner)
        if not cfg.cases_port:
            remembered.write_text(str(port))
        self.url = f"https://{_host(cfg.cases_host)}:{port}"
        self.ca_pem = certs.ca_pem.decode()
        log.info("case server ready", at=self.url)

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def cases(self, request: web.Request) -> web.Response:
        try:
            shard, body = await self.answer(bearer(request.headers.get("Authorization")))
        except Refused as e:
            log.warning("cases refused", status=e.status, reason=e.reason, peer=request.remote)
            return web.json_response({"reason": e.reason}, status=e.status)
        except KubeError as e:
            log.warning("cases not served: an API call failed", error=str(e)[:300])
            return web.json_response({"reason": "the operator could not check the caller"}, status=503)
        log.info("cases served", run=f"{shard.run.namespace}/{shard.run.name}", shard=shard.name)
        return web.json_response(body)

    async def detail(self, request: web.Request) -> web.Response:
        """A judge's full results (every reason), kept in the operator's namespace: the run's own
        namespace gets only what cannot quote a reference (:func:`~proctor.k8s.objects.public_record`)."""
        try:
            shard, _ = await self.caller_shard(bearer(request.headers.get("Authorization")))
            blob = await request.read()
            try:
                decode_results([blob])
            except (OSError, ValueError, EOFError) as e:
                raise Refused(400, f"not gzipped JSON lines of results: {e}") from None
            names = await self.keep_detail(shard, blob)
        except Refused as e:
            log.warning("results refused", status=e.status, reason=e.reason, peer=request.remote)
            return web.json_response({"reason": e.reason}, status=e.status)
        except KubeError as e:
            log.warning("results not kept: an API call failed", error=str(e)[:300])
            return web.json_response({"reason": "the operator could not keep the results"}, status=503)
        where = f"{shard.run.namespace}/{shard.run.name}"
        log.info("results kept", run=where, shard=shard.name, configmaps=names)
        return web.json_response({"configMaps": names})

    async def keep_detail(self, shard: Shard, blob: bytes) -> list[str]:
        """Create the shard's detail ConfigMaps (the same bytes again: nothing to do; other bytes
        under the name of this attempt: 409, never replaced)."""
        ns = self.rt.config.store_namespace
        cms = detail_configmaps(shard.run, shard.index, shard.count, shard.attempt, blob, namespace=ns)
        for cm in cms:
            if await self.rt.call(self.rt.kube.create_configmap, cm) is not None:
                continue
            have = await self.rt.call(self.rt.kube.get_configmap_or_none, ns, cm["metadata"]["name"])
            if have is None or (have.get("binaryData") or {}) != cm["binaryData"]:
                raise Refused(409, f"ConfigMap {ns}/{cm['metadata']['name']} holds other results")
        return [cm["metadata"]["name"] for cm in cms]

    async def caller_shard(self, token: str | None) -> tuple[Shard, dict[str, Any]]:
        """Who calls and which shard of which run is theirs (or :class:`Refused`)."""
        if not token:
            raise Refused(401, "a bearer token is required (the judge's projected token)")
        kube, call = self.rt.kube, self.rt.call
        caller = who_calls(await call(kube.review_token, token, [OPERATOR_AUDIENCE]))
        pod = await call(kube.get_pod, caller.namespace, caller.pod)
        job_name = _controller(pod or {}, "Job")
        job = await call(kube.get_job, caller.namespace, job_name) if job_name else None
        run_name = _controller(job or {}, "EvalRun")
        run = await call(kube.get_or_none, "EvalRun", caller.namespace, run_name) if run_name else None
        shard = shard_access(caller, pod, job, run)
        assert run is not None
        return shard, run

    async def answer(self, token: str | None) -> tuple[Shard, dict[str, Any]]:
        """Who calls, whether they may, and their shard's cases (or :class:`Refused`)."""
        shard, run = await self.caller_shard(token)
        snapshot = (run.get("status") or {}).get("snapshot") or {}
        cases = await self.pinned(shard.run, snapshot)
        return shard, {
            "run": f"{shard.run.namespace}/{shard.run.name}",
            "shard": shard.name,
            "digest": snapshot.get("digest"),
            "cases": shard_cases(cases, shard.index, shard.count),
        }

    async def pinned(self, run: RunRef, snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The run's pinned cases from the operator's namespace, checked against the digest the
        operator wrote into the run's status."""
        ns, parts = self.rt.config.store_namespace, []
        for name in snapshot.get("configMaps") or []:
            cm = await self.rt.call(self.rt.kube.get_configmap_or_none, ns, name)
            if cm is None:
                raise Refused(403, f"EvalRun {run.name}'s pinned cases are gone (ConfigMap {ns}/{name})")
            parts.append(configmap_blob(cm, SNAPSHOT_KEY))
        try:
            raw = decode_cases(parts)
            same = content_digest(parse_cases(raw, where=f"EvalRun {run.name}")) == snapshot.get("digest")
        except ValueError as e:
            raise Refused(403, f"EvalRun {run.name}'s pinned cases cannot be read: {e}") from None
        if not same:
            raise Refused(403, f"EvalRun {run.name}'s pinned cases are not the digest in its status")
        return raw


def _sans(host: str) -> list[str]:
    return list(dict.fromkeys([host, "127.0.0.1", "localhost"]))


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _bound_port(runner: web.AppRunner) -> int:
    for address in runner.addresses:
        return int(address[1])
    raise RuntimeError("the case server is not listening")
