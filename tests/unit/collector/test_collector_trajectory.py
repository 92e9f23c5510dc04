"""Reading a run's trajectory from GenAI spans (current and older conventions) and native events."""

from __future__ import annotations

import json
from typing import Any

from proctor.collector.trajectory import StepKind, final_answer, signals, steps_of, transcript
from proctor.store import EventRecord, SpanRecord, Trajectory

T0 = 1_700_000_000_000_000_000


def span(
    i: int, op: str, attrs: dict[str, Any], *, status: int = 0, events: tuple[dict[str, Any], ...] = ()
) -> SpanRecord:
    return SpanRecord(
        trace_id="a" * 32,
        span_id=f"{i:016x}",
        name=f"{op} x",
        start_ns=T0 + i * 1_000_000_000,
        end_ns=T0 + i * 1_000_000_000 + 500_000_000,
        operation=op,
        status_code=status,
        attributes={"gen_ai.operation.name": op, **attrs},
        events=events,
    )


def msgs(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"role": r, "parts": [{"type": "text", "content": c}]} for r, c in pairs])


def test_current_conventions_messages_tool_calls_and_results() -> None:
    call = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "oil_bands", "arguments": {"engine": 2}}],
    }
    spans = (
        span(
            1,
            "chat",
            {
                "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Cite the AMM."}]),
                "gen_ai.input.messages": msgs(("user", "Is 0.30 qt/hr normal?")),
                "gen_ai.output.messages": json.dumps([call]),
            },
        ),
        span(
            2,
            "execute_tool",
            {
                "gen_ai.tool.name": "oil_bands",
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": '{"engine": 2}',
                "gen_ai.tool.call.result": "NORMAL below 0.30; ELEVATED from 0.30",
            },
        ),
        span(
            3,
            "chat",
            {
                # the conversation so far is repeated: every message is taken once
                "gen_ai.input.messages": msgs(("user", "Is 0.30 qt/hr normal?")),
                "gen_ai.output.messages": msgs(("assistant", "ELEVATED (AMM 72-00).")),
            },
        ),
    )
    steps = steps_of(Trajectory(spans, ()))
    kinds = [(s.kind, s.text) for s in steps]
    assert kinds[0] == (StepKind.INPUT, "Cite the AMM.") and steps[0].role == "system"
    assert [k for k, _ in kinds].count(StepKind.INPUT) == 2
    assert (StepKind.TOOL_RESULT, "NORMAL below 0.30; ELEVATED from 0.30") in kinds
    assert kinds[-1] == (StepKind.OUTPUT, "ELEVATED (AMM 72-00).")
    assert final_answer(steps) == "ELEVATED (AMM 72-00)."
    question, answer = transcript(steps)
    assert "[system] Cite the AMM." in question and "[user] Is 0.30 qt/hr normal?" in question
    assert "[tool call oil_bands]" in answer and "[tool result oil_bands]" in answer
    assert "Is 0.30" not in answer  # the user's words are the question, not the agent's answer


def test_older_conventions_span_events_and_flattened_attributes() -> None:
    events = (
        {"name": "gen_ai.system.message", "timeUnixNano": T0, "attributes": {"content": "Be brief."}},
        {"name": "gen_ai.user.message", "timeUnixNano": T0 + 1, "attributes": {"content": "Oil at 0.6?"}},
        {
            "name": "gen_ai.choice",
            "timeUnixNano": T0 + 2,
            "attributes": {"message": json.dumps({"role": "assistant", "content": "HIGH."})},
        },
    )
    old_events = span(1, "chat", {}, events=events)
    flattened = span(
        2,
        "chat",
        {
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "And 0.1?",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "NORMAL.",
        },
    )
    content_events = span(
        3,
        "chat",
        {},
        events=(
            {
                "name": "gen_ai.content.prompt",
                "timeUnixNano": T0 + 3_000_000_005,
                "attributes": {"gen_ai.prompt": json.dumps([{"role": "user", "content": "Last one?"}])},
            },
            {
                "name": "gen_ai.content.completion",
                "timeUnixNano": T0 + 3_000_000_006,
                "attributes": {"gen_ai.completion": "Done."},
            },
        ),
    )
    texts = [(s.kind, s.text) for s in steps_of(Trajectory((old_events, flattened, content_events), ()))]
    assert texts == [
        (StepKind.INPUT, "Be brief."),
        (StepKind.INPUT, "Oil at 0.6?"),
        (StepKind.OUTPUT, "HIGH."),
        (StepKind.INPUT, "And 0.1?"),
        (StepKind.OUTPUT, "NORMAL."),
        (StepKind.INPUT, "Last one?"),
        (StepKind.OUTPUT, "Done."),
    ]


def test_signals_tool_errors_loops_latency_and_abstention() -> None:
    tools = tuple(
        span(
            i,
            "execute_tool",
            {
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": f"c{i}",
                "gen_ai.tool.call.arguments": '{"q": "x"}',
            },
            status=2 if i < 3 else 0,
        )
        for i in range(1, 5)
    )
    answer = span(
        5,
        "chat",
        {
            "gen_ai.input.messages": msgs(("user", "What is the band?")),
            "gen_ai.output.messages": msgs(("assistant", "I cannot determine that from the data I have.")),
        },
    )
    sig = signals(Trajectory((*tools, answer), ()), steps_of(Trajectory((*tools, answer), ())))
    assert (sig.tool_calls, sig.tool_errors) == (4, 2) and sig.tool_error_rate == 0.5
    assert sig.max_identical_tool_calls == 4 and sig.loop_suspected
    assert sig.latency_seconds == 4.5 and sig.span_errors == 2
    assert sig.abstained is True and sig.turns == 1


def test_native_events_are_steps_and_a_final_event_is_the_answer() -> None:
    events = (
        EventRecord(id="1", kind="input", text="Hello", timestamp=10.0),
        EventRecord(id="2", kind="tool_call", text='{"q": 1}', timestamp=11.0, name="search"),
        EventRecord(id="3", kind="tool_result", text="boom", timestamp=12.0, name="search", status="error"),
        EventRecord(id="4", kind="output", text="thinking", timestamp=13.0),
        EventRecord(id="5", kind="final", text="The answer is 4.", timestamp=14.0),
    )
    steps = steps_of(Trajectory((), events))
    assert [s.kind for s in steps] == [
        StepKind.INPUT,
        StepKind.TOOL_CALL,
        StepKind.TOOL_RESULT,
        StepKind.OUTPUT,
        StepKind.FINAL,
    ]
    assert final_answer(steps) == "The answer is 4."
    sig = signals(Trajectory((), events), steps)
    assert sig.tool_error_rate == 1.0 and sig.latency_seconds == 4.0 and sig.abstained is False
    assert "[tool result search (error)] boom" in transcript(steps)[1]


def _turns(*turns: tuple[str, ...]) -> Trajectory:
    """A native-event run: each turn is a user question followed by the tool calls it made."""
    events: list[EventRecord] = []
    for question, *lookups in turns:
        events.append(
            EventRecord(id=str(len(events)), kind="input", text=question, timestamp=float(len(events)))
        )
        for arguments in lookups:
            events.append(
                EventRecord(
                    id=str(len(events)),
                    kind="tool_call",
                    text=arguments,
                    timestamp=float(len(events)),
                    name="oil_bands",
                )
            )
        events.append(
            EventRecord(id=str(len(events)), kind="output", text="NORMAL.", timestamp=float(len(events)))
        )
    return Trajectory((), tuple(events))


def test_the_same_lookup_once_per_question_is_no_loop() -> None:
    run = _turns(("Oil at 0.6?", "{}"), ("And 0.1?", "{}"), ("And 0.9?", "{}"), ("Last, 0.3?", "{}"))
    sig = signals(run, steps_of(run))
    assert sig.tool_calls == 4
    assert sig.max_identical_tool_calls == 1 and not sig.loop_suspected


def test_the_same_call_repeated_within_one_question_is_a_loop() -> None:
    run = _turns(("Oil at 0.6?", "{}"), ("And 0.1?", "{}", '{"x": 1}', "{}", "{}"))
    sig = signals(run, steps_of(run))
    assert sig.max_identical_tool_calls == 3 and sig.loop_suspected
