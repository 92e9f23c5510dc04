"""The OpenAPI 3.1 document the collector serves at ``/openapi.json`` (written out, not generated:
the API is small and its words matter)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from proctor import __version__
from proctor.collector.events import schema as events_schema

_SCORE = {
    "type": "object",
    "description": "A dimension's score, or why it was skipped (never a zero for a missing judgment).",
    "required": ["score", "skipped"],
    "properties": {
        "score": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
        "skipped": {"type": ["string", "null"], "description": "Why the dimension could not be scored."},
    },
}
_RUN = {
    "type": "object",
    "description": "A run: everything that shares one execution id under one AgentMonitor. The first five "
    "properties are the stable short form that `proctor runs list -o json` prints.",
    "required": ["id", "monitor", "state", "attempts", "scores"],
    "properties": {
        "id": {"type": "string"},
        "monitor": {"type": "string", "description": "namespace/name of the AgentMonitor."},
        "state": {
            "enum": [
                "Receiving",
                "Quiescing",
                "ReadyForEvaluation",
                "Evaluating",
                "Evaluated",
                "PartiallyEvaluated",
                "EvaluationFailed",
                "NotSampled",
            ]
        },
        "attempts": {
            "type": "integer",
            "description": "Evaluation attempts of the current round (at most 5).",
        },
        "scores": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Score"}},
        "key": {"type": "string", "description": "The execution id."},
        "keySource": {"type": "string", "description": "Which run-key attribute it came from."},
        "agent": {"type": "string"},
        "revision": {"type": ["string", "null"]},
        "sampled": {"type": "boolean"},
        "stale": {"type": "boolean", "description": "Events arrived after the stored evaluation began."},
        "breached": {"type": ["boolean", "null"]},
        "firstEventTime": {"type": "string", "format": "date-time"},
        "lastEventTime": {"type": "string", "format": "date-time"},
        "nextAttemptTime": {"type": ["string", "null"], "format": "date-time"},
        "lastError": {"type": ["string", "null"]},
        "spans": {"type": "integer"},
        "events": {"type": "integer"},
    },
}
_ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}


def _responses(ok: str, schema: dict[str, Any], *codes: int) -> dict[str, Any]:
    words = {
        400: "Bad input (nothing stored).",
        401: "No bearer token, or one nobody vouches for.",
        403: "The caller lacks the RBAC verb on the AgentMonitor.",
        404: "No such run or monitor.",
        413: "Body over the limit.",
        429: "The collector is behind: retry after Retry-After seconds.",
        503: "The database (or the API server) is unavailable: retry after Retry-After seconds.",
    }
    out: dict[str, Any] = {
        "200" if ok != "202" else "202": {
            "description": "OK",
            "content": {"application/json": {"schema": schema}},
        }
    }
    for code in codes:
        out[str(code)] = {
            "description": words[code],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    return out


# --- arm C, coaching (armc-mcp): the rubric, behaviour patterns, improvement guidance --------------

_MONITOR_PARAMS = [
    {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
]
_PATTERN = {
    "type": "object",
    "description": "A recurring way the agent falls short, with its ranking decomposed: "
    "score = recurrence x recencyWeight, recencyWeight = 0.5 ** (age of the latest occurrence / "
    "halfLifeSeconds).",
    "required": ["id", "dimension", "category", "reason", "state", "recurrence", "recencyWeight", "score"],
    "properties": {
        "id": {"type": "integer"},
        "monitor": {"type": "string"},
        "dimension": {"type": "string"},
        "category": {
            "type": "string",
            "description": "What the runs' signals say: loop, tool-errors, abstained or general.",
        },
        "reason": {"type": "string", "description": "The judge's words for the first failure of the group."},
        "state": {"enum": ["open", "resolved"]},
        "recurrence": {"type": "integer", "description": "Failures since the pattern was (re)opened."},
        "recencyWeight": {"type": "number", "minimum": 0, "maximum": 1},
        "score": {"type": "number"},
        "halfLifeSeconds": {"type": "number"},
        "lastSeen": {"type": "string", "format": "date-time"},
        "firstSeen": {"type": "string", "format": "date-time"},
        "openedAt": {"type": "string", "format": "date-time"},
        "occurrences": {"type": "integer", "description": "Failures in the pattern, ever."},
        "reopened": {"type": "integer", "description": "Times it recurred after it was resolved."},
        "resolvedAt": {"type": ["string", "null"], "format": "date-time"},
        "resolvedBy": {"type": ["string", "null"]},
        "resolution": {"type": ["string", "null"]},
        "groupedByMeaning": {"type": "boolean"},
        "evidence": {"type": "array", "items": {"type": "string"}, "description": "The latest run ids."},
    },
}
_NO_PROFILE = {
    "409": {
        "description": "The monitor has no EvalProfile to answer from.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
}
COACHING_PATHS: dict[str, Any] = {
    "/api/v1/monitors/{namespace}/{name}/rubric": {
        "get": {
            "summary": "What the monitor's runs are judged on: each dimension's rubric and breach "
            "threshold (RBAC verb get). The agent's get_rubric MCP tool.",
            "parameters": _MONITOR_PARAMS,
            "responses": {**_responses("200", {"type": "object"}, 401, 403, 404, 503), **_NO_PROFILE},
        }
    },
    "/api/v1/monitors/{namespace}/{name}/patterns": {
        "get": {
            "summary": "Behaviour patterns, ranked by recurrence x recency and shown decomposed (RBAC "
            "verb get). Failing scores stored since the last call are grouped first.",
            "parameters": [
                *_MONITOR_PARAMS,
                {"name": "state", "in": "query", "schema": {"enum": ["open", "resolved", "all"]}},
            ],
            "responses": _responses(
                "200",
                {
                    "type": "object",
                    "properties": {
                        "patterns": {"type": "array", "items": _PATTERN},
                        "halfLifeSeconds": {"type": "number"},
                        "grouping": {"type": "string", "description": "How failures were grouped."},
                        "pending": {"type": "boolean", "description": "More failures wait to be grouped."},
                    },
                },
                400,
                401,
                403,
                404,
                503,
            ),
        }
    },
    "/api/v1/monitors/{namespace}/{name}/guidance": {
        "get": {
            "summary": "Improvement guidance from the open patterns, most pressing first, each line "
            "with the run ids behind it (RBAC verb get). The agent's get_improvement_guidance MCP tool.",
            "parameters": _MONITOR_PARAMS,
            "responses": _responses("200", {"type": "object"}, 401, 403, 404, 503),
        }
    },
    "/api/v1/patterns/{id}/resolve": {
        "post": {
            "summary": "Mark a pattern resolved once its fix shipped (RBAC verb resolve on the "
            "monitor); a failure of its kind afterwards reopens it.",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "requestBody": {
                "required": False,
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "properties": {"note": {"type": "string"}}}
                    }
                },
            },
            "responses": _responses("200", {"type": "object"}, 400, 401, 403, 404, 503),
        }
    },
}


@cache
def _document() -> str:
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Proctor collector",
            "version": __version__,
            "description": "Arm B: OTLP/HTTP and native ingestion of a live agent's runs, and the runs API. "
            "Ingestion takes the monitor's own bearer token (spans reach only monitors whose token they "
            "carry) and never opens the management API, which checks the caller with TokenReview for the "
            "audience proctor-collector and SubjectAccessReview in a cluster (verbs get/list/evaluate on "
            "agentmonitors), or the collector's PROCTOR_API_TOKEN without one.",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Score": _SCORE, "Run": _RUN, "Error": _ERROR, "NativeEvents": events_schema()},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/traces": {
                "post": {
                    "summary": "OTLP/HTTP traces (ExportTraceServiceRequest), protobuf or JSON, gzip.",
                    "requestBody": {
                        "content": {"application/x-protobuf": {}, "application/json": {}},
                    },
                    "responses": {
                        "200": {"description": "Stored; partial_success names rejected spans and why."},
                        "400": {
                            "description": "Not an export request, or every span rejected (nothing stored)."
                        },
                        "401": {"description": "Missing or wrong bearer token."},
                        "413": {"description": "Body over the limit."},
                        "429": {"description": "Behind on writes: retry after Retry-After."},
                        "503": {"description": "Database down: nothing stored; retry after Retry-After."},
                    },
                }
            },
            "/v1/events": {
                "post": {
                    "summary": "Native events for agents without OpenTelemetry.",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/NativeEvents"}}
                        }
                    },
                    "responses": _responses(
                        "200",
                        {"type": "object", "properties": {"accepted": {"type": "integer"}}},
                        400,
                        401,
                        404,
                        413,
                        429,
                        503,
                    ),
                }
            },
            "/v1/events/schema": {
                "get": {
                    "summary": "The native event format's JSON Schema.",
                    "security": [],
                    "responses": {"200": {"description": "The schema."}},
                }
            },
            "/api/v1/runs": {
                "get": {
                    "summary": "Runs, newest first, with their current scores.",
                    "parameters": [
                        {
                            "name": "monitor",
                            "in": "query",
                            "schema": {"type": "string"},
                            "description": "namespace/name",
                        },
                        {"name": "namespace", "in": "query", "schema": {"type": "string"}},
                        {"name": "state", "in": "query", "schema": {"type": "string"}},
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {"type": "integer", "maximum": 500, "default": 100},
                        },
                        {
                            "name": "before",
                            "in": "query",
                            "schema": {"type": "string"},
                            "description": "The next page after this run id.",
                        },
                    ],
                    "responses": _responses(
                        "200",
                        {
                            "type": "object",
                            "properties": {
                                "runs": {"type": "array", "items": {"$ref": "#/components/schemas/Run"}},
                                "next": {"type": ["string", "null"]},
                            },
                        },
                        400,
                        401,
                        403,
                        404,
                        503,
                    ),
                }
            },
            "/api/v1/runs/{id}": {
                "get": {
                    "summary": "One run: its steps (turns, tool calls and results), scores with provenance, "
                    "evaluation attempts and signals.",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": _responses("200", {"$ref": "#/components/schemas/Run"}, 401, 403, 404, 503),
                }
            },
            "/api/v1/runs/{id}/evaluate": {
                "post": {
                    "summary": "Evaluate now: the run is ready for evaluation at once (RBAC verb evaluate).",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": _responses("202", {"$ref": "#/components/schemas/Run"}, 401, 403, 404, 503),
                }
            },
            "/api/v1/monitors/{namespace}/{name}": {
                "get": {
                    "summary": "A monitor's summary, what its status is written from: runs by state, per "
                    "dimension the latest score and both EWMAs, the consensus multiplier, revisions.",
                    "parameters": [
                        {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                    "responses": _responses("200", {"type": "object"}, 401, 403, 404, 503),
                }
            },
            **COACHING_PATHS,
            "/healthz": {
                "get": {"summary": "Liveness.", "security": [], "responses": {"200": {"description": "ok"}}}
            },
            "/readyz": {
                "get": {
                    "summary": "Readiness: the database answers.",
                    "security": [],
                    "responses": {"200": {"description": "ok"}, "503": {"description": "database down"}},
                }
            },
            "/metrics": {
                "get": {
                    "summary": "Prometheus metrics.",
                    "security": [],
                    "responses": {"200": {"description": "text exposition"}},
                }
            },
        },
    }
    return json.dumps(doc)


def document() -> dict[str, Any]:
    """The OpenAPI document (a fresh copy)."""
    loaded: dict[str, Any] = json.loads(_document())
    return loaded
