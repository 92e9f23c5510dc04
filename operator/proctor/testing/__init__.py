"""proctor.testing: what tests may use, Proctor's own and yours.

- :mod:`.judgeserver`: a scripted, local, OpenAI-compatible judge (real HTTP; good answers,
  malformed ones, 429s with Retry-After, hangs), for tests and benchmarks.
- :mod:`.cluster`: a real Kubernetes API server for tests and benchmarks (the local control plane,
  or the cluster in ``KUBECONFIG``) with ``kubectl`` and API clients.

Nothing in the operator imports this package.
"""
