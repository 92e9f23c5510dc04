"""Spans and native events keep one index each: their primary key, which starts with the run.

Since 0002 the primary keys are ``(run_id, trace_id, span_id)`` and ``(run_id, id)``, so every
lookup by run (a run's spans, its events, retention) is a range of the key already, and the
separate ``ix_spans_run`` / ``ix_events_run`` only cost pages: each stored span wrote a leaf of
both (on SQLite a third B-tree beside the table and its key). Dropping them leaves one index page
dirtied per item, which is what a commit writes (and fsyncs) under a steady load. No data moves.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_spans_run", table_name="spans")
    op.drop_index("ix_events_run", table_name="events")


def downgrade() -> None:
    op.create_index("ix_spans_run", "spans", ["run_id"])
    op.create_index("ix_events_run", "events", ["run_id"])
