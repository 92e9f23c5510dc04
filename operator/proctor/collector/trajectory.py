"""A run's trajectory: its turns and tool calls, read from GenAI spans and native events.

What is read from spans (the OpenTelemetry GenAI semantic conventions are in development, so both
the current and the older names are read):

- the operation: ``gen_ai.operation.name`` (``chat``, ``invoke_agent``, ``execute_tool``...), else
  the span name's first word;
- messages, current conventions: ``gen_ai.system_instructions``, ``gen_ai.input.messages`` and
  ``gen_ai.output.messages`` (JSON arrays of ``{role, parts: [{type: text, content} | {type:
  tool_call, id, name, arguments} | {type: tool_call_response, id, response}]}``), on the span or
  on a ``gen_ai.client.inference.operation.details`` event;
- messages, older conventions: span events ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message``, ``gen_ai.tool.message`` and ``gen_ai.choice`` (``content`` /
  ``message`` / ``tool_calls`` attributes), ``gen_ai.content.prompt`` / ``gen_ai.content.completion``
  events (``gen_ai.prompt`` / ``gen_ai.completion``), and the flattened
  ``gen_ai.prompt.N.role|content`` / ``gen_ai.completion.N.role|content`` attributes;
- tool executions: ``execute_tool`` spans with ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``; the span status says whether it failed.

A chat span repeats the conversation so far in its input, so a message is taken once, where it
first appears. Native events (``POST /v1/events``) are steps as they are.

The typed signals (:class:`Signals`) need no model: tool error rate from span status, repeated
identical tool calls (loop detection), latency, and abstention (the final answer declines).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from proctor.api import Assertion
from proctor.graders import CaseContext, compile_assertion
from proctor.store import EventRecord, SpanRecord, Trajectory

#: OTLP's Status.code for an error.
STATUS_ERROR: Final = 2
#: A transcript longer than this is cut in the middle (the judge sees its start and its end).
MAX_TRANSCRIPT_CHARS: Final = 200_000
#: Identical tool calls (same tool, same arguments) within one user turn from this many on suggest a loop.
LOOP_REPEATS: Final = 3


class StepKind(StrEnum):
    """What one step of a trajectory is (the native events' ``kind``)."""

    INPUT = "input"
    OUTPUT = "output"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    FINAL = "final"


@dataclass(frozen=True, slots=True)
class Step:
    """One step: who said or did what, when (seconds since the epoch), and whether it failed."""

    kind: StepKind
    text: str
    at: float
    name: str | None = None
    call_id: str | None = None
    role: str | None = None
    error: bool = False
    source: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "text": self.text, "at": self.at}
        for key, value in (("name", self.name), ("callId", self.call_id), ("role", self.role)):
            if value is not None:
                out[key] = value
        if self.error:
            out["error"] = True
        out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True)
class Signals:
    """Typed trajectory signals, computed without a model."""

    steps: int
    turns: int
    tool_calls: int
    tool_errors: int
    tool_error_rate: float | None
    max_identical_tool_calls: int
    loop_suspected: bool
    span_errors: int
    latency_seconds: float | None
    abstained: bool | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "turns": self.turns,
            "toolCalls": self.tool_calls,
            "toolErrors": self.tool_errors,
            "toolErrorRate": self.tool_error_rate,
            "maxIdenticalToolCalls": self.max_identical_tool_calls,
            "loopSuspected": self.loop_suspected,
            "spanErrors": self.span_errors,
            "latencySeconds": self.latency_seconds,
            "abstained": self.abstained,
        }


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _json(value: Any) -> Any:
    """A JSON document given as text (the conventions send messages as JSON strings), else as is."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("[", "{"):
            try:
                return json.loads(stripped)
            except ValueError:
                return value
    return value


_ROLE_KIND: Final = {"system": StepKind.INPUT, "user": StepKind.INPUT, "developer": StepKind.INPUT}


def _message_steps(message: Any, at: float, source: str, *, output: bool) -> list[Step]:
    """Steps of one chat message in either convention (parts, or content + tool_calls)."""
    if isinstance(message, str):
        return [Step(StepKind.OUTPUT if output else StepKind.INPUT, message, at, source=source)]
    if not isinstance(message, Mapping):
        return []
    role = str(message.get("role") or ("assistant" if output else "user"))
    steps: list[Step] = []
    parts = message.get("parts")
    if isinstance(parts, list):
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind == "tool_call":
                steps.append(
                    Step(
                        StepKind.TOOL_CALL,
                        _text(part.get("arguments")),
                        at,
                        name=_opt(part.get("name")),
                        call_id=_opt(part.get("id")),
                        role=role,
                        source=source,
                    )
                )
            elif kind == "tool_call_response":
                steps.append(
                    Step(
                        StepKind.TOOL_RESULT,
                        _text(part.get("response") or part.get("result")),
                        at,
                        call_id=_opt(part.get("id")),
                        role=role,
                        source=source,
                    )
                )
            elif part.get("content") is not None:
                steps.append(_said(role, _text(part.get("content")), at, source, output))
        return steps
    content = message.get("content")
    if isinstance(content, list):  # OpenAI-style content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    if role == "tool":
        steps.append(
            Step(
                StepKind.TOOL_RESULT,
                _text(content),
                at,
                call_id=_opt(message.get("id") or message.get("tool_call_id")),
                role=role,
                source=source,
            )
        )
        return steps
    if content not in (None, ""):
        steps.append(_said(role, _text(content), at, source, output))
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping):
            inner = call.get("function")
            fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else call
            steps.append(
                Step(
                    StepKind.TOOL_CALL,
                    _text(fn.get("arguments")),
                    at,
                    name=_opt(fn.get("name")),
                    call_id=_opt(call.get("id")),
                    role=role,
                    source=source,
                )
            )
    return steps


def _said(role: str, text: str, at: float, source: str, output: bool) -> Step:
    kind = _ROLE_KIND.get(role, StepKind.OUTPUT if output or role == "assistant" else StepKind.INPUT)
    return Step(kind, text, at, role=role, source=source)


def _opt(value: Any) -> str | None:
    return None if value is None else str(value)


def _messages(value: Any) -> list[Any]:
    doc = _json(value)
    if isinstance(doc, list):
        return doc
    if isinstance(doc, Mapping):
        return [doc]
    if isinstance(doc, str) and doc:
        return [doc]
    return []


def _flattened(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``gen_ai.prompt.0.role`` / ``gen_ai.prompt.0.content``... as messages, in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix + "."):
            continue
        index, _, field = key[len(prefix) + 1 :].partition(".")
        if index.isdigit() and field in ("role", "content"):
            found.setdefault(int(index), {})[field] = value
    return [found[i] for i in sorted(found)]


def operation(span: SpanRecord) -> str:
    """The GenAI operation of a span (``gen_ai.operation.name``, else the span name's first word)."""
    if span.operation:
        return span.operation
    return span.name.split(" ", 1)[0] if span.name else ""


def _span_steps(span: SpanRecord) -> list[Step]:
    attrs = span.attributes
    start, end = span.start_ns / 1e9, (span.end_ns or span.start_ns) / 1e9
    src = f"span:{span.span_id}"
    op = operation(span)
    steps: list[Step] = []
    if op == "execute_tool":
        name = _opt(attrs.get("gen_ai.tool.name"))
        call_id = _opt(attrs.get("gen_ai.tool.call.id"))
        args = attrs.get("gen_ai.tool.call.arguments")
        steps.append(
            Step(
                StepKind.TOOL_CALL,
                _text(_json(args)) if args is not None else "",
                start,
                name=name,
                call_id=call_id,
                source=src,
            )
        )
        result = attrs.get("gen_ai.tool.call.result")
        failed = span.status_code == STATUS_ERROR
        text = _text(_json(result)) if result is not None else (span.status_message or "")
        steps.append(
            Step(StepKind.TOOL_RESULT, text, end, name=name, call_id=call_id, error=failed, source=src)
        )
        return steps
    system = attrs.get("gen_ai.system_instructions")
    if system is not None:
        for item in _messages(system):
            text = _text(item.get("content")) if isinstance(item, Mapping) else _text(item)
            steps.append(Step(StepKind.INPUT, text, start, role="system", source=src))
    for m in _messages(attrs.get("gen_ai.input.messages")) + _flattened(attrs, "gen_ai.prompt"):
        steps += _message_steps(m, start, src, output=False)
    for ev in span.events:
        name = str(ev.get("name", ""))
        ev_attrs = ev.get("attributes") or {}
        at = (ev.get("timeUnixNano") or span.start_ns) / 1e9
        if name == "gen_ai.client.inference.operation.details":
            for m in _messages(ev_attrs.get("gen_ai.input.messages")):
                steps += _message_steps(m, at, src, output=False)
            for m in _messages(ev_attrs.get("gen_ai.output.messages")):
                steps += _message_steps(m, at, src, output=True)
        elif name in (
            "gen_ai.system.message",
            "gen_ai.user.message",
            "gen_ai.assistant.message",
            "gen_ai.tool.message",
        ):
            role = name.split(".")[1]
            message = (
                dict(_json(ev_attrs.get("message")) or {})
                if isinstance(_json(ev_attrs.get("message")), Mapping)
                else {}
            )
            message.setdefault("role", role)
            for key in ("content", "tool_calls", "id"):
                if key in ev_attrs and key not in message:
                    message[key] = _json(ev_attrs[key])
            if "gen_ai.event.content" in ev_attrs:
                message.setdefault("content", ev_attrs["gen_ai.event.content"])
            steps += _message_steps(message, at, src, output=role == "assistant")
        elif name == "gen_ai.choice":
            message = _json(ev_attrs.get("message"))
            if not isinstance(message, Mapping):
                message = {
                    "role": "assistant",
                    "content": ev_attrs.get("content"),
                    "tool_calls": _json(ev_attrs.get("tool_calls")),
                }
            steps += _message_steps(message, at, src, output=True)
        elif name == "gen_ai.content.prompt":
            for m in _messages(ev_attrs.get("gen_ai.prompt")):
                steps += _message_steps(m, at, src, output=False)
        elif name == "gen_ai.content.completion":
            for m in _messages(ev_attrs.get("gen_ai.completion")):
                steps += _message_steps(m, at, src, output=True)
    for m in _messages(attrs.get("gen_ai.output.messages")) + _flattened(attrs, "gen_ai.completion"):
        steps += _message_steps(m, end, src, output=True)
    return steps


def _event_steps(ev: EventRecord) -> list[Step]:
    kind = StepKind(ev.kind)
    role = _opt(ev.attributes.get("proctor.role")) or ("user" if kind is StepKind.INPUT else None)
    call_id = _opt(ev.attributes.get("proctor.call_id"))
    return [
        Step(
            kind,
            ev.text,
            ev.timestamp,
            name=ev.name,
            call_id=call_id,
            role=role,
            error=ev.status == "error",
            source=f"event:{ev.id}",
        )
    ]


def steps_of(trajectory: Trajectory) -> list[Step]:
    """Every step of the run in time order, each message once (where it first appeared)."""
    raw: list[Step] = []
    for span in trajectory.spans:
        raw += _span_steps(span)
    for ev in trajectory.events:
        raw += _event_steps(ev)
    raw.sort(key=lambda s: s.at)
    seen: set[tuple[Any, ...]] = set()
    out: list[Step] = []
    for step in raw:
        if step.kind in (StepKind.INPUT, StepKind.OUTPUT):
            key: tuple[Any, ...] = (step.kind, step.role, step.text)
        else:  # a tool call and its result are identified by the call id when there is one
            key = (
                (step.kind, step.call_id, step.name, step.text)
                if step.call_id
                else (step.source, step.kind, step.name, step.text)
            )
        if key in seen:
            continue
        seen.add(key)
        out.append(step)
    # the last agent output is the final answer when no final event says otherwise
    return out


def final_answer(steps: Sequence[Step]) -> str | None:
    """The run's final answer: the last ``final`` step, else the last output."""
    for kind in (StepKind.FINAL, StepKind.OUTPUT):
        for step in reversed(steps):
            if step.kind is kind and step.text.strip():
                return step.text
    return None


def _line(step: Step) -> str:
    if step.kind is StepKind.INPUT:
        return f"[{step.role or 'user'}] {step.text}"
    if step.kind is StepKind.OUTPUT:
        return f"[assistant] {step.text}"
    if step.kind is StepKind.TOOL_CALL:
        return f"[tool call {step.name or '?'}] {step.text}"
    if step.kind is StepKind.TOOL_RESULT:
        return (
            f"[tool result {step.name or step.call_id or '?'}{' (error)' if step.error else ''}] {step.text}"
        )
    return f"[final answer] {step.text}"


def _cut(text: str, limit: int = MAX_TRANSCRIPT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n\u2026[{len(text) - limit} characters of the run left out]\u2026\n{text[-half:]}"


def transcript(steps: Iterable[Step]) -> tuple[str, str]:
    """What the judge sees: the run's inputs (system and user turns) as the question, and everything
    the agent did (outputs, tool calls, tool results, the final answer), in order, as the answer.
    The safety scan reads the same answer: every output and every tool result."""
    inputs: list[str] = []
    actions: list[str] = []
    for step in steps:
        (inputs if step.kind is StepKind.INPUT else actions).append(_line(step))
    return _cut("\n".join(inputs)), _cut("\n".join(actions))


#: Abstention is the graders' own refusal check (one definition of declining, arm A's and B's).
_REFUSAL = compile_assertion(Assertion.model_validate({"type": "refusal"}))


def _most_identical_calls_in_a_turn(steps: Sequence[Step]) -> int:
    """The most times one tool was called with the same arguments between two user turns.

    A loop is the agent repeating itself without new input; an agent that looks the same
    reference up once per question (``oil_bands {}`` for each of three questions) is not one, so
    the count starts again at each user (non-system) input."""
    worst = 0
    identical: Counter[tuple[str | None, str]] = Counter()
    for step in steps:
        if step.kind is StepKind.INPUT and step.role != "system":
            identical.clear()
        elif step.kind is StepKind.TOOL_CALL:
            key = (step.name, step.text)
            identical[key] += 1
            worst = max(worst, identical[key])
    return worst


def signals(trajectory: Trajectory, steps: Sequence[Step]) -> Signals:
    """The typed signals of a run (see the module docstring)."""
    calls = [s for s in steps if s.kind is StepKind.TOOL_CALL]
    results = [s for s in steps if s.kind is StepKind.TOOL_RESULT]
    executed = max(len(calls), len(results))
    errors = sum(1 for s in results if s.error)
    worst = _most_identical_calls_in_a_turn(steps)
    span_errors = sum(1 for s in trajectory.spans if s.status_code == STATUS_ERROR)
    times = [s.start_ns / 1e9 for s in trajectory.spans] + [
        s.end_ns / 1e9 for s in trajectory.spans if s.end_ns
    ]
    times += [e.timestamp for e in trajectory.events]
    final = final_answer(steps)
    abstained = None
    if final is not None:
        check = _REFUSAL.check(final, CaseContext())
        abstained = check.passed  # None when the grader cannot read the answer's language
    return Signals(
        steps=len(steps),
        turns=sum(1 for s in steps if s.kind is StepKind.INPUT and s.role != "system"),
        tool_calls=executed,
        tool_errors=errors,
        tool_error_rate=(errors / executed) if executed else None,
        max_identical_tool_calls=worst,
        loop_suspected=worst >= LOOP_REPEATS,
        span_errors=span_errors,
        latency_seconds=(max(times) - min(times)) if times else None,
        abstained=abstained,
    )
