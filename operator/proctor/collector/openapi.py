"""The OpenAPI 3.1 document the collector serves at ``/openapi.json`` (written out, not generated:
the API is small and its words matter)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from proctor import __version__
from proctor.api import MONITOR_ROUTE
from proctor.collector.events import schema as events_schema
from proctor.protocol import MAX_ATTEMPTS, RUN_STATES

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
        "state": {"enum": [state.value for state in RUN_STATES]},
        "attempts": {
            "type": "integer",
            "description": f"Evaluation attempts of the current round (at most {MAX_ATTEMPTS}).",
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


_MONITOR_PATH: list[dict[str, Any]] = [
    {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
]
_REVISION: dict[str, Any] = {
    "name": "revision",
    "in": "query",
    "required": True,
    "schema": {"type": "string", "maxLength": 255},
    "description": "The agent revision: its service.version (also matches VERSION@HASH), VERSION@HASH, "
    "or @HASH (a pod-template hash).",
}
_VERDICT: dict[str, Any] = {
    "type": "object",
    "required": ["verdict", "runs", "breached", "reason", "message"],
    "properties": {
        "verdict": {"enum": ["PASS", "FAIL", "INCONCLUSIVE", "ERROR"]},
        "reason": {
            "enum": [
                "SafetyBreached",
                "OverTolerance",
                "NeedsHuman",
                "Unmeasurable",
                "TooFewRuns",
                "WithinTolerance",
            ]
        },
        "message": {"type": "string"},
        "monitor": {"type": "string"},
        "revision": {"type": "string"},
        "runs": {
            "type": "integer",
            "description": "Runs of the revision judged (Evaluated, PartiallyEvaluated).",
        },
        "breached": {"type": "integer", "description": "Of those, runs with a score under its threshold."},
        "safetyBreached": {"type": "integer"},
        "failed": {"type": "integer", "description": "Runs whose evaluation failed."},
        "pending": {"type": "integer", "description": "Runs not judged yet."},
        "notSampled": {"type": "integer"},
        "dimensions": {"type": "object", "description": "Per dimension: breached judged runs."},
        "minRuns": {"type": "integer"},
        "maxBreachedPercent": {"type": "number"},
        "needsHuman": {"type": "boolean"},
    },
}


_GATE_REFUSED: dict[str, Any] = {
    "409": {
        "description": "FAIL or INCONCLUSIVE: do not advance.",
        "content": {"application/json": {"schema": _VERDICT}},
    }
}


def _responses(ok: str, schema: dict[str, Any], *codes: int) -> dict[str, Any]:
    words = {
        400: "Bad input (nothing stored).",
        401: "No bearer token, or one nobody vouches for.",
        403: "The caller lacks the RBAC verb on the AgentMonitor.",
        404: "No such run or monitor.",
        409: "Decided already (or the monitor is no longer served).",
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


# --- incidents (armb-notify) ---

_INCIDENT = {
    "type": "object",
    "description": "An incident: a breach opened it, runs with the same signatures joined it. The first "
    "eight properties are the stable short form `proctor incidents list -o json` prints.",
    "required": ["id", "monitor", "state", "severity", "signatures", "revision", "openedAt", "runs"],
    "properties": {
        "id": {"type": "string"},
        "monitor": {"type": "string", "description": "namespace/name of the AgentMonitor."},
        "state": {"enum": ["open", "acknowledged", "resolved"]},
        "severity": {"enum": ["low", "medium", "high", "critical"]},
        "signatures": {"type": "array", "items": {"type": "string"}, "description": "e.g. breach:safety"},
        "revision": {"type": ["string", "null"]},
        "openedAt": {"type": "string", "format": "date-time"},
        "runs": {"type": "integer"},
        "cause": {
            "type": "object",
            "description": "Which revision, step (index, kind, source span) and tool; the trace ids.",
        },
        "recommendations": {
            "type": "array",
            "description": "From the closed catalogue (rollback, hold-canary, capture-cases, review-judge), "
            "each with its evidence and state (proposed, approved, dismissed).",
        },
    },
}


def _incident_paths() -> dict[str, Any]:
    one = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
    ref = {"$ref": "#/components/schemas/Incident"}
    return {
        "/api/v1/incidents": {
            "get": {
                "summary": "Incidents, newest first, of the monitors the caller may read (get/list).",
                "parameters": [
                    {
                        "name": "monitor",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "NS/NAME",
                    },
                    {"name": "namespace", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "state",
                        "in": "query",
                        "schema": {"enum": ["open", "acknowledged", "resolved"]},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 500}},
                ],
                "responses": _responses(
                    "200",
                    {"type": "object", "properties": {"incidents": {"type": "array", "items": ref}}},
                    400,
                    401,
                    403,
                    503,
                ),
            }
        },
        "/api/v1/incidents/{id}": {
            "get": {
                "summary": "One incident with its cause, runs and recommendations.",
                "parameters": one,
                "responses": _responses("200", ref, 401, 404, 503),
            }
        },
        "/api/v1/incidents/{id}/ack": {
            "post": {
                "summary": "Acknowledge an open incident (RBAC verb acknowledge on the agentmonitor).",
                "parameters": one,
                "responses": _responses("200", ref, 401, 403, 404, 503),
            }
        },
        "/api/v1/incidents/{id}/recommendations/{rec}/{decision}": {
            "post": {
                "summary": "Approve or dismiss a proposed recommendation (RBAC verb approve); the "
                "AgentMonitor's spec.actions may deny approving it whoever asks (403).",
                "parameters": [
                    *one,
                    {
                        "name": "rec",
                        "in": "path",
                        "required": True,
                        "schema": {"enum": ["rollback", "hold-canary", "capture-cases", "review-judge"]},
                    },
                    {
                        "name": "decision",
                        "in": "path",
                        "required": True,
                        "schema": {"enum": ["approve", "dismiss"]},
                    },
                ],
                "responses": _responses("200", ref, 401, 403, 404, 409, 503),
            }
        },
    }


def _action_paths() -> dict[str, Any]:
    """What the operator uses to perform approved recommendations, and the detector recompute."""
    rec = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
        {
            "name": "rec",
            "in": "path",
            "required": True,
            "schema": {"enum": ["rollback", "hold-canary", "capture-cases", "review-judge"]},
        },
    ]
    obj = {"type": "object"}
    return {
        "/api/v1/incidents/{id}/recommendations/{rec}/claim": {
            "post": {
                "summary": "The operator claims an approved recommendation (or one spec.actions Allows) "
                "before performing it (RBAC verb perform); 409 when it is not due. For capture-cases the "
                "answer carries the incident's runs as redacted candidate cases.",
                "parameters": rec,
                "responses": _responses("200", obj, 401, 403, 404, 409, 503),
            }
        },
        "/api/v1/incidents/{id}/recommendations/{rec}/performed": {
            "post": {
                "summary": 'What the operator did with a claimed recommendation: {"performed": true|false, '
                '"message": "..."} (RBAC verb perform).',
                "parameters": rec,
                "responses": _responses("200", obj, 400, 401, 403, 404, 503),
            }
        },
        MONITOR_ROUTE + "/recompute": {
            "post": {
                "summary": "Forget the monitor's detector state and rebuild it from the stored scores with "
                "its detector settings as they are now; decide again what each judged run breached under "
                "its thresholds and recount the revisions' verdicts (RBAC verb recompute).",
                "parameters": [
                    {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                ],
                "responses": _responses("200", obj, 401, 403, 404, 503),
            }
        },
    }


# --- arm C (feedback, judge quality, calibration, outcomes): collector/quality.py -----------------------

_NS_NAME = [
    {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
]


def _armc_responses(ok: str, *extra: int) -> dict[str, Any]:
    words = {
        400: "Bad input: the cause is said, nothing stored.",
        404: "No such run, dimension, profile or monitor.",
        409: "The dimension was not scored (skipped): nothing to review.",
        501: "An exam case whose judged score this collector cannot read yet.",
    }
    out = _responses("200", {"type": "object"}, 401, 403, 503)
    if ok != "200":
        out[ok] = out.pop("200")
    for code in extra:
        out[str(code)] = {"description": words[code]}
    return out


_ARMC_PATHS: dict[str, Any] = {
    "/api/v1/feedback": {
        "post": {
            "summary": "Review one judged score (RBAC verb review on the run's agentmonitor). The reviewer "
            "is the authenticated identity; a body naming one is refused. A later review by the same "
            "person supersedes the earlier in the figures; both are kept. route case-set captures a "
            "candidate case.",
            "requestBody": {
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["run", "dimension", "agree"],
                            "additionalProperties": False,
                            "properties": {
                                "run": {"type": "string", "description": "A run id, or NS/EVALRUN:CASE."},
                                "dimension": {"type": "string"},
                                "agree": {"type": "boolean"},
                                "score": {"type": "number", "minimum": 0, "maximum": 100},
                                "minutes": {"type": "number", "minimum": 0, "maximum": 1440},
                                "route": {"enum": ["memory", "decision", "policy", "case-set", "filter"]},
                                "reason": {"type": "string", "maxLength": 4000},
                            },
                        }
                    }
                }
            },
            "responses": _armc_responses("201", 400, 404, 409, 501),
        },
        "get": {
            "summary": "Reviews, newest first (superseded ones current: false): run=ID, profile=NS/NAME "
            "or monitor=NS/NAME.",
            "responses": _armc_responses("200", 400, 404),
        },
    },
    "/api/v1/feedback/cases": {
        "get": {
            "summary": "Candidate cases reviewers routed to the case set for profile=NS/NAME (RBAC get on "
            "evalprofiles): input, context, answer, dimension, tier, expectedScore, reason.",
            "responses": _armc_responses("200", 400),
        }
    },
    "/api/v1/judge-quality": {
        "get": {
            "summary": "Per dimension of profile=NS/NAME (RBAC get on evalprofiles): reviews, agreement, "
            "bias (judge minus human), from 20 reviews tp/fp/fn/tn (a positive is a breach), precision, "
            "recall, kappa, Wilson 95% intervals, agreement by 10-point band, provisional under 50; "
            "trusted (breach recall lower bound against recallFloor); the observed breach rate beside "
            "the Rogan-Gladen corrected rate.",
            "responses": _armc_responses("200", 400, 404),
        }
    },
    "/api/v1/runs/{id}/outcome": {
        "post": {
            "summary": "What became of the run's output: outcome accepted|modified|rejected|ignored, "
            "minutes 0-1440 (RBAC verb review).",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": _armc_responses("201", 400, 404),
        }
    },
    MONITOR_ROUTE + "/outcomes": {
        "get": {
            "summary": "Outcome metrics: acceptanceRate always beside minutesPerAccepted; ignored apart.",
            "parameters": _NS_NAME,
            "responses": _armc_responses("200", 404),
        }
    },
    MONITOR_ROUTE + "/calibration": {
        "get": {
            "summary": "Thresholds proposed from reviewed scores: the highest precision at recall=R "
            "(default 0.9), with the trade-off table.",
            "parameters": _NS_NAME,
            "responses": _armc_responses("200", 400, 404),
        }
    },
}


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
    MONITOR_ROUTE + "/rubric": {
        "get": {
            "summary": "What the monitor's runs are judged on: each dimension's rubric and breach "
            "threshold (RBAC verb get). The agent's get_rubric MCP tool.",
            "parameters": _MONITOR_PARAMS,
            "responses": {**_responses("200", {"type": "object"}, 401, 403, 404, 503), **_NO_PROFILE},
        }
    },
    MONITOR_ROUTE + "/patterns": {
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
    MONITOR_ROUTE + "/guidance": {
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
            "schemas": {
                "Score": _SCORE,
                "Run": _RUN,
                "Error": _ERROR,
                "NativeEvents": events_schema(),
                "Incident": _INCIDENT,
            },
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
            MONITOR_ROUTE: {
                "get": {
                    "summary": "A monitor's summary, what its status is written from: runs by state, per "
                    "dimension the latest score and both EWMAs, the consensus multiplier, revisions, and "
                    "detectors: the live series that breached or are degrading (Breached, Degrading).",
                    "parameters": [
                        {"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                    "responses": _responses("200", {"type": "object"}, 401, 403, 404, 503),
                }
            },
            **_incident_paths(),  # armb-notify
            **_action_paths(),  # armb-act
            # the live canary (armb-canary)
            MONITOR_ROUTE + "/verdict": {
                "get": {
                    "summary": "A revision's live verdict for a rollout controller (Argo Rollouts web "
                    "metric): PASS, FAIL or INCONCLUSIVE (too few runs judged, or a person is needed); "
                    "503 with verdict ERROR when nothing could be measured (the judge is down).",
                    "parameters": [*_MONITOR_PATH, _REVISION],
                    "responses": {
                        **_responses("200", _VERDICT, 400, 401, 403, 404),
                        "503": {
                            "description": "ERROR: the revision's runs could not be evaluated (or the "
                            "database is unavailable: then the body has no verdict).",
                            "content": {"application/json": {"schema": _VERDICT}},
                        },
                    },
                }
            },
            MONITOR_ROUTE + "/verdict/gate": {
                method: {
                    "summary": "The verdict as a gate: 200 only on PASS, 409 on FAIL or INCONCLUSIVE, 503 "
                    "ERROR (a Flagger webhook advances on 2xx). POST also reads the revision from a "
                    "Flagger payload's metadata.revision.",
                    "parameters": [*_MONITOR_PATH, {**_REVISION, "required": False}],
                    "responses": _responses("200", _VERDICT, 400, 401, 403, 404, 503) | _GATE_REFUSED,
                }
                for method in ("get", "post")
            },
            MONITOR_ROUTE + "/cases": {
                "get": {
                    "summary": "Breached runs as candidate cases, newest first, and the CaseSet holding "
                    "them (what proctor cases export writes); secrets the scan finds are redacted.",
                    "parameters": [
                        *_MONITOR_PATH,
                        {**_REVISION, "required": False},
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 500}},
                    ],
                    "responses": _responses("200", {"type": "object"}, 400, 401, 403, 404, 503),
                }
            },
            **_ARMC_PATHS,
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
