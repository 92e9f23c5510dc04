"""A throwaway PostgreSQL server for tests, benchmarks and the demo: Debian's ``initdb``/``pg_ctl``
into a directory of our own, on a free loopback port, stopped on exit.

Nothing here is a service: the data directory is created fresh, the server listens on 127.0.0.1
only, trusts local connections (a test tool) and skips fsync. ``hack/ensure-postgres.sh`` installs
the binaries (``apt-get install postgresql``) where they are missing. Run as root, the server runs
as the ``postgres`` user (PostgreSQL refuses to run as root)::

    with PostgresServer(tmp_path) as pg:
        url = pg.create_database("t1")       # postgresql://proctor@127.0.0.1:PORT/t1
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Final

from proctor.devcluster.controlplane import free_port

USER: Final = "proctor"


class PostgresUnavailable(RuntimeError):
    """The server binaries are missing or the server did not start; the message says why."""


def bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` with ``initdb`` (``PROCTOR_PG_BIN`` overrides)."""
    override = os.environ.get("PROCTOR_PG_BIN")
    candidates = (
        [override]
        if override
        else sorted(
            glob.glob("/usr/lib/postgresql/*/bin"),
            key=lambda p: [int(x) for x in Path(p).parent.name.split(".")],
        )
    )
    for c in reversed(candidates):
        if c and (Path(c) / "initdb").is_file():
            return Path(c)
    raise PostgresUnavailable(
        "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: run hack/ensure-postgres.sh "
        "(apt-get install postgresql)"
    )


class PostgresServer:
    """One PostgreSQL server in ``directory`` (created), started by :meth:`start`."""

    def __init__(self, directory: Path, *, port: int | None = None) -> None:
        self.directory = Path(directory)
        self.data = self.directory / "data"
        self.sockets = self.directory / "run"
        self.port = port or free_port()
        self.bin = bin_dir()
        self._as_postgres = os.geteuid() == 0
        self._options = ""

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` database (create one per test with :meth:`create_database`)."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> PostgresServer:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.sockets.mkdir(exist_ok=True)
        if self._as_postgres:
            entry = pwd.getpwnam("postgres")
            for path in (self.directory, self.sockets):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        init = self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-instructions",
            "-N",
        )
        if init.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        self._options = " ".join(
            [
                f"-p {self.port}",
                "-c listen_addresses=127.0.0.1",
                f"-c unix_socket_directories={self.sockets}",
                "-c fsync=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
            ]
        )
        started = self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.directory / "server.log"),
            "-o",
            self._options,
            "-w",
            "-t",
            "60",
            "start",
        )
        if started.returncode != 0:
            log = self.directory / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(f"pg_ctl start failed: {started.stderr.strip()} {tail}")
        return self

    def stop(self) -> None:
        if self.data.exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def kill(self) -> None:
        """Stop the server at once (a database that went down), keeping its data."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def restart(self) -> None:
        """Start the server again on the same port and data (after :meth:`kill`)."""
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.directory / "server.log"),
            "-o",
            self._options,
            "-w",
            "-t",
            "60",
            "start",
        )

    def create_database(self, name: str | None = None) -> str:
        """A fresh database; returns its URL."""
        name = name or f"t_{uuid.uuid4().hex[:12]}"
        psql = shutil.which("psql", path=str(self.bin)) or str(self.bin / "psql")
        out = self._run(
            psql,
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            USER,
            "-d",
            "postgres",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            f'CREATE DATABASE "{name}"',
        )
        if out.returncode != 0:
            raise PostgresUnavailable(f"cannot create database {name}: {out.stderr.strip()}")
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.stop()


def wait_until_up(server: PostgresServer, timeout: float = 30) -> None:
    """Wait until the server accepts connections (after a restart)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready = server._run(str(server.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(server.port))
        if ready.returncode == 0:
            return
        time.sleep(0.2)
    raise PostgresUnavailable(f"PostgreSQL on port {server.port} did not come back")
