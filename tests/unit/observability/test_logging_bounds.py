"""A failure about a huge object logs a bounded line: no multi-MB tracebacks, no local variables."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from proctor.observability import logging as plog


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def _fail_with_a_huge_object() -> None:
    body = {"spec": {"cases": ["x" * 1000] * 4000}}  # ~4 MB, as a CaseSet's body in a handler
    raise RuntimeError(f"patch failed: metadata.annotations: Too long: {json.dumps(body)}")


@pytest.mark.parametrize("json_logs", [False, True])
def test_a_failure_quoting_a_huge_object_is_logged_in_bounded_size(
    capsys: pytest.CaptureFixture[str], restore_logging: None, json_logs: bool
) -> None:
    plog.configure(json_logs=json_logs)
    try:
        _fail_with_a_huge_object()
    except RuntimeError:
        logging.getLogger("kopf.objects").exception("Handler failed with %s", "x" * 100_000)
        structlog.get_logger("proctor").exception("reconcile failed", body="y" * 100_000)
    err = capsys.readouterr().err
    assert len(err) < 3 * (plog.VALUE_CHARS + plog.TRACEBACK_CHARS) + 2000, len(err)
    assert "RuntimeError: patch failed" in err  # the cause is still there
    assert "more characters]" in err
    assert "body = {" not in err and "'body':" not in err  # no local variables


def test_clip_says_what_it_left_out() -> None:
    assert plog.clip("abc", 5) == "abc"
    assert plog.clip("abcdefgh", 3) == "abc... [5 more characters]"
