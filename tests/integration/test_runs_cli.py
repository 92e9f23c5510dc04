"""``proctor runs list|show|evaluate`` against the real collector process: the stable ``-o json``
shape, the table, the exit codes (0 done, 1 refused, 2 nothing asked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from collecting import (
    API_TOKEN,
    TIMEOUT,
    TOKEN,
    agent_turn,
    collector,
    manifests,
    run_in,
    show,
    tracer,
    wait_for,
)
from proctor.testing.judgeserver import JudgeServer, content

BASE = {"task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety"}


def runs_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    dropped = ("PROCTOR_TOKEN", "PROCTOR_API_TOKEN", "PROCTOR_SERVER")
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "runs", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        # the judge answers task_success with prose: that dimension is skipped, with the reason
        server.add_rule(lambda r: "task_success" in r.raw, content("I would rather not say."))
        yield server


def test_runs_list_prints_the_stable_json_shape_and_a_table(judge: JudgeServer, tmp_path: Path) -> None:
    with collector(tmp_path, f"sqlite:///{tmp_path / 'c.db'}", manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            agent_turn(tr, "conv-1", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
        wait_for(lambda: run_in(c, ("PartiallyEvaluated",)), "the run to be judged")
        env = {"PROCTOR_SERVER": c.url, "PROCTOR_API_TOKEN": API_TOKEN}

        out = runs_cli("list", "-o", "json", env=env)
        assert out.returncode == 0, out.stderr
        runs = json.loads(out.stdout)
        assert isinstance(runs, list) and len(runs) == 1
        (run,) = runs
        assert list(run) == ["id", "monitor", "state", "attempts", "scores"]
        assert (run["monitor"], run["state"], run["attempts"]) == ("demo/oil-agent", "PartiallyEvaluated", 1)
        assert set(run["scores"]) == BASE
        assert all(list(v) == ["score", "skipped"] for v in run["scores"].values())
        skipped = run["scores"]["task_success"]
        assert skipped == {"score": None, "skipped": "judge answer was not JSON"}
        assert run["scores"]["safety"] == {"score": 75.0, "skipped": None}

        table = runs_cli("list", env=env)
        assert table.returncode == 0, table.stderr
        header, line = table.stdout.splitlines()
        assert header.split() == ["RUN", "MONITOR", "STATE", "ATTEMPTS", "SCORES"]
        assert line.split()[:4] == [run["id"], "demo/oil-agent", "PartiallyEvaluated", "1"]
        assert "safety=75" in line and "task_success=skipped" in line

        assert json.loads(runs_cli("list", "--state", "Evaluated", "-o", "json", env=env).stdout) == []
        by_monitor = runs_cli("list", "--monitor", "oil-agent", "-n", "demo", "-o", "json", env=env)
        assert [r["id"] for r in json.loads(by_monitor.stdout)] == [run["id"]]

        shown = runs_cli("show", run["id"], "-o", "json", env=env)
        detail = json.loads(shown.stdout)
        assert detail["id"] == run["id"] and [s["kind"] for s in detail["steps"]][-1] == "output"
        text = runs_cli("show", run["id"], env=env).stdout
        assert "task_success: skipped" in text and "safety: 75 (threshold" in text and "tool_call" in text

        again = runs_cli("evaluate", run["id"], env=env)
        assert again.returncode == 0 and "evaluation requested" in again.stdout, again.stderr
        # a new round of attempts: the run is judged a second time
        wait_for(
            lambda: run_in(c, ("PartiallyEvaluated",)) and len(show(c, run["id"])["evaluations"]) == 2,
            "the run to be judged again",
        )


def test_exit_codes_say_refused_from_nothing_asked(tmp_path: Path) -> None:
    with collector(tmp_path, f"sqlite:///{tmp_path / 'c.db'}", manifests(None)) as c:
        wrong = runs_cli("list", "--server", c.url, "--token", "not-the-token")
        assert wrong.returncode == 1 and "401" in wrong.stderr, wrong.stderr
        missing = runs_cli("show", "r0000", "--server", c.url, "--token", API_TOKEN)
        assert missing.returncode == 1 and "404" in missing.stderr and "r0000" in missing.stderr
        # no token anywhere: no PROCTOR_API_TOKEN and no kubeconfig to take one from
        nowhere = {"KUBECONFIG": str(tmp_path / "none"), "HOME": str(tmp_path)}
        no_token = runs_cli("list", "--server", c.url, env=nowhere)
        assert no_token.returncode == 2 and "no token" in no_token.stderr, no_token.stderr
        bad = runs_cli("list", "--server", c.url, "--token", API_TOKEN, "--monitor", "oil-agent")
        assert bad.returncode == 2 and "-n NAMESPACE" in bad.stderr
    gone = runs_cli("list", "--server", c.url, "--token", API_TOKEN)  # the collector stopped
    assert gone.returncode == 2 and "cannot reach the collector" in gone.stderr
    no_server = runs_cli("list", "--token", API_TOKEN)
    assert no_server.returncode == 2 and "PROCTOR_SERVER" in no_server.stderr


def test_the_ingestion_token_never_reads_runs_and_the_api_token_does(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    """A client of the collector's port holding what agents send (PROCTOR_TOKEN) reads nothing:
    ``proctor runs`` reads PROCTOR_API_TOKEN only, and the collector refuses the ingestion token
    on the management API; a collector given the same token for both refuses to start."""
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url, token=TOKEN) as tr:
            agent_turn(tr, "conv-t", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
        run = wait_for(lambda: run_in(c, ("PartiallyEvaluated",)), "the run to be judged")
        nowhere = {"KUBECONFIG": str(tmp_path / "none"), "HOME": str(tmp_path), "PROCTOR_SERVER": c.url}
        # the agent's token in the environment: the CLI does not take it
        agent_env = runs_cli("list", "-o", "json", env={**nowhere, "PROCTOR_TOKEN": TOKEN})
        assert agent_env.returncode == 2 and "PROCTOR_API_TOKEN" in agent_env.stderr, agent_env.stderr
        assert "PROCTOR_TOKEN is what agents send" in agent_env.stderr and TOKEN not in agent_env.stderr
        # the agent's token given outright: the collector refuses it (401), for every request
        for args in (("list",), ("show", run["id"]), ("evaluate", run["id"])):
            refused = runs_cli(*args, "--token", TOKEN, env=nowhere)
            assert refused.returncode == 1 and "401" in refused.stderr, refused.stderr
            assert run["id"] not in refused.stdout
        as_agent = {"Authorization": f"Bearer {TOKEN}"}
        raw = httpx.get(f"{c.url}/api/v1/monitors/demo/oil-agent", headers=as_agent)
        assert raw.status_code == 401 and "runs" not in raw.json()
        # the management token: the run
        ok = runs_cli("list", "-o", "json", env={**nowhere, "PROCTOR_API_TOKEN": API_TOKEN})
        assert ok.returncode == 0 and [r["id"] for r in json.loads(ok.stdout)] == [run["id"]], ok.stderr
        # ... which is worth nothing for sending spans
        with tracer(c.url, token=API_TOKEN) as tr:
            agent_turn(tr, "conv-api", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
        with c.client() as api:
            assert [r["key"] for r in api.list_runs()] == ["conv-t"]
    same = start_refused(tmp_path, db_url, {"PROCTOR_API_TOKEN": TOKEN})
    assert "PROCTOR_API_TOKEN equals the ingestion token" in same
    assert TOKEN not in same


def start_refused(tmp: Path, db_url: str, env: dict[str, str], *extra: str) -> str:
    """``proctor collector`` from files with ``env``: it must refuse to start (exit 2); its stderr."""
    mfile = tmp / "refused.yaml"
    mfile.write_text(yaml.safe_dump_all(manifests(None)))
    out = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "collector", "--db", db_url, "--monitor", str(mfile), *extra],
        env={**os.environ, "PROCTOR_TOKEN": TOKEN, **env},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    return out.stderr


def _tls_files(tmp: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it (PEM files: ca, cert, key)."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test collector CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = (tmp / "ca.crt", tmp / "tls.crt", tmp / "tls.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


def test_a_collector_served_over_tls_is_verified_with_its_ca(tmp_path: Path) -> None:
    ca, cert, key = _tls_files(tmp_path)
    objects = manifests(None)
    with collector(
        tmp_path, f"sqlite:///{tmp_path / 'c.db'}", objects, "--tls-cert", str(cert), "--tls-key", str(key)
    ) as c:
        assert c.url.startswith("https://")
        # without the CA the client does not trust it, and sends nothing it would have to
        untrusted = runs_cli("list", "--server", c.url, "--token", API_TOKEN)
        assert untrusted.returncode == 2 and "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr, untrusted.stderr
        trusted = runs_cli(
            "list",
            "-o",
            "json",
            env={"PROCTOR_SERVER": c.url, "PROCTOR_API_TOKEN": API_TOKEN, "PROCTOR_SERVER_CA": str(ca)},
        )
        assert trusted.returncode == 0 and json.loads(trusted.stdout) == [], trusted.stderr
        by_flag = runs_cli("list", "--server", c.url, "--token", API_TOKEN, "--ca-file", str(ca))
        assert by_flag.returncode == 0, by_flag.stderr
        # the operator's reader verifies it the same way (PROCTOR_COLLECTOR_CA)
        import asyncio

        from proctor.reconcile.monitors import CollectorReader, Summary

        async def read() -> object:
            reader = CollectorReader(c.url, API_TOKEN, ca_file=str(ca))
            try:
                return await reader.summary("demo", "oil-agent")
            finally:
                await reader.aclose()

        assert isinstance(asyncio.run(read()), Summary)
    half = start_refused(tmp_path, f"sqlite:///{tmp_path / 'd.db'}", {}, "--tls-cert", str(cert))
    assert "--tls-cert and --tls-key go together" in half
