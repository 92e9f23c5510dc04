"""The admission webhook's server: a thread and an asyncio loop of its own, so no reconcile delays
an answer.

The decision takes microseconds (:func:`proctor.gate.webhook.review`); served on the operator's
one event loop (as Kopf serves admission), every AdmissionReview waited behind the reconciles
running there, and its tail was theirs (``bench/webhook_latency.py``, P6). Here aiohttp serves
AdmissionReview v1 on its own loop in its own thread, and nothing a request does waits for the
operator's loop: what the webhook knows of the policies is a snapshot in memory
(:class:`Policies`, which the GatePolicy watch replaces whole on every change), the one API call a
decision may need (a break-glass's SubjectAccessReview) runs in this server's own thread pool, and
a break-glass is handed to ``on_break_glass`` (the operator posts its Events on its own loop, after
the answer).

Three paths, those the MutatingWebhookConfiguration names
(:func:`proctor.k8s.objects.mutating_webhook_configuration`): ``/proctor-gate`` (gated Deployments),
``/proctor-pods`` (ReplicaSets, their scale, and Pods: :mod:`proctor.gate.pods`) and
``/proctor-probe`` (the operator's own dry-run probe of a GatePolicy, answered by echoing its nonce:
how it knows the API server really calls this webhook). A body that is not an AdmissionReview v1
gets HTTP 400 with the reason; a request the gate cannot decide (a fault of ours, or a read the
API server refused) is refused (fail closed) with code 500, and the server goes on.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import datetime as dt
import hashlib
import json
import ssl
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import structlog
from aiohttp import web

from proctor.api import GatePolicy, ManifestError, ObjectMeta, parse_policy
from proctor.gate.admission import Admission, GateEntry, admission_patch, wants_break_glass
from proctor.gate.certs import WebhookCerts, server_context
from proctor.gate.webhook import review, review_workload
from proctor.k8s.kube import Kube, KubeError
from proctor.k8s.objects import (
    PODS_HANDLER_ID,
    PROBE_ANSWER_ANNOTATION,
    PROBE_HANDLER_ID,
    PROBE_LABEL,
    WEBHOOK_HANDLER_ID,
)

log = structlog.get_logger("proctor.gate.webhook")

ADMISSION_V1 = "admission.k8s.io/v1"
#: Largest request body: an UPDATE carries the object twice, each up to etcd's 1.5 MiB.
MAX_BODY = 8 * 1024 * 1024
#: How often the certificate files are looked at (a rotated Secret is served without a restart).
CERT_CHECK_SECONDS = 60.0
#: Longest wait for requests in flight when the server stops.
SHUTDOWN_SECONDS = 2.0


class Policies:
    """What the webhook knows of each policy, by (namespace, name): a read-only mapping replaced
    whole on every change, so a reader on another thread sees one version or the next, never half
    of one, and never waits for a writer."""

    def __init__(self) -> None:
        self._by: Mapping[tuple[str | None, str], GateEntry] = MappingProxyType({})
        self._lock = threading.Lock()

    def read_policy(self, raw: Mapping[str, Any]) -> GatePolicy | None:
        """A GatePolicy as it was listed (:func:`proctor.gate.setup.prime`) or watched
        (:func:`proctor.controllers.gates.on_policy_event`), parsed here into the API model: the one
        edge both read through, so the two never disagree. One the model refuses is forgotten, so its
        Deployments are held (a policy the webhook does not know holds: fail closed) until it is fixed;
        its reconcile says why in an Event (:func:`proctor.reconcile.gates.invalid_policy`)."""
        try:
            policy = parse_policy({"kind": GatePolicy.KIND, **raw})  # a list's items may leave it out
        except ManifestError as e:
            meta = ObjectMeta.of(raw)
            log.error(
                "policy invalid: its Deployments are held",
                policy=f"{meta.namespace}/{meta.name}",
                error=str(e)[:300],
            )
            self.drop(meta.namespace, meta.name or "")
            return None
        self.update(policy)
        return policy

    def update(self, policy: GatePolicy) -> None:
        """A policy the API model accepted, as the webhook will decide by it."""
        key, entry = (policy.metadata.namespace, policy.metadata.name or ""), GateEntry.of(policy)
        with self._lock:
            self._by = MappingProxyType({**self._by, key: entry})

    def drop(self, namespace: str | None, name: str) -> None:
        """The policy is gone: its label no longer names a policy the webhook knows (held)."""
        with self._lock:
            if (namespace, name) in self._by:
                self._by = MappingProxyType({k: v for k, v in self._by.items() if k != (namespace, name)})

    def entries(self, namespace: str | None, name: str | None) -> tuple[GateEntry, ...]:
        """The policy's entry, if known (what :func:`proctor.gate.admission.request_of` asks)."""
        entry = self._by.get((namespace, name or ""))
        return (entry,) if entry is not None else ()


_ABSENT = object()


def _pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _no_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    return value


def json_patch(obj: Mapping[str, Any], merge: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The JSONPatch (RFC 6902) that does to ``obj`` what the merge patch ``merge`` (RFC 7386) does:
    a webhook may answer only with a JSONPatch. A value already there is no operation; a missing
    parent is added whole; ``None`` removes (if present)."""
    ops: list[dict[str, Any]] = []

    def walk(base: Any, patch: Mapping[str, Any], path: str) -> None:
        for key, value in patch.items():
            where = f"{path}/{_pointer(str(key))}"
            here = base.get(key, _ABSENT) if isinstance(base, Mapping) else _ABSENT
            if value is None:
                if here is not _ABSENT:
                    ops.append({"op": "remove", "path": where})
            elif isinstance(value, Mapping) and isinstance(here, Mapping):
                walk(here, value, where)
            elif here is _ABSENT:
                ops.append({"op": "add", "path": where, "value": _no_nulls(value)})
            elif here != _no_nulls(value):
                ops.append({"op": "replace", "path": where, "value": _no_nulls(value)})

    walk(obj, merge, "")
    return ops


class MalformedReview(ValueError):
    """The body is not an AdmissionReview v1 request this webhook can answer (HTTP 400)."""


@dataclass(frozen=True, slots=True)
class Review:
    """One AdmissionReview request, as the handlers read it."""

    uid: str
    object: Mapping[str, Any]
    old: Mapping[str, Any] | None
    userinfo: Mapping[str, Any]
    dry_run: bool = False
    #: what is written: ``resource`` (plural) and ``sub_resource`` ("scale"), in ``namespace``
    resource: str = ""
    sub_resource: str = ""
    namespace: str = ""


def review_of(body: Any) -> Review:
    """The request of an AdmissionReview v1, or :class:`MalformedReview` saying what is wrong."""
    if not isinstance(body, Mapping):
        raise MalformedReview("the body is not a JSON object")
    if body.get("apiVersion") != ADMISSION_V1 or body.get("kind") != "AdmissionReview":
        raise MalformedReview(
            f"expected an AdmissionReview {ADMISSION_V1}, got {str(body.get('kind'))[:50]} "
            f"{str(body.get('apiVersion'))[:50]}"
        )
    req = body.get("request")
    if not isinstance(req, Mapping):
        raise MalformedReview("the AdmissionReview has no request")
    uid, new, old, user = req.get("uid"), req.get("object"), req.get("oldObject"), req.get("userInfo")
    if not isinstance(uid, str) or not uid:
        raise MalformedReview("request.uid is missing")
    if not isinstance(new, Mapping):
        raise MalformedReview("request.object is missing (only CREATE and UPDATE are reviewed)")
    if old is not None and not isinstance(old, Mapping):
        raise MalformedReview("request.oldObject is not an object")
    if not isinstance(user, Mapping):
        raise MalformedReview("request.userInfo is missing")
    resource = req.get("resource")
    resource = resource if isinstance(resource, Mapping) else {}
    return Review(
        uid,
        new,
        old,
        user,
        dry_run=req.get("dryRun") is True,
        resource=str(resource.get("resource") or ""),
        sub_resource=str(req.get("subResource") or ""),
        namespace=str(req.get("namespace") or ""),
    )


@dataclass(frozen=True, slots=True)
class Answer:
    """What a handler answers: allowed with a merge patch of the object and warnings, or refused
    with a code and the reason."""

    allowed: bool = True
    patch: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    code: int = 403
    message: str = ""


def response(r: Review, answer: Answer) -> dict[str, Any]:
    """The AdmissionReview v1 response the API server expects."""
    out: dict[str, Any] = {"uid": r.uid, "allowed": answer.allowed}
    if not answer.allowed:
        out["status"] = {"code": answer.code, "message": answer.message}
    if answer.warnings:
        out["warnings"] = list(answer.warnings)
    if answer.allowed and (ops := json_patch(r.object, answer.patch)):
        out["patchType"] = "JSONPatch"
        out["patch"] = base64.b64encode(json.dumps(ops).encode()).decode("ascii")
    return {"apiVersion": ADMISSION_V1, "kind": "AdmissionReview", "response": out}


def probe(r: Review) -> Answer:
    """The operator's dry-run probe (a GatePolicy patch adding the probe label): echo its nonce."""
    nonce = ((r.object.get("metadata") or {}).get("labels") or {}).get(PROBE_LABEL)
    return Answer(patch={"metadata": {"annotations": {PROBE_ANSWER_ANNOTATION: nonce}}} if nonce else {})


Handler = Callable[[Review], Awaitable[Answer]]


def undecided(cause: str) -> str:
    """A refusal the gate could not decide (fail closed), naming Proctor and where to look."""
    why = f" ({cause[:300]})" if cause else ""
    return (
        f"the Proctor gate could not decide this request{why}, so it is refused (fail closed): see the "
        "Proctor operator's log and its RBAC (the chart's ClusterRoles); with the operator removed, delete "
        "the MutatingWebhookConfiguration it left"
    )


class AdmissionServer:
    """The webhook's HTTPS server on a thread of its own (:meth:`start` returns once it listens,
    :meth:`stop` once it is gone)."""

    def __init__(
        self,
        addr: str,
        port: int,
        certs: WebhookCerts,
        *,
        kube: Kube,
        policies: Policies,
        identity: str | None,
        clock: Callable[[], dt.datetime],
        on_break_glass: Callable[[Mapping[str, Any], Admission], None],
    ) -> None:
        self.addr, self.port, self.certs = addr, port, certs
        self.kube, self.policies, self.identity, self.clock = kube, policies, identity, clock
        self.on_break_glass = on_break_glass
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=4, thread_name_prefix="proctor-webhook-sar"
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopped: asyncio.Event | None = None

    def decide(self, r: Review) -> Admission:
        """The gate's decision (:func:`proctor.gate.webhook.review`) from the policies' snapshot."""
        return review(
            self.kube, r.object, r.old, r.userinfo, operator=self.identity, entries=self.policies.entries
        )

    async def gate(self, r: Review) -> Answer:
        """A gated Deployment: the gate's decision as a patch, a warning or a refusal. Only a
        break-glass asks the API server (its SubjectAccessReview, in this server's pool)."""
        if wants_break_glass(r.old, r.object):
            decision = await asyncio.get_running_loop().run_in_executor(self._pool, self.decide, r)
        else:
            decision = self.decide(r)
        if not decision.allowed:
            return Answer(allowed=False, code=403, message=decision.message)
        if decision.break_glass is not None and not r.dry_run:
            self.on_break_glass(r.object, decision)
        warnings = (decision.message,) if decision.changes and decision.message else ()
        return Answer(patch=admission_patch(decision, self.clock()), warnings=warnings)

    def decide_workload(self, r: Review) -> Admission:
        """A ReplicaSet or Pod of a gated workload (:func:`proctor.gate.webhook.review_workload`)."""
        return review_workload(
            self.kube,
            resource=r.resource,
            sub_resource=r.sub_resource,
            namespace=r.namespace,
            new=r.object,
            old=r.old,
            user=str(r.userinfo.get("username", "")),
            entries=self.policies.entries,
        )

    async def workload(self, r: Review) -> Answer:
        """What makes pods: admitted or refused, never changed. Its reads of the API server run in
        this server's pool, so an answer never waits behind another request's."""
        loop = asyncio.get_running_loop()
        decision = await loop.run_in_executor(self._pool, self.decide_workload, r)
        if not decision.allowed:
            why = decision.message[:300]
            log.info("pods of an unapproved template refused", namespace=r.namespace, why=why)
            return Answer(allowed=False, code=403, message=decision.message)
        return Answer()

    async def _probe(self, r: Review) -> Answer:
        return probe(r)

    async def _serve(self, request: web.Request, handler: Handler) -> web.Response:
        try:
            r = review_of(json.loads(await request.read()))
        except (ValueError, MalformedReview) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            return web.Response(status=400, text=f"not an AdmissionReview {ADMISSION_V1} request: {e}\n")
        try:
            answer = await handler(r)
        except KubeError as e:
            log.error("admission request not decided: refused", path=request.path, error=str(e)[:300])
            answer = Answer(allowed=False, code=500, message=undecided(str(e)))
        except Exception:
            log.exception("admission request not decided: refused", path=request.path, uid=r.uid)
            answer = Answer(allowed=False, code=500, message=undecided(""))
        return web.json_response(response(r, answer))

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)

        async def gate(request: web.Request) -> web.Response:
            return await self._serve(request, self.gate)

        async def probe_(request: web.Request) -> web.Response:
            return await self._serve(request, self._probe)

        async def workload(request: web.Request) -> web.Response:
            return await self._serve(request, self.workload)

        app.router.add_post(f"/{WEBHOOK_HANDLER_ID}", gate)
        app.router.add_post(f"/{PROBE_HANDLER_ID}", probe_)
        app.router.add_post(f"/{PODS_HANDLER_ID}", workload)
        return app

    def start(self, timeout: float = 30.0) -> None:
        """Listen (on its own thread); raises what kept it from listening (a port in use, bad files)."""
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="proctor-webhook", daemon=True)
        self._thread.start()
        ready.result(timeout)

    def _run(self, ready: concurrent.futures.Future[None]) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main(ready))
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _main(self, ready: concurrent.futures.Future[None]) -> None:
        self._stopped = asyncio.Event()
        runner = web.AppRunner(
            self._app(), handle_signals=False, access_log=None, shutdown_timeout=SHUTDOWN_SECONDS
        )
        try:
            context = server_context(self.certs)
            await runner.setup()
            await web.TCPSite(runner, self.addr, self.port, ssl_context=context, reuse_address=True).start()
        except BaseException as e:
            await runner.cleanup()
            ready.set_exception(e)
            return
        ready.set_result(None)
        try:
            await self._reload_certs_until_stopped(context)
        finally:
            await runner.cleanup()

    async def _reload_certs_until_stopped(self, context: ssl.SSLContext) -> None:
        """Until :meth:`stop`: a changed certificate or key (a rotated Secret) is loaded for the
        connections that follow."""
        assert self._stopped is not None
        seen = _digest(self.certs)
        while True:
            try:
                await asyncio.wait_for(self._stopped.wait(), CERT_CHECK_SECONDS)
                return
            except TimeoutError:
                pass
            now = _digest(self.certs)
            if now != seen:
                try:
                    context.load_cert_chain(self.certs.certfile, self.certs.keyfile)
                    seen = now
                    log.info("webhook certificate reloaded", certfile=str(self.certs.certfile))
                except (OSError, ssl.SSLError) as e:  # half-written: the next look tries again
                    log.warning("webhook certificate not reloaded", error=str(e)[:300])

    def stop(self) -> None:
        """Stop serving (requests in flight get up to ``SHUTDOWN_SECONDS``) and end the thread."""
        loop, stopped, thread = self._loop, self._stopped, self._thread
        if loop is not None and stopped is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(stopped.set)
            thread.join(SHUTDOWN_SECONDS + 10)
        self._pool.shutdown(wait=False, cancel_futures=True)


def _digest(certs: WebhookCerts) -> str:
    h = hashlib.sha256()
    for path in (certs.certfile, certs.keyfile):
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()
