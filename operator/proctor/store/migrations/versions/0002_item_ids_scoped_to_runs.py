"""Spans and native events are keyed within their run: one monitor's (or run's) ids never shadow another's.

Before, a span was keyed by ``(trace_id, span_id)`` and an event by its id alone, so an item whose
ids equalled another run's was acknowledged and then dropped as a "resend". Now the run (itself
derived from the monitor and the run key) is part of both keys. The tables are copied into the new
shape (SQLite cannot change a primary key in place), their rows kept.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_SPAN_COLUMNS = (
    "trace_id, span_id, run_id, parent_span_id, name, kind, start_ns, end_ns, status_code, "
    "status_message, operation, attributes, resource, events, received_at"
)
_EVENT_COLUMNS = "id, run_id, kind, name, text, status, timestamp, attributes, received_at"


def _spans(name: str, key: tuple[str, ...], pk_name: str) -> None:
    op.create_table(
        name,
        sa.Column("trace_id", sa.String(32), nullable=False),
        sa.Column("span_id", sa.String(16), nullable=False),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("parent_span_id", sa.String(16), nullable=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.SmallInteger(), nullable=False),
        sa.Column("start_ns", sa.BigInteger(), nullable=False),
        sa.Column("end_ns", sa.BigInteger(), nullable=False),
        sa.Column("status_code", sa.SmallInteger(), nullable=False),
        sa.Column("status_message", sa.Text(), nullable=True),
        sa.Column("operation", sa.String(64), nullable=True),
        sa.Column("attributes", sa.Text(), nullable=False),
        sa.Column("resource", sa.Text(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("received_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint(*key, name=pk_name),
    )


def _events(name: str, key: tuple[str, ...], pk_name: str) -> None:
    op.create_table(
        name,
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("timestamp", sa.Double(), nullable=False),
        sa.Column("attributes", sa.Text(), nullable=False),
        sa.Column("received_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint(*key, name=pk_name),
    )


def _swap(table: str, columns: str, index: str) -> None:
    op.execute(f"INSERT INTO {table}_new ({columns}) SELECT {columns} FROM {table}")
    op.drop_index(index, table_name=table)
    op.drop_table(table)
    op.rename_table(f"{table}_new", table)
    op.create_index(index, table, ["run_id"])


def upgrade() -> None:
    _spans("spans_new", ("run_id", "trace_id", "span_id"), "pk_spans_run_trace_span")
    _swap("spans", _SPAN_COLUMNS, "ix_spans_run")
    _events("events_new", ("run_id", "id"), "pk_events_run_id")
    _swap("events", _EVENT_COLUMNS, "ix_events_run")


def downgrade() -> None:
    # Items that share ids across runs cannot all be kept under the old keys: the first stays.
    for table, columns, index, build, key in (
        ("spans", _SPAN_COLUMNS, "ix_spans_run", _spans, ("trace_id", "span_id")),
        ("events", _EVENT_COLUMNS, "ix_events_run", _events, ("id",)),
    ):
        build(f"{table}_new", key, f"pk_{table}_old")
        op.execute(
            f"INSERT INTO {table}_new ({columns}) SELECT {columns} FROM {table} "
            f"WHERE true ON CONFLICT DO NOTHING"
        )
        op.drop_index(index, table_name=table)
        op.drop_table(table)
        op.rename_table(f"{table}_new", table)
        op.create_index(index, table, ["run_id"])
