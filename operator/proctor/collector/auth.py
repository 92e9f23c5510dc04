"""Who may use the management API: a bearer token, checked locally or by the Kubernetes API server.

Ingestion tokens (``PROCTOR_TOKEN``, monitors' ``tokenSecretRef``) never open the management API:
what an agent holds to send spans must not read other agents' runs. Without a cluster
(:class:`LocalAuth`) the caller must present the management token ``PROCTOR_API_TOKEN`` (the
collector refuses to start when it equals ``PROCTOR_TOKEN``; without it the API is closed). In a
cluster (:class:`KubernetesAuth`) the token is a Kubernetes token issued for the collector's
audience (``proctor-collector``: ``kubectl create token SA --audience proctor-collector``, what the
operator and ``proctor runs --service-account`` request): a TokenReview for that audience says who
it is, and a SubjectAccessReview asks RBAC whether that identity may act on the AgentMonitor, so
Kubernetes RBAC decides who may read runs or ask for an evaluation::

    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [get, list]        # read the monitor's runs (list: every monitor of the namespace)
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [evaluate]         # "evaluate now" on its runs
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [acknowledge]      # acknowledge its incidents
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [approve]          # approve or dismiss its incidents' recommendations
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [perform]          # the operator: claim an approved recommendation, record what it did
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [recompute]        # rebuild the monitor's detector state from its stored scores
    - apiGroups: [proctor.dev]
      resources: [agentmonitors]
      verbs: [review]           # arm C: review a run's scores, report what became of its output
    - apiGroups: [proctor.dev]
      resources: [evalprofiles]
      verbs: [get]              # arm C: a profile's judge quality
    - apiGroups: [proctor.dev]
      resources: [evalruns]
      verbs: [review]           # arm C: review an exam case's scores (get: read those reviews)

No token or a token the API server does not accept: 401. A valid identity without the verb: 403.
Answers are cached for a few seconds (keyed by a hash of the token, never the token itself).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from kubernetes import client
from kubernetes.client.exceptions import ApiException

from proctor.api import COLLECTOR_AUDIENCE, GROUP

#: The RBAC verbs the management API checks, on resource agentmonitors.
READ_VERB: Final = "get"
LIST_VERB: Final = "list"
EVALUATE_VERB: Final = "evaluate"
ACKNOWLEDGE_VERB: Final = "acknowledge"
APPROVE_VERB: Final = "approve"
PERFORM_VERB: Final = "perform"
RECOMPUTE_VERB: Final = "recompute"
RESOURCE: Final = "agentmonitors"
#: How long a TokenReview or SubjectAccessReview answer is reused.
CACHE_SECONDS: Final = 10.0
_CACHE_SIZE: Final = 4096


class Unauthenticated(Exception):
    """No token, or one nobody vouches for (HTTP 401)."""


class AuthUnavailable(Exception):
    """The API server could not be asked (HTTP 503): never a reason to let a caller in."""


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated identity."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())


class Authorizer(Protocol):
    async def authenticate(self, token: str | None) -> Caller: ...

    async def allowed(
        self, caller: Caller, verb: str, namespace: str, name: str | None, *, resource: str = RESOURCE
    ) -> bool: ...


class LocalAuth:
    """The collector's management token (``PROCTOR_API_TOKEN``): whoever holds it may do everything.
    None: the management API is closed (every caller 401). Never an ingestion token."""

    def __init__(self, token: str | None, *, ingestion_token: str | None = None) -> None:
        if token is not None and not token.strip():
            token = None
        if token is not None and ingestion_token and hmac.compare_digest(token, ingestion_token):
            raise ValueError(
                "PROCTOR_API_TOKEN equals the ingestion token PROCTOR_TOKEN: every agent could read "
                "every run; give the management API a token of its own"
            )
        self._token = token.encode() if token is not None else None

    def __repr__(self) -> str:
        return "LocalAuth(token=[REDACTED])"

    async def authenticate(self, token: str | None) -> Caller:
        if self._token is None:
            raise Unauthenticated(
                "this collector's management API is closed: start it with PROCTOR_API_TOKEN set"
            )
        if not token or not hmac.compare_digest(token.encode(), self._token):
            raise Unauthenticated("a bearer token is required (the collector's PROCTOR_API_TOKEN)")
        return Caller("proctor-api-token")

    async def allowed(
        self, caller: Caller, verb: str, namespace: str, name: str | None, *, resource: str = RESOURCE
    ) -> bool:
        return True


class _TTLCache:
    def __init__(self) -> None:
        self._items: OrderedDict[Any, tuple[float, Any]] = OrderedDict()

    def get(self, key: Any, now: float) -> Any:
        hit = self._items.get(key)
        if hit is None or hit[0] < now:
            return None
        return hit[1]

    def put(self, key: Any, value: Any, now: float) -> None:
        self._items[key] = (now + CACHE_SECONDS, value)
        self._items.move_to_end(key)
        while len(self._items) > _CACHE_SIZE:
            self._items.popitem(last=False)


class KubernetesAuth:
    """TokenReview and SubjectAccessReview against the API server (the collector's service account
    needs ``create`` on tokenreviews and subjectaccessreviews: the ``system:auth-delegator`` role).

    ``audiences``: the token must be issued for one of them (default ``proctor-collector``); an
    empty list takes the API server's own audience (any token that works against the API server,
    a person's OIDC token included: then every caller hands the collector a token it could replay).
    """

    def __init__(self, api: client.ApiClient, *, audiences: Sequence[str] | None = None) -> None:
        self._authn = client.AuthenticationV1Api(api)
        self._authz = client.AuthorizationV1Api(api)
        wanted = [COLLECTOR_AUDIENCE] if audiences is None else [a for a in audiences if a]
        self._audiences = wanted or None
        self._tokens = _TTLCache()
        self._decisions = _TTLCache()

    async def authenticate(self, token: str | None) -> Caller:
        if not token:
            raise Unauthenticated("a bearer token is required (a Kubernetes token: kubectl create token ...)")
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        cached = self._tokens.get(key, now)
        if cached is None:
            cached = await asyncio.to_thread(self._review, token)
            self._tokens.put(key, cached, now)
        if isinstance(cached, str):
            raise Unauthenticated(cached)
        assert isinstance(cached, Caller)
        return cached

    def _review(self, token: str) -> Caller | str:
        spec = client.V1TokenReviewSpec(token=token, audiences=self._audiences)
        try:
            review = self._authn.create_token_review(client.V1TokenReview(spec=spec))
        except ApiException as e:
            raise AuthUnavailable(f"TokenReview failed: {e.status} {e.reason}") from None
        except Exception as e:  # the API server is unreachable
            raise AuthUnavailable(f"TokenReview failed: {type(e).__name__}") from None
        status = review.status
        if not status or not status.authenticated or status.user is None:
            wanted = f" for audience {', '.join(self._audiences)}" if self._audiences else ""
            return f"the token was not accepted by the Kubernetes API server{wanted}" + (
                f": {status.error}" if status and status.error else ""
            )
        user = status.user
        extra = tuple(sorted((k, tuple(v)) for k, v in (user.extra or {}).items()))
        return Caller(user.username or "", uid=user.uid or "", groups=tuple(user.groups or ()), extra=extra)

    async def allowed(
        self, caller: Caller, verb: str, namespace: str, name: str | None, *, resource: str = RESOURCE
    ) -> bool:
        key = (caller, verb, namespace, name, resource)
        now = time.monotonic()
        cached = self._decisions.get(key, now)
        if cached is None:
            cached = await asyncio.to_thread(self._access, caller, verb, namespace, name, resource)
            self._decisions.put(key, cached, now)
        return bool(cached)

    def _access(
        self, caller: Caller, verb: str, namespace: str, name: str | None, resource: str = RESOURCE
    ) -> bool:
        spec = client.V1SubjectAccessReviewSpec(
            user=caller.name,
            uid=caller.uid or None,
            groups=list(caller.groups) or None,
            extra={k: list(v) for k, v in caller.extra} or None,
            resource_attributes=client.V1ResourceAttributes(
                group=GROUP, resource=resource, verb=verb, namespace=namespace, name=name
            ),
        )
        try:
            review = self._authz.create_subject_access_review(client.V1SubjectAccessReview(spec=spec))
        except ApiException as e:
            raise AuthUnavailable(f"SubjectAccessReview failed: {e.status} {e.reason}") from None
        except Exception as e:
            raise AuthUnavailable(f"SubjectAccessReview failed: {type(e).__name__}") from None
        return bool(review.status and review.status.allowed)
