"""proctor.exam: the judge Job's process, one shard of an EvalRun examined inside the cluster.

It sits beside the collector's worker (both examine answers with :mod:`proctor.judge` and the
graders) and is the only room that does so by talking to the API server: :mod:`.runner` reads the
run, its pinned cases and its profile, and writes results and the shard's report; :mod:`.targets`
gets each answer (recorded, a live endpoint, or the candidate sidecar). ``proctor judge --run NS/NAME
--shard I/N`` (the Job's command) starts :func:`.runner.main`. The judge client itself
(:mod:`proctor.judge`) knows nothing of Kubernetes.
"""
