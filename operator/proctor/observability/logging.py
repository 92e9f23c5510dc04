"""structlog: JSON lines in a cluster (for log pipelines), readable lines on a terminal."""

from __future__ import annotations

import logging
import os
import sys

import structlog


def configure(*, json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """JSON when running in a pod (or PROCTOR_LOG_FORMAT=json), console otherwise.

    Stdlib logging (Kopf's own records) goes through the same renderer, so one stream has one format.
    """
    if json_logs is None:
        fmt = os.environ.get("PROCTOR_LOG_FORMAT")
        json_logs = fmt == "json" if fmt else "KUBERNETES_SERVICE_HOST" in os.environ
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json_logs
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=shared,
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
