"""proctor.judge: the independent model that scores judged dimensions.

- :class:`JudgeClient` (``client``) talks to any OpenAI-compatible chat endpoint (httpx, injectable
  transport): retries only what can get better, honours Retry-After, and never lets the API key out;
  its concurrency is an :class:`AdaptiveLimit` (``limit``) that backs off under sustained 429s.
- :func:`judge_dimension` / :func:`judge_dimensions` (``consensus``) score dimensions with consensus
  near the threshold; a judge that gives no valid answer makes a *skipped* dimension with a reason,
  never a zero.
- :func:`build_prompt` wraps everything evaluated in fresh boundary markers (spotlighting);
  :func:`parse_judgment` reads the answer leniently and validates it strictly.
- :func:`resolve_dimensions` turns a profile (base five + domain, custom rubrics) into the
  dimensions to judge; :func:`provenance` and :func:`policy_digest` make ``sha256:`` versions.

The exception tree is documented in :mod:`proctor.judge.errors`::

    JudgeError
    ├── JudgeUnavailable   (connection, timeout, 408/409/429/5xx after the attempts; long Retry-After)
    ├── JudgeRejected      (any other 4xx; never retried)
    └── JudgeMalformed     (a 2xx answer that is not a usable judgment)

A scripted local judge server for tests and benchmarks lives in :mod:`proctor.testing.judgeserver`.
"""

from proctor.api import policy_digest
from proctor.judge.client import (
    DEFAULT_API_KEY_ENV,
    JudgeClient,
    JudgeSettings,
    JudgeStats,
    redact,
    retry_after,
)
from proctor.judge.consensus import judge_dimension, judge_dimensions
from proctor.judge.errors import JudgeError, JudgeMalformed, JudgeRejected, JudgeUnavailable
from proctor.judge.limit import AdaptiveLimit
from proctor.judge.prompts import (
    PROMPT_VERSION,
    RESPONSE_FORMAT,
    Boundary,
    ContextDocument,
    JudgeInput,
    JudgePrompt,
    Judgment,
    build_prompt,
    neutralise,
    parse_judgment,
    provenance,
)
from proctor.judge.rubrics import (
    BASE_DIMENSIONS,
    BUILTIN_RUBRICS,
    DEFAULT_THRESHOLD,
    PROFILES,
    DimensionRubric,
    resolve_dimensions,
    rubric_of,
)

__all__ = [
    "BASE_DIMENSIONS",
    "BUILTIN_RUBRICS",
    "DEFAULT_API_KEY_ENV",
    "DEFAULT_THRESHOLD",
    "PROFILES",
    "PROMPT_VERSION",
    "RESPONSE_FORMAT",
    "AdaptiveLimit",
    "Boundary",
    "ContextDocument",
    "DimensionRubric",
    "JudgeClient",
    "JudgeError",
    "JudgeInput",
    "JudgeMalformed",
    "JudgePrompt",
    "JudgeRejected",
    "JudgeSettings",
    "JudgeStats",
    "JudgeUnavailable",
    "Judgment",
    "build_prompt",
    "judge_dimension",
    "judge_dimensions",
    "neutralise",
    "parse_judgment",
    "policy_digest",
    "provenance",
    "redact",
    "resolve_dimensions",
    "retry_after",
    "rubric_of",
]
