"""structlog: JSON lines in a cluster (for log pipelines), readable lines on a terminal.

Every line is bounded: a value (an API error quoting a whole object, say) is cut at
:data:`VALUE_CHARS` and a traceback at :data:`TRACEBACK_CHARS`, and tracebacks never print local
variables. A failing call about a 1 MB object must not write megabytes per attempt and stall the
operator while it does.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from collections.abc import MutableMapping
from types import TracebackType
from typing import Any, TextIO

import structlog

#: The longest value a log line carries, and the longest traceback.
VALUE_CHARS = 4096
TRACEBACK_CHARS = 16384


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters]"


def bounded(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A processor: every string value (the message too) cut to :data:`VALUE_CHARS`, the rendered
    exception to :data:`TRACEBACK_CHARS`."""
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = clip(value, TRACEBACK_CHARS if key == "exception" else VALUE_CHARS)
    return event


ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def bounded_traceback(sio: TextIO, exc_info: ExcInfo) -> None:
    """The console's traceback: plain (no local variables: they can hold whole objects), bounded."""
    buf = io.StringIO()
    structlog.dev.plain_traceback(buf, exc_info)
    sio.write("\n" + clip(buf.getvalue().lstrip("\n"), TRACEBACK_CHARS))


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
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty(), exception_formatter=bounded_traceback)
    )
    final: list[structlog.types.Processor] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if json_logs:
        final.append(structlog.processors.format_exc_info)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(processors=[*final, bounded, renderer], foreign_pre_chain=shared)
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
