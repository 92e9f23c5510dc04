"""What can go wrong when asking the judge, as one exception tree.

::

    JudgeError                  anything the judge could not give us; ``reason`` is safe to show
    ├── JudgeUnavailable        no answer: connection errors, timeouts, or 408 / 409 / 429 / 5xx
    │                           until the attempts ran out, or a Retry-After longer than we wait
    ├── JudgeRejected           the endpoint refused the request with another 4xx (401 bad key,
    │                           404 unknown model, 400 bad payload): retrying cannot help
    └── JudgeMalformed          a 2xx answer we cannot use: not a chat completion, no content, not
                                JSON, a missing or ill-typed field, a value out of range

Every one of them turns a judged dimension into a *skipped* one whose reason is ``reason``,
never into a zero. Messages are built by Proctor from redacted text: no API key, no
``Authorization`` header, no credentials in a URL ever reach ``str()``, ``repr()``, a traceback or
a log line. Exceptions raised by httpx are never chained (``raise ... from None``) because their
``request`` carries the headers.
"""

from __future__ import annotations


class JudgeError(Exception):
    """The judge gave no usable judgment. ``reason`` says why, in words fit for a result."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r})"


class JudgeUnavailable(JudgeError):
    """No answer after ``attempts`` attempts (connection, timeout, 408/409/429/5xx), or the
    provider asked us to come back later than we are willing to wait."""

    def __init__(
        self,
        reason: str,
        *,
        attempts: int = 0,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(reason)
        self.attempts = attempts
        self.status_code = status_code
        self.retry_after = retry_after


class JudgeRejected(JudgeError):
    """The endpoint refused the request with a 4xx that retrying cannot fix (never retried)."""

    def __init__(self, reason: str, *, status_code: int, about_response_format: bool = False) -> None:
        super().__init__(reason)
        self.status_code = status_code
        #: The refusal names ``response_format``: the endpoint does not accept structured output.
        self.about_response_format = about_response_format


class JudgeMalformed(JudgeError):
    """A 2xx answer that is not a usable judgment (not JSON, missing fields, out of range)."""
