"""Databases for the store's and the collector's tests: the SAME tests on SQLite and on a real
PostgreSQL server that these fixtures start (Debian's initdb/pg_ctl, a temp dir, a free port).

Use ``db_url`` (parametrised: ``sqlite``, ``postgresql``); import the fixtures in a test module::

    from databases import db_url, postgres  # noqa: F401 (fixtures)
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.devcluster.postgres import PostgresServer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the test session (a directory of its own, outside pytest's
    root-only temp tree, so the server can run as the postgres user)."""
    directory = Path(tempfile.mkdtemp(prefix="proctor-pg-"))
    server = PostgresServer(directory).start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file, or a new database on the session's PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'proctor.db'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database()
