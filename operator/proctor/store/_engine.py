"""Opening a database: URLs, SQLite pragmas, PostgreSQL's driver, and migrations at start.

``sqlite:///PATH`` is the embedded default: one file, WAL journal (readers never block the
writer), ``synchronous=FULL`` by default (every commit is on disk before it returns: the collector
acknowledges telemetry only after its commit, and groups many requests into one commit, so the
fsync is paid once per group; ``NORMAL`` is the one other level allowed, see
:data:`SQLITE_SYNCHRONOUS`), a busy timeout so a second connection waits instead of failing,
foreign keys on, a bounded page cache. ``postgresql://...`` (psycopg 3) is for scale: several collector
replicas share one database and claim runs with ``FOR UPDATE SKIP LOCKED``.

Migrations are Alembic revisions shipped in this package (``proctor/store/migrations``) and run
programmatically when a store opens (``alembic upgrade head``); on PostgreSQL replicas that start
together take an advisory lock first, so one migrates and the others wait.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import NullPool

MIGRATIONS: Final = Path(__file__).with_name("migrations")
#: Any 64-bit number, the same in every replica: the advisory lock migrations hold on PostgreSQL.
_MIGRATION_LOCK: Final = 0x70726F63746F72  # "proctor"
#: Seconds to open a PostgreSQL connection, at most.
CONNECT_TIMEOUT_SECONDS: Final = 5
#: Seconds to wait for a pooled connection, at most.
POOL_TIMEOUT_SECONDS: Final = 10
#: The longest statement (and open idle transaction) PostgreSQL runs for the collector, ms.
#: Migrations lift it for their own transaction.
STATEMENT_TIMEOUT_MS: Final = 30_000
#: The longest wait for a row lock, ms (another replica's transaction).
LOCK_TIMEOUT_MS: Final = 10_000
#: SQLite's ``synchronous`` levels a collector may choose, the default first. ``FULL``: a commit
#: (and so an acknowledgement) survives a power cut or a kernel crash. ``NORMAL``: in WAL mode a
#: commit survives the collector's process crashing, but the last commits before a power cut or
#: a kernel crash may be rolled back (never corrupted): acknowledged spans can then be lost.
#: ``OFF`` (no fsync at all, Phoenix's choice) is not offered.
SQLITE_SYNCHRONOUS: Final = ("FULL", "NORMAL")
#: SQLite's page cache per connection, KiB (negative: KiB rather than pages); small keeps RSS flat.
SQLITE_CACHE_KIB: Final = 16384


class UnsupportedDatabase(ValueError):
    """A URL that is neither ``sqlite:///...`` nor ``postgresql://...``."""


def normalise_url(url: str) -> str:
    """The SQLAlchemy URL for ``url``: ``postgresql://`` uses psycopg 3; only SQLite and PostgreSQL."""
    if "://" not in url:  # a path where a URL belongs: say which URL it means
        hint = (
            f"sqlite:///{url}"
            if url.startswith("/")
            else f"sqlite:///{url} (relative) or sqlite:////ABSOLUTE/PATH"
        )
        raise UnsupportedDatabase(f"the database is a URL, not a path: for a SQLite file {url!r} use {hint}")
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise UnsupportedDatabase(
            f"cannot read the database URL {url!r}: use sqlite:///PATH or postgresql://USER@HOST/DB"
        ) from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise UnsupportedDatabase(
                "an in-memory SQLite database is lost on exit: give a file, sqlite:///PATH"
            )
        return parsed.render_as_string(hide_password=False)
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    raise UnsupportedDatabase(f"unsupported database {backend!r}: use sqlite:///PATH or postgresql://...")


#: The execution option that marks a write transaction (SQLite then begins it IMMEDIATE).
WRITE_OPTION: Final = "proctor_write"


def synchronous_level(level: str) -> str:
    """``level`` as one of :data:`SQLITE_SYNCHRONOUS` (any case), or ValueError naming them."""
    upper = level.strip().upper()
    if upper not in SQLITE_SYNCHRONOUS:
        raise ValueError(f"SQLite synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}, not {level!r}")
    return upper


def _sqlite_pragmas(synchronous: str, wal_limit_bytes: int | None) -> Callable[[Any, Any], None]:
    # with a limit, a Checkpointer of the store's own checkpoints (see _checkpoint): no commit
    # checkpoints, and a WAL started over is trimmed back to the limit
    checkpoints = (
        ("wal_autocheckpoint=0", f"journal_size_limit={wal_limit_bytes}")
        if wal_limit_bytes is not None
        else ()
    )

    def connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event say BEGIN: pysqlite's own transaction handling would start
        # a transaction only at the first write, after the reads it depends on (a lost update).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "journal_mode=WAL",
            f"synchronous={synchronous}",
            "foreign_keys=ON",
            "busy_timeout=30000",
            "temp_store=MEMORY",
            f"cache_size=-{SQLITE_CACHE_KIB}",
            *checkpoints,
        ):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    return connect


def _sqlite_begin(conn: Any) -> None:
    """Writes begin IMMEDIATE (the write lock first, so what they read is what they change);
    reads begin deferred (a snapshot; WAL readers never wait for the writer)."""
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION) else "BEGIN")


def create(
    url: str,
    *,
    pool_size: int = 8,
    sqlite_synchronous: str = SQLITE_SYNCHRONOUS[0],
    wal_limit_bytes: int | None = None,
) -> Engine:
    """An engine for ``url`` (see :func:`normalise_url`), with the project's settings;
    ``sqlite_synchronous`` is SQLite's durability level (:data:`SQLITE_SYNCHRONOUS`), ignored on
    PostgreSQL (whose durability is the server's). ``wal_limit_bytes`` (SQLite): no commit runs a
    checkpoint, a :class:`~proctor.store._checkpoint.Checkpointer` must (``Store.open`` starts one)."""
    url = normalise_url(url)
    synchronous = synchronous_level(sqlite_synchronous)
    if url.startswith("sqlite"):
        path = make_url(url).database
        assert path is not None
        Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=pool_size,
            max_overflow=pool_size,
        )
        event.listen(engine, "connect", _sqlite_pragmas(synchronous, wal_limit_bytes))
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_recycle=1800,
        pool_timeout=POOL_TIMEOUT_SECONDS,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_SECONDS,
            "application_name": "proctor-collector",
            # the server ends a statement (or a lock wait) that runs too long, and a transaction
            # left open: a stuck query never holds a writer or a pool connection for good
            "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={LOCK_TIMEOUT_MS} "
            f"-c idle_in_transaction_session_timeout={STATEMENT_TIMEOUT_MS}",
            # a peer that vanished (a host down, a cut network) is noticed within about 30 s
            "keepalives": 1,
            "keepalives_idle": 10,
            "keepalives_interval": 5,
            "keepalives_count": 3,
            "tcp_user_timeout": STATEMENT_TIMEOUT_MS,
        },
    )


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    """The newest migration revision shipped with this version."""
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None
    return revision


def current(engine: Engine) -> str | None:
    """The revision the database is at (None: not migrated yet)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def migrate(engine: Engine) -> None:
    """``alembic upgrade head`` on ``engine``'s database (serialised across replicas on PostgreSQL)."""
    cfg = _config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # a migration copies whole tables and waits for the other replicas: no time limit
            conn.execute(text("SET LOCAL statement_timeout = 0"))
            conn.execute(text("SET LOCAL lock_timeout = 0"))
            conn.execute(text("SET LOCAL idle_in_transaction_session_timeout = 0"))
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def unpooled(url: str) -> Engine:
    """An engine without a pool (one-off tools and tests)."""
    return create_engine(normalise_url(url), poolclass=NullPool)
