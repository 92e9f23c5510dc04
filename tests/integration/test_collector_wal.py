"""The collector's WAL checkpoints run off the commit path (issue 28), on the real collector
process: the WAL stays bounded while spans stream in, the timings an operator reads are on
``/metrics``, and every acknowledged span is there after the process is killed and restarted
(SQLite and PostgreSQL: the same guarantee, whoever keeps the log)."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from prometheus_client.parser import text_string_to_metric_families

from collecting import TOKEN, collector, manifests, start, wait_for
from databases import db_url, postgres  # noqa: F401 (fixtures)

HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/x-protobuf"}
SPANS = 100
#: About 1.5 KiB of text a span, different in each.
TEXT = "Oil consumption on engine {n} is 0.30 qt/hr after flight {n}; the ELEVATED band starts there. " * 16


def request(run: int, spans: int = SPANS) -> bytes:
    """One export request: ``spans`` spans of the run ``conv-{run}``."""
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.add(key="service.name").value.string_value = "oil-agent"
    ss = rs.scope_spans.add()
    for n in range(spans):
        s = ss.spans.add(trace_id=run.to_bytes(16, "big"), span_id=(n + 1).to_bytes(8, "big"), name="chat")
        s.attributes.add(key="gen_ai.conversation.id").value.string_value = f"conv-{run}"
        s.attributes.add(key="gen_ai.output.messages").value.string_value = TEXT.format(n=run * SPANS + n)
    return req.SerializeToString()


def samples(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(f"{url}/metrics").text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def restarts(url: str) -> float:
    return samples(url).get(
        ("proctor_collector_wal_checkpoints_total", (("mode", "RESTART"), ("outcome", "complete"))), 0.0
    )


def test_the_wal_stays_bounded_and_a_killed_collector_keeps_every_acknowledged_span(
    db_url: str,  # noqa: F811 (fixture)
    tmp_path: Path,
) -> None:
    sqlite = db_url.startswith("sqlite")
    wal = Path(f"{db_url.removeprefix('sqlite:///')}-wal")
    acknowledged = 0
    c = start(tmp_path, db_url, manifests(None, quiescence=3600), "--no-worker", "--sqlite-wal-mib", "1")
    try:
        with httpx.Client(base_url=c.url, headers=HEADERS, timeout=60) as client:
            for run in range(1, 31):  # about 4.5 MiB of spans: several times the WAL's limit
                assert client.post("/v1/traces", content=request(run)).status_code == 200
                acknowledged += SPANS
            if sqlite:
                # the checkpointer (never a commit: SQLite's own would leave the file at its
                # largest) starts an over-limit WAL over, and the next commit trims it to the limit
                probes = iter(range(1000, 2000))

                def trimmed() -> bool:
                    nonlocal acknowledged
                    assert client.post("/v1/traces", content=request(next(probes), 1)).status_code == 200
                    acknowledged += 1
                    return wal.stat().st_size <= 1024 * 1024

                wait_for(trimmed, "the WAL back under its limit of 1 MiB", interval=0.25)
                assert restarts(c.url) >= 1
        found = samples(c.url)
        commits = found[("proctor_collector_commit_seconds_count", ())]
        assert 0 < commits <= 30 + (acknowledged - 30 * SPANS)  # group commits: at most one a request
        assert found[("proctor_collector_commit_items_sum", ())] == acknowledged
        checkpoints = sum(
            v for (name, _), v in found.items() if name == "proctor_collector_wal_checkpoints_total"
        )
        assert (checkpoints > 0) == sqlite
        c.proc.send_signal(signal.SIGKILL)  # no last checkpoint, no clean close
        c.proc.wait()
    finally:
        c.stop()
    objects = manifests(None, quiescence=3600)
    with collector(tmp_path, db_url, objects, "--no-worker", name="again") as again, again.client() as api:
        runs = api.list_runs(limit=500)
    assert sum(r["spans"] for r in runs) == acknowledged and len(runs) == 30 + (acknowledged - 30 * SPANS)
