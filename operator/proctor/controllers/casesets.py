"""CaseSet handlers: resolved when applied, changed or resumed, and every minute (a changed ConfigMap
of casesFrom changes the digest)."""

from __future__ import annotations

from typing import Any

import kopf

from proctor.api import GROUP, VERSION, CaseSet
from proctor.controllers.kit import post, runtime
from proctor.reconcile.casesets import reconcile_caseset

RECHECK_SECONDS = 60.0


@kopf.on.resume(GROUP, VERSION, CaseSet.PLURAL, id="caseset-resume")
@kopf.on.create(GROUP, VERSION, CaseSet.PLURAL, id="caseset-create")
@kopf.on.update(GROUP, VERSION, CaseSet.PLURAL, id="caseset-update")
@kopf.timer(
    GROUP,
    VERSION,
    CaseSet.PLURAL,
    id="caseset-recheck",
    interval=RECHECK_SECONDS,
    initial_delay=RECHECK_SECONDS,
)
async def on_caseset(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
    post(await reconcile_caseset(runtime(memo), body))
