"""What every handler module shares: the runtime on Kopf's memo, and posting an outcome's Events."""

from __future__ import annotations

import kopf
import structlog

from proctor.reconcile.runtime import Outcome, Runtime
from proctor.reconcile.scope import refusal

log = structlog.get_logger("proctor.operator")
_told: set[str] = set()


def runtime(memo: kopf.Memo) -> Runtime:
    """The runtime startup put on the memo (:func:`proctor.controllers.operator.startup`)."""
    rt: Runtime = memo["runtime"]
    return rt


async def post(rt: Runtime, outcome: Outcome) -> None:
    """Say each decision as a Kubernetes Event on the object it concerns (a decision's Event once:
    its name is the decision's, see :class:`proctor.reconcile.runtime.Event`)."""
    await rt.post(outcome.events)


def refused_here(rt: Runtime, namespace: str | None, what: str) -> bool:
    """Whether the operator must not act in ``namespace`` (:func:`proctor.reconcile.scope.refusal`):
    then it does nothing there, and says why in its log once per namespace."""
    why = refusal(namespace, rt.config.own_namespace)
    if why is not None and f"{namespace}" not in _told:
        _told.add(f"{namespace}")
        log.warning("not acting in this namespace", namespace=namespace, object=what, reason=why)
    return why is not None
