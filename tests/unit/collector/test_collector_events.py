"""Scores as OpenTelemetry gen_ai.evaluation.result events: the standard OTEL_* settings, and the
records (pure)."""

from __future__ import annotations

import pytest

from proctor.collector.export import (
    EVENT_NAME,
    EvaluatedRun,
    ExportConfigError,
    ExportSettings,
    evaluated_span,
    evaluation_records,
    export_request,
)
from proctor.store import ScoreRecord, SpanRecord


def test_off_unless_the_logs_exporter_is_otlp() -> None:
    assert ExportSettings.from_env({}) is None
    assert ExportSettings.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4318"}) is None
    assert ExportSettings.from_env({"OTEL_LOGS_EXPORTER": "none"}) is None


def test_the_standard_variables_say_where_and_how() -> None:
    s = ExportSettings.from_env(
        {
            "OTEL_LOGS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4318/",
            "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=abc%3D%3D,Authorization=Bearer%20t0k",
            "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_SERVICE_NAME": "proctor-prod",
            "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod,service.name=ignored",
        }
    )
    assert s is not None
    assert s.endpoint == "http://otel-collector:4318/v1/logs"
    assert s.headers == {"x-api-key": "abc==", "Authorization": "Bearer t0k"}
    assert (s.gzip, s.timeout) == (True, 2.5)
    assert s.resource["service.name"] == "proctor-prod" and s.resource["deployment.environment"] == "prod"
    assert "t0k" not in repr(s)
    logs = ExportSettings.from_env(
        {
            "OTEL_LOGS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://ignored:4318",
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://logs.example/otlp/v1/logs",
            "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "k=v",
        }
    )
    assert (
        logs is not None
        and logs.endpoint == "https://logs.example/otlp/v1/logs"
        and logs.headers == {"k": "v"}
    )


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({}, "OTEL_EXPORTER_OTLP_ENDPOINT"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "otel:4318"}, "http(s) URL"),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://o:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "http/protobuf",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://o:4318", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
            "gzip or none",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://o:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"},
            "milliseconds",
        ),
    ],
)
def test_settings_it_cannot_honour_are_refused(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ExportConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        ExportSettings.from_env({"OTEL_LOGS_EXPORTER": "otlp", **env})


def span(span_id: str, parent: str | None, operation: str | None, **attributes: str) -> SpanRecord:
    return SpanRecord(
        trace_id="0af7651916cd43dd8448eb211c80319c",
        span_id=span_id,
        parent_span_id=parent,
        name=operation or "x",
        start_ns=1,
        end_ns=2,
        operation=operation,
        attributes=attributes,
    )


def test_each_score_is_one_event_on_the_turn_it_judged() -> None:
    spans = (
        span("00f067aa0ba902b7", "1111111111111111", "chat"),
        span("b7ad6b7169203331", None, "invoke_agent", **{"gen_ai.conversation.id": "conv-9"}),
    )
    root = evaluated_span(spans)
    assert root is not None and root.span_id == "b7ad6b7169203331"
    assert evaluated_span(()) is None
    run = EvaluatedRun("r1", "team/oil-agent", "oil-agent", "1.1@abc", provenance="sha256:" + "0" * 64)
    scores = [
        ScoreRecord(
            "safety", 90.0, "safety-scan", score=0.0, rationale="safety scan: 1 finding: aws key AKIA****"
        ),
        ScoreRecord("task_success", 50.0, "judge", score=80.0, rationale="answers the question"),
        ScoreRecord("factual_grounding", 70.0, "judge", skipped_reason="judge answer was not JSON"),
    ]
    records = evaluation_records(run, scores, root, at=1_700_000_000.5)
    assert len(records) == 3
    by_name = {
        next(a.value.string_value for a in r.attributes if a.key == "gen_ai.evaluation.name"): {
            a.key: a.value for a in r.attributes
        }
        for r in records
    }
    for r in records:
        assert r.event_name == EVENT_NAME and r.severity_number == 9
        assert (
            r.trace_id.hex() == "0af7651916cd43dd8448eb211c80319c" and r.span_id.hex() == "b7ad6b7169203331"
        )
        assert r.time_unix_nano == 1_700_000_000_500_000_000
    safety = by_name["safety"]
    assert safety["gen_ai.evaluation.score.value"].double_value == 0.0
    assert safety["gen_ai.evaluation.score.label"].string_value == "fail"
    assert safety["proctor.evaluation.source"].string_value == "safety-scan"
    assert by_name["task_success"]["gen_ai.evaluation.score.label"].string_value == "pass"
    assert by_name["task_success"]["gen_ai.conversation.id"].string_value == "conv-9"
    skipped = by_name["factual_grounding"]
    assert "gen_ai.evaluation.score.value" not in skipped  # a skipped dimension is never a zero
    assert skipped["error.type"].string_value == "skipped"
    assert skipped["gen_ai.evaluation.explanation"].string_value == "judge answer was not JSON"
    assert skipped["proctor.revision"].string_value == "1.1@abc"
    request = export_request(records, {"service.name": "proctor-collector"})
    (rl,) = request.resource_logs
    assert rl.resource.attributes[0].value.string_value == "proctor-collector"
    assert rl.scope_logs[0].scope.name == "proctor.collector" and len(rl.scope_logs[0].log_records) == 3
