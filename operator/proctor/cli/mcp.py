"""``proctor mcp [--server URL] [--monitor NS/NAME] [--profile EVALPROFILE.yaml]``: the Model
Context Protocol server an agent starts (stdio), so it can align itself with what it is judged on.

Tools (the official ``mcp`` SDK, :class:`mcp.server.MCPServer`):

- ``get_rubric``: the dimensions, rubric text and breach thresholds the agent is judged on: the
  monitor's, from the collector; or, with ``--profile`` and no collector, that EvalProfile's alone
  (for an agent's own tests, nothing else needed);
- ``evaluate_run``: bring a run's evaluation forward (the collector's "evaluate now");
- ``get_improvement_guidance``: guidance from the monitor's open behaviour patterns, each line with
  the run ids behind it;
- ``apply_recommendation``: approve an incident's recommendation. The collector decides whether
  the caller may (the monitor's ``actions`` policy and RBAC); this server only forwards the call.

The collector is ``--server`` (default ``PROCTOR_SERVER``), the bearer token ``PROCTOR_API_TOKEN``
(like every client of the management API; never the ingestion token ``PROCTOR_TOKEN``), a private
CA ``PROCTOR_SERVER_CA``. ``--monitor`` is the monitor a tool call without one means. A failure is
an MCP tool error with the reason (the collector's status and message), never a traceback.

Exit codes: 0 the client closed stdin; 2 nothing could be served (no collector and no profile, a
profile that does not parse).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from proctor import __version__
from proctor.api import EvalProfile, ManifestError, iter_kind, load_manifests
from proctor.collector import CollectorClient, CollectorError
from proctor.collector.client import API_TOKEN_ENV, SERVER_CA_ENV, SERVER_ENV
from proctor.collector.coaching import rubric_document

PROG: Final = "proctor mcp"
EXIT_ERROR: Final = 2
#: What a monitor, run, incident or recommendation id may look like (checked before it is sent).
_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$")
T = TypeVar("T")
#: The tools' arguments, described for the agent that calls them.
MonitorArg = Annotated[
    str | None,
    Field(description="NAMESPACE/NAME of the AgentMonitor; default: the one proctor mcp was started for"),
]
RunArg = Annotated[str, Field(description="the run id (as proctor runs list shows it)")]
IncidentArg = Annotated[str, Field(description="the incident id")]
RecommendationArg = Annotated[
    str, Field(description="the recommendation: rollback, hold-canary, capture-cases or review-judge")
]

INSTRUCTIONS: Final = (
    "Proctor judges this agent's runs on the dimensions get_rubric lists: a score below a "
    "dimension's threshold breaches the run. get_improvement_guidance says where the agent has "
    "been falling short (with the runs that show it); evaluate_run asks for a run to be judged now; "
    "apply_recommendation approves an incident's recommendation where the monitor's policy lets the agent."
)


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The MCP server an agent starts over stdio: get_rubric, evaluate_run, "
        "get_improvement_guidance, apply_recommendation. Exit 2 when nothing can be served."
    )
    p.add_argument("--server", default=None, help=f"the collector's URL (default ${SERVER_ENV})")
    p.add_argument(
        "--monitor", metavar="NS/NAME", default=None, help="the AgentMonitor a tool call without one means"
    )
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="EVALPROFILE.yaml",
        help="serve this EvalProfile's rubric (without --server: the rubric alone, for an agent's own tests)",
    )
    p.add_argument(
        "--ca-file", default=None, help=f"PEM CA bundle for an https collector (default ${SERVER_CA_ENV})"
    )
    p.set_defaults(func=main)


class _Unservable(Exception):
    """Nothing can be served (exit 2 with the reason)."""


def load_profile(path: Path) -> EvalProfile:
    """The one EvalProfile in ``path``. Raises :class:`_Unservable` naming the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise _Unservable(f"cannot read {path}: {e.strerror}") from None
    try:
        profiles = iter_kind(load_manifests(text, source=str(path), ignore_other_kinds=True), EvalProfile)
    except ManifestError as e:
        raise _Unservable("; ".join(e.problems)) from None
    if len(profiles) != 1:
        raise _Unservable(f"{path}: expected one EvalProfile, found {len(profiles)}")
    return profiles[0]


def _monitor(given: str | None, default: str | None) -> tuple[str, str]:
    name = given or default
    if not name:
        raise ToolError("no monitor: pass monitor as NAMESPACE/NAME (or start proctor mcp with --monitor)")
    ns, _, rest = name.partition("/")
    if not rest or not _ID.match(ns) or not _ID.match(rest):
        raise ToolError(f"monitor must be NAMESPACE/NAME, not {name!r}")
    return ns, rest


def _id(value: str, what: str) -> str:
    if not _ID.match(value):
        raise ToolError(f"{what} {value!r} is not a valid id (letters, digits, '.', '_', ':', '-')")
    return value


def build_server(
    *,
    server: str | None = None,
    profile: EvalProfile | None = None,
    monitor: str | None = None,
    token: str | None = None,
    ca_file: str | None = None,
    transport: Any = None,
) -> MCPServer:
    """The MCP server. ``server`` None: no collector (``--profile`` alone serves its rubric, every
    other tool says it needs one). ``token`` None: ``PROCTOR_API_TOKEN``."""
    if server is not None:  # a CA bundle that cannot be read is said at start, not at the first call
        CollectorClient(server, token, ca_file=ca_file, transport=transport).close()
    open_clients: list[CollectorClient] = []

    @contextlib.asynccontextmanager
    async def session(_app: MCPServer) -> AsyncIterator[dict[str, Any]]:
        """One client of the collector per MCP session, closed when the session ends."""
        try:
            yield {}
        finally:
            while open_clients:
                open_clients.pop().close()

    # the SDK's own log goes to stderr (stdout is the protocol): warnings and errors only
    app = MCPServer(
        name="proctor", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING", lifespan=session
    )
    default_monitor = monitor

    def collector(tool: str) -> CollectorClient:
        if server is None:
            raise ToolError(
                f"{tool} needs a collector: start proctor mcp with --server URL (or {SERVER_ENV}) and "
                f"{API_TOKEN_ENV}"
            )
        if not open_clients:
            open_clients.append(CollectorClient(server, token, ca_file=ca_file, transport=transport))
        return open_clients[0]

    async def ask(call: Callable[[], T]) -> T:
        try:
            return await asyncio.to_thread(call)
        except CollectorError as e:
            if e.status == 0:
                raise ToolError(f"the collector could not be asked: {e.message}") from None
            raise ToolError(f"the collector refused ({e.status}): {e.message}") from None

    @app.tool(
        description="The dimensions this agent is judged on: each one's rubric (what 100, 50 and 0 mean) "
        "and its breach threshold (a score below it breaches the run)."
    )
    async def get_rubric(monitor: MonitorArg = None) -> dict[str, Any]:
        if server is None or (profile is not None and monitor is None and default_monitor is None):
            if profile is None:
                raise ToolError("no rubric to serve: start proctor mcp with --server URL or --profile FILE")
            return rubric_document(profile)
        ns, name = _monitor(monitor, default_monitor)
        c = collector("get_rubric")
        return await ask(lambda: c.rubric(ns, name))

    @app.tool(
        description="Judge a run now instead of after its quiet period (the collector's 'evaluate now')."
    )
    async def evaluate_run(run: RunArg) -> dict[str, Any]:
        c = collector("evaluate_run")
        run_id = _id(run, "run")
        view = await ask(lambda: c.evaluate(run_id))
        return {
            "run": view.get("id", run_id),
            "monitor": view.get("monitor"),
            "state": view.get("state"),
            "message": "evaluation requested: the collector judges the run at once",
        }

    @app.tool(
        description="Improvement guidance from the recurring ways this agent falls short (its open "
        "behaviour patterns, most pressing first), each line with the run ids it is drawn from."
    )
    async def get_improvement_guidance(monitor: MonitorArg = None) -> dict[str, Any]:
        c = collector("get_improvement_guidance")
        ns, name = _monitor(monitor, default_monitor)
        return await ask(lambda: c.guidance(ns, name))

    @app.tool(
        description="Approve an incident's recommendation (e.g. rollback, hold-canary, capture-cases, "
        "review-judge). The collector decides whether this agent may, by the monitor's actions policy."
    )
    async def apply_recommendation(
        incident: IncidentArg, recommendation: RecommendationArg
    ) -> dict[str, Any]:
        c = collector("apply_recommendation")
        inc, rec = _id(incident, "incident"), _id(recommendation, "recommendation")
        return await ask(lambda: c.approve_recommendation(inc, rec))

    return app


def main(args: argparse.Namespace) -> int:
    import os

    server = args.server or os.environ.get(SERVER_ENV) or None
    try:
        profile = load_profile(args.profile) if args.profile is not None else None
        if server is None and profile is None:
            raise _Unservable(f"nothing to serve: give --server URL (or set {SERVER_ENV}) or --profile FILE")
        app = build_server(server=server, profile=profile, monitor=args.monitor, ca_file=args.ca_file)
    except (_Unservable, CollectorError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    asyncio.run(app.run_stdio_async())
    return 0
