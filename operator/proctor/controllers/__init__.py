"""proctor.controllers: Kopf, and only Kopf.

Decorators register handlers; a handler reads the event into the names it needs, calls the kind's
reconciler in :mod:`proctor.reconcile`, posts the Events it returns and schedules the next look.
Startup (:mod:`.operator`) tunes Kopf and builds the :class:`~proctor.reconcile.runtime.Runtime` on
``memo``; cleanup closes it. The admission webhook's handlers are in :mod:`.webhook` (the decision
itself is :func:`proctor.gate.admission.admit`).
"""
