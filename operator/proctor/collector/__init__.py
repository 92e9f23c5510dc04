"""proctor.collector: arm B's service (``proctor collector``).

One process serves OTLP/HTTP traces (``POST /v1/traces``, protobuf and JSON, gzip) and native
events (``POST /v1/events``), stores them in :mod:`proctor.store`, drives each run's lifecycle and
judges it, once quiet, with its AgentMonitor's EvalProfile through the judge Job's own code path
(:func:`proctor.judge.examine.examine_answer`), and serves the runs API (``/api/v1/runs``,
``/openapi.json``) and ``/metrics``.

Entry points: :func:`add_arguments` and :func:`serve` (the ``proctor collector`` verb),
:func:`main` (``python -m proctor.collector``); :class:`CollectorClient`, :func:`runs_json` and
:func:`runs_table` (the ``proctor runs`` verbs).
"""

from proctor.collector.client import CollectorClient, CollectorError, runs_json, runs_table
from proctor.collector.server import add_arguments, main, run, serve
from proctor.collector.views import SUMMARY_KEYS, run_summary

__all__ = [
    "SUMMARY_KEYS",
    "CollectorClient",
    "CollectorError",
    "add_arguments",
    "main",
    "run",
    "run_summary",
    "runs_json",
    "runs_table",
    "serve",
]
