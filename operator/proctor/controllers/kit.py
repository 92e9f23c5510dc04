"""What every handler module shares: the runtime on Kopf's memo, and posting an outcome's Events."""

from __future__ import annotations

from typing import Any, cast

import kopf

from proctor.reconcile.runtime import Outcome, Runtime


def runtime(memo: kopf.Memo) -> Runtime:
    """The runtime startup put on the memo (:func:`proctor.controllers.operator.startup`)."""
    rt: Runtime = memo["runtime"]
    return rt


def post(outcome: Outcome) -> None:
    """Say each decision as a Kubernetes Event on the object it concerns."""
    for e in outcome.events:
        kopf.event(cast(Any, e.about.body()), type=e.type, reason=e.reason, message=e.message)
