"""``proctor collector``: the receiver, the HTTP API and the evaluation worker in one process.

Entry points for the CLI: :func:`add_arguments` (the flags, on any argparse parser) and
:func:`serve` (run until SIGTERM/SIGINT; returns the exit code). ``python -m proctor.collector``
runs the same thing. Without ``--monitor`` it reads AgentMonitors from the cluster in
``KUBECONFIG`` (or the pod's service account) and checks management callers with TokenReview (for
the ``--audience``) and SubjectAccessReview, each monitor taking spans only with its own token;
with ``--monitor FILE --profile FILE`` it needs no cluster: agents send ``PROCTOR_TOKEN``, the
management API takes ``PROCTOR_API_TOKEN`` (never the other). ``--tls-cert``/``--tls-key`` serve
HTTPS.

Exit codes: 0 stopped by a signal, 2 bad arguments or files, the database or the cluster
unreachable at start (the message says which).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import functools
import gc
import os
import signal
import ssl
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, cast

import structlog
from aiohttp import web

from proctor.api import COLLECTOR_AUDIENCE, ManifestError
from proctor.collector.app import DEFAULT_MAX_BODY, Context, application
from proctor.collector.auth import Authorizer, KubernetesAuth, LocalAuth
from proctor.collector.client import API_TOKEN_ENV, INGEST_TOKEN_ENV
from proctor.collector.coaching import Coaching
from proctor.collector.evaluate import Evaluator
from proctor.collector.exams import ExamReader
from proctor.collector.export import EvaluationExporter, ExportSettings
from proctor.collector.incidents import IncidentEngine
from proctor.collector.ingest import DEFAULT_MAX_PENDING, Writer
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import Registry, load_files
from proctor.collector.notices import Sender, kube_events
from proctor.collector.redaction import Redactor
from proctor.collector.worker import DEFAULT_CONCURRENCY, DEFAULT_POLL_SECONDS, Worker, worker_id
from proctor.graders import warm_up, warm_up_languages
from proctor.k8s.objects import store_namespace
from proctor.protocol import DEFAULT_HALF_LIFE_SECONDS, DEFAULT_LEASE_SECONDS
from proctor.store import (
    SQLITE_SYNCHRONOUS,
    WAL_LIMIT_BYTES,
    Incidents,
    IngestResult,
    Item,
    Patterns,
    Store,
    StoreUnavailable,
    UnsupportedDatabase,
    normalise_url,
    synchronous_level,
)

log = structlog.get_logger("proctor.collector")

#: The environment variable holding the ingestion token of monitors read from files (not in a cluster).
TOKEN_ENV: Final = INGEST_TOKEN_ENV
#: OTLP/HTTP's registered port.
DEFAULT_LISTEN: Final = "127.0.0.1:4318"
#: Without a cluster: the key that signs notices to webhook sinks that have a signingSecretRef.
WEBHOOK_SECRET_ENV: Final = "PROCTOR_WEBHOOK_SECRET"
#: The environment variable giving ``--sqlite-synchronous`` its default (the Helm chart sets it).
SQLITE_SYNCHRONOUS_ENV: Final = "PROCTOR_SQLITE_SYNCHRONOUS"
#: Seconds between the event loop's stall measurements (see :func:`_loop_lag`).
LOOP_LAG_SECONDS: Final = 0.1
_MIB: Final = 1024 * 1024
#: Seconds between listings of AgentMonitors in a cluster.
DEFAULT_REFRESH_SECONDS: Final = 15.0


def default_db() -> str:
    """``sqlite:///`` in the user's data directory (``$XDG_DATA_HOME/proctor/collector.db``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'proctor' / 'collector.db'}"


def check_db(db: str | None) -> None:
    """A SQLite file given on the command line goes in a directory that exists: a typo in the path
    is an error here, not a directory tree made silently (as root, in a container). Only the
    default location is created (:func:`default_db`)."""
    if db is None:
        return
    normalise_url(db)  # a path where a URL belongs, an unknown database: said before anything starts
    if not db.startswith("sqlite:///"):
        return
    path = Path(db.removeprefix("sqlite:///").split("?", 1)[0]).expanduser()
    parent = path.parent if path.is_absolute() else (Path.cwd() / path).parent
    if not parent.is_dir():
        raise ValueError(
            f"--db {db}: the directory {parent} does not exist; create it first or choose another path"
        )


def _count(text: str) -> int:
    """An argparse type: a whole number of at least one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _synchronous(text: str) -> str:
    """An argparse type: one of SQLite's synchronous levels the collector allows."""
    try:
        return synchronous_level(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The collector's flags (``proctor collector`` and ``python -m proctor.collector``)."""
    parser.add_argument(
        "--db",
        default=os.environ.get("PROCTOR_DB") or None,
        help="database URL: sqlite:///PATH (default: ~/.local/share/proctor/collector.db) or postgresql://...",
    )
    parser.add_argument(
        "--listen", default=DEFAULT_LISTEN, help=f"HOST:PORT to serve on (default {DEFAULT_LISTEN})"
    )
    parser.add_argument(
        "--monitor",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="an AgentMonitor manifest: run without a cluster (repeatable; may hold the profile too)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="an EvalProfile manifest (repeatable)",
    )
    parser.add_argument(
        "-n",
        "--namespace",
        action="append",
        default=[],
        help="in a cluster: serve these namespaces only (repeatable)",
    )
    parser.add_argument(
        "--operator-namespace",
        default=store_namespace(os.environ),
        metavar="NS",
        help="in a cluster: the operator's namespace, where it keeps exam results reviewers review "
        "(default: $PROCTOR_STORE_NAMESPACE, else $POD_NAMESPACE, else proctor-system)",
    )
    parser.add_argument(
        "--concurrency", type=_count, default=DEFAULT_CONCURRENCY, help="runs judged at once by this replica"
    )
    parser.add_argument(
        "--poll",
        type=_seconds,
        default=DEFAULT_POLL_SECONDS,
        help="seconds between looks for runs due (default 1)",
    )
    parser.add_argument(
        "--lease",
        type=_seconds,
        default=DEFAULT_LEASE_SECONDS,
        help="seconds a claim on a run lasts unless renewed",
    )
    parser.add_argument(
        "--max-body", type=_count, default=DEFAULT_MAX_BODY, help="request body limit, bytes (decompressed)"
    )
    parser.add_argument(
        "--max-pending",
        type=_count,
        default=DEFAULT_MAX_PENDING,
        help="items waiting for a commit before 429",
    )
    parser.add_argument(
        "--writer-threads",
        type=_count,
        default=None,
        help="ingestion writers (default: 1 on SQLite, 4 on PostgreSQL)",
    )
    parser.add_argument(
        "--sqlite-synchronous",
        type=_synchronous,
        default=os.environ.get(SQLITE_SYNCHRONOUS_ENV) or SQLITE_SYNCHRONOUS[0],
        metavar="|".join(SQLITE_SYNCHRONOUS),
        help=f"SQLite only: FULL (default) makes every acknowledged span survive a power cut; NORMAL "
        f"is faster and survives the process crashing, but a power cut or kernel crash may lose the "
        f"last acknowledged commits (env {SQLITE_SYNCHRONOUS_ENV})",
    )
    parser.add_argument(
        "--sqlite-wal-mib",
        type=_count,
        default=WAL_LIMIT_BYTES // _MIB,
        metavar="MIB",
        help=f"SQLite only: the WAL is checkpointed on a thread of its own, never in a commit, and "
        f"started over once it holds this many MiB (default {WAL_LIMIT_BYTES // _MIB})",
    )
    parser.add_argument(
        "--no-worker", action="store_true", help="ingest and serve the API only; judge nothing"
    )
    parser.add_argument(
        "--worker-name", default=None, help="this replica's name in leases (default host:pid)"
    )
    parser.add_argument(
        "--audience",
        action="append",
        default=None,
        metavar="AUD",
        help=f"in a cluster: the audience management callers' tokens must be issued for "
        f"(repeatable; default {COLLECTOR_AUDIENCE}; '' alone: the API server's own)",
    )
    parser.add_argument(
        "--external-url",
        default=os.environ.get("PROCTOR_EXTERNAL_URL") or None,
        metavar="URL",
        help="the collector's URL as people reach it: notices link to incidents under it "
        "(Alertmanager's generatorURL; default the address it listens on)",
    )
    parser.add_argument("--tls-cert", type=Path, default=None, metavar="FILE", help="serve HTTPS: PEM chain")
    parser.add_argument("--tls-key", type=Path, default=None, metavar="FILE", help="serve HTTPS: PEM key")
    parser.add_argument(
        "--refresh",
        type=_seconds,
        default=DEFAULT_REFRESH_SECONDS,
        help="in a cluster: seconds between listings of AgentMonitors",
    )
    parser.add_argument(  # arm C, coaching (armc-mcp)
        "--pattern-half-life",
        type=_seconds,
        default=DEFAULT_HALF_LIFE_SECONDS,
        metavar="SECONDS",
        help="behaviour patterns: seconds after which an occurrence's recency weight halves (default a week)",
    )


def _split_listen(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen must be HOST:PORT (a port 0-65535), not {listen!r}")
    return host.strip("[]"), int(port)


class _Registry:
    """The current registry, swapped whole when the cluster's monitors change."""

    def __init__(self, registry: Registry) -> None:
        self.value = registry

    def __call__(self) -> Registry:
        return self.value


def _on_commit(metrics: Metrics) -> Callable[[IngestResult, Sequence[Item]], None]:
    def hook(result: IngestResult, items: Sequence[Item]) -> None:
        metrics.duplicates.inc(result.duplicates)
        for monitor, (spans, events, runs) in result.by_monitor.items():
            metrics.spans_stored.labels(monitor).inc(spans)
            metrics.events_stored.labels(monitor).inc(events)
            metrics.runs_started.labels(monitor).inc(runs)

    return hook


async def run(args: argparse.Namespace, *, announce: Callable[[str], None] | None = None) -> None:
    """Run the collector until the task is cancelled or SIGTERM/SIGINT arrives."""
    token = os.environ.get(TOKEN_ENV) or None
    export = ExportSettings.from_env(os.environ)  # scores as OTLP events: off unless OTEL_LOGS_EXPORTER=otlp
    tls = _tls(args)
    kube_api = None
    exams: ExamReader | None = None
    if args.monitor or args.profile:
        registry = _Registry(
            load_files(
                [*args.monitor, *args.profile],
                default_token=token,
                webhook_secret=os.environ.get(WEBHOOK_SECRET_ENV) or None,
            )
        )
        if token is None:
            raise ValueError(f"{TOKEN_ENV} is not set: without a cluster it is what agents must send")
        auth: Authorizer = LocalAuth(os.environ.get(API_TOKEN_ENV) or None, ingestion_token=token)
        if os.environ.get(API_TOKEN_ENV) is None:
            log.warning(f"{API_TOKEN_ENV} is not set: the runs API is closed (every caller 401)")
    else:
        from kubernetes import client, config

        from proctor.collector.cluster import ClusterMonitors
        from proctor.collector.exams import ExamResults

        try:
            cast(Any, config).load_config()
        except config.ConfigException as e:
            raise ValueError(
                f"no AgentMonitor files and no cluster ({e}): "
                "give --monitor FILE --profile FILE, or KUBECONFIG"
            ) from None
        kube_api = client.ApiClient()
        if token is not None:
            log.warning(
                f"{TOKEN_ENV} is ignored in a cluster: every AgentMonitor needs its own spec.tokenSecretRef"
            )
        source = ClusterMonitors(kube_api, namespaces=args.namespace or None)
        exams = ExamResults(kube_api, args.operator_namespace)
        registry = _Registry(await asyncio.to_thread(source.load))
        auth = KubernetesAuth(kube_api, audiences=args.audience)
    metrics = Metrics()
    store = await asyncio.to_thread(
        functools.partial(
            Store.open,
            args.db or default_db(),
            sqlite_synchronous=args.sqlite_synchronous,
            wal_limit_bytes=args.sqlite_wal_mib * _MIB,
            on_checkpoint=metrics.checkpoint,
        )
    )
    threads = args.writer_threads or (4 if store.dialect == "postgresql" else 1)
    writer = Writer(
        store,
        lambda: registry().policies(),
        threads=threads,
        max_pending=args.max_pending,
        on_commit=_on_commit(metrics),
        redact=Redactor(registry),
        observe=metrics.commit,
    )
    evaluator = Evaluator()
    exporter = EvaluationExporter(export, counted=metrics.evaluation_events) if export else None
    incidents = Incidents(store.engine)
    host, port = _split_listen(args.listen)
    sender = Sender(
        incidents,
        registry,
        metrics,
        name=args.worker_name or worker_id(),
        base_url=args.external_url or "",
        events=kube_events(kube_api) if kube_api is not None else None,
    )
    worker = Worker(
        store,
        registry,
        evaluator,
        metrics,
        name=args.worker_name,
        concurrency=args.concurrency,
        poll=args.poll,
        lease_seconds=args.lease,
        exporter=exporter,
        incidents=IncidentEngine(incidents, wake=sender.wake),
    )
    ctx = Context(
        store=store,
        writer=writer,
        registry=registry,
        metrics=metrics,
        auth=auth,
        wake=worker.wake,
        incidents=incidents,
        exams=exams,
    )
    coaching = Coaching(Patterns(store.engine), half_life=args.pattern_half_life)
    app = application(ctx, max_body=args.max_body, coaching=coaching)
    # auto_decompress=False: the handlers inflate bodies themselves, off the loop and bounded (app._read)
    # the scan's and the language graders' rules, built before the first answer arrives: built on
    # first use they hold the interpreter for seconds while the writer must acknowledge events
    await asyncio.to_thread(_warm_graders)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, auto_decompress=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024, reuse_address=True, ssl_context=tls)
    await site.start()
    server = cast(Any, site._server)
    bound = server.sockets[0].getsockname()[1] if server and server.sockets else port
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(_loop_lag(metrics, stop), name="loop-lag")]
    if not args.no_worker:
        tasks.append(asyncio.create_task(worker.run(stop), name="worker"))
        tasks.append(asyncio.create_task(sender.run(stop), name="notices"))
    if kube_api is not None:
        tasks.append(asyncio.create_task(_refresh(source, registry, args.refresh, stop), name="monitors"))
    if exporter is not None:
        tasks.append(asyncio.create_task(exporter.run(stop), name="evaluation-events"))
        log.info("exporting scores as gen_ai.evaluation.result events", endpoint=exporter.settings.endpoint)
    url = f"{'https' if tls else 'http'}://{host}:{bound}"
    if not args.external_url:
        sender.base_url = url
    # what start-up made lives as long as the process: out of the collector's reach, so a full
    # collection no longer walks it (its pauses grew with the imports, not with the load)
    gc.collect()
    gc.freeze()
    metrics.gc_pauses.install()
    log.info("collector listening", url=url, database=store.dialect, monitors=sorted(registry().monitors))
    if announce is not None:
        announce(url)
    try:
        await stop.wait()
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        metrics.gc_pauses.uninstall()
        await runner.cleanup()
        await asyncio.to_thread(writer.close)
        ctx.decoding.shutdown(wait=False, cancel_futures=True)
        await evaluator.aclose()
        await sender.aclose()
        store.close()


async def _loop_lag(metrics: Metrics, stop: asyncio.Event) -> None:
    """Measures the event loop's stalls: how late a timer of :data:`LOOP_LAG_SECONDS` wakes."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        asked = loop.time()
        await asyncio.sleep(LOOP_LAG_SECONDS)
        metrics.loop_lag_seconds.observe(max(0.0, loop.time() - asked - LOOP_LAG_SECONDS))


def _tls(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The server's TLS context from ``--tls-cert``/``--tls-key`` (both or neither)."""
    cert, key = getattr(args, "tls_cert", None), getattr(args, "tls_key", None)
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise ValueError("--tls-cert and --tls-key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as e:
        raise ValueError(f"cannot load --tls-cert {cert} / --tls-key {key}: {e}") from None
    return context


async def _refresh(source: object, registry: _Registry, every: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)
        if stop.is_set():
            return
        try:
            registry.value = await asyncio.to_thread(source.load)  # type: ignore[attr-defined]
        except Exception as e:  # the API server is briefly away: keep serving what we have
            log.warning("cannot list AgentMonitors; keeping the last ones", error=f"{type(e).__name__}: {e}")


def _warm_graders() -> None:
    warm_up(True)
    warm_up_languages()


def serve(args: argparse.Namespace) -> int:
    """What ``proctor collector`` runs; returns the exit code."""
    from proctor.observability.logging import configure

    configure()

    def announce(url: str) -> None:
        print(f"proctor collector: listening on {url}", file=sys.stderr, flush=True)

    try:
        check_db(args.db)
        _split_listen(args.listen)
        asyncio.run(run(args, announce=announce))
    except (ManifestError, ValueError, UnsupportedDatabase) as e:
        print(f"proctor collector: error: {e}", file=sys.stderr)
        return 2
    except StoreUnavailable as e:
        print(f"proctor collector: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            print(
                f"proctor collector: error: {args.listen} is taken by another program; "
                "choose another address with --listen HOST:PORT",
                file=sys.stderr,
            )
        else:
            print(
                f"proctor collector: error: cannot listen on {args.listen}: {e.strerror or e}",
                file=sys.stderr,
            )
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="proctor collector", description="Arm B: OTLP/HTTP receiver, runs API and evaluation worker."
    )
    add_arguments(parser)
    return serve(parser.parse_args(argv))
