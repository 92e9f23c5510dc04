"""proctor.reconcile: gather -> evaluate -> write-if-changed, one module per kind.

Each reconciler reads its object and what it references through :class:`~proctor.k8s.kube.Kube`,
parses everything into the API models (:mod:`proctor.api`) at once, decides with pure functions
(:mod:`.plan`, :mod:`.evaluate`, :mod:`proctor.gate.actions`, :mod:`proctor.protocol`), acts (Jobs,
runs, Deployments), writes the desired status model through the one write-if-changed routine
(:func:`.status.write_status`) and returns an :class:`~.runtime.Outcome`: the Events to post and
whether to look again. Kopf lives in :mod:`proctor.controllers` only.

- :mod:`.runs`: EvalRun (judge Jobs, retries, the verdict).
- :mod:`.gates`: GatePolicy (gated Deployments, the canary, the circuit breaker).
- :mod:`.casesets`: CaseSet (resolution, digest, baseline freezing).
- :mod:`.profiles`: EvalProfile (resolved dimensions, provenance).
"""
