"""What every handler module shares: the runtime on Kopf's memo, and posting an outcome's Events."""

from __future__ import annotations

import kopf

from proctor.reconcile.runtime import Outcome, Runtime


def runtime(memo: kopf.Memo) -> Runtime:
    """The runtime startup put on the memo (:func:`proctor.controllers.operator.startup`)."""
    rt: Runtime = memo["runtime"]
    return rt


async def post(rt: Runtime, outcome: Outcome) -> None:
    """Say each decision as a Kubernetes Event on the object it concerns (a decision's Event once:
    its name is the decision's, see :class:`proctor.reconcile.runtime.Event`)."""
    await rt.post(outcome.events)
