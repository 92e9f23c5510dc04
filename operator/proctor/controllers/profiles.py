"""EvalProfile handlers: validated when applied, changed or resumed."""

from __future__ import annotations

from typing import Any

import kopf

from proctor.api import GROUP, VERSION, EvalProfile
from proctor.controllers.kit import post, runtime
from proctor.reconcile.profiles import reconcile_profile


@kopf.on.resume(GROUP, VERSION, EvalProfile.PLURAL, id="profile-resume")
@kopf.on.create(GROUP, VERSION, EvalProfile.PLURAL, id="profile-create")
@kopf.on.update(GROUP, VERSION, EvalProfile.PLURAL, id="profile-update")
async def on_profile(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
    post(await reconcile_profile(runtime(memo), body))
