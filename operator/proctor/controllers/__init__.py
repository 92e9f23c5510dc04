"""proctor.controllers: Kopf, and only Kopf.

Decorators register handlers; a handler reads the event into the names it needs, calls the kind's
reconciler in :mod:`proctor.reconcile`, posts the Events it returns and schedules the next look.
Startup (:mod:`.operator`) tunes Kopf and builds the :class:`~proctor.reconcile.runtime.Runtime` on
``memo``; cleanup closes it. The admission webhook is not Kopf's: its server has a thread and a
loop of its own (:mod:`proctor.gate.server`), which :mod:`.webhook` starts (the decision itself
is :func:`proctor.gate.admission.admit`).
"""
