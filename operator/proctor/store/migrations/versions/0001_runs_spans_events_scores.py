"""Runs, spans, native events, evaluations and scores (arm B, part 1).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("key_source", sa.String(255), nullable=False),
        sa.Column("agent", sa.String(255), nullable=False),
        sa.Column("revision", sa.String(255), nullable=True),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("sampled", sa.Boolean(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("first_event_at", sa.Double(), nullable=False),
        sa.Column("last_event_at", sa.Double(), nullable=False),
        sa.Column("since", sa.Double(), nullable=False),
        sa.Column("due_at", sa.Double(), nullable=True),
        sa.Column("next_attempt_at", sa.Double(), nullable=True),
        sa.Column("lease_owner", sa.String(128), nullable=True),
        sa.Column("lease_expires_at", sa.Double(), nullable=True),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.Column("reevaluated", sa.Boolean(), nullable=False),
        sa.Column("requested", sa.Boolean(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("quiescence_seconds", sa.Double(), nullable=False),
        sa.Column("sampling", sa.Double(), nullable=False),
        sa.Column("span_count", sa.Integer(), nullable=False),
        sa.Column("event_count", sa.Integer(), nullable=False),
        sa.Column("evaluation_id", sa.Integer(), nullable=True),
        sa.Column("breached", sa.Boolean(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.UniqueConstraint("monitor", "key", name="uq_runs_monitor_key"),
    )
    op.create_index("ix_runs_state_due", "runs", ["state", "due_at"])
    op.create_index("ix_runs_monitor_state", "runs", ["monitor", "state"])
    op.create_table(
        "spans",
        sa.Column("trace_id", sa.String(32), primary_key=True),
        sa.Column("span_id", sa.String(16), primary_key=True),
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
    )
    op.create_index("ix_spans_run", "spans", ["run_id"])
    op.create_table(
        "events",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("timestamp", sa.Double(), nullable=False),
        sa.Column("attributes", sa.Text(), nullable=False),
        sa.Column("received_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_events_run", "events", ["run_id"])
    op.create_table(
        "evaluations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(128), nullable=False),
        sa.Column("started_at", sa.Double(), nullable=False),
        sa.Column("finished_at", sa.Double(), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=True),
        sa.Column("provenance", sa.Text(), nullable=False),
        sa.Column("signals", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("judge_calls", sa.Integer(), nullable=False),
        sa.Column("judgments", sa.Integer(), nullable=False),
    )
    op.create_index("ix_evaluations_run", "evaluations", ["run_id"])
    op.create_table(
        "scores",
        sa.Column(
            "evaluation_id",
            sa.Integer(),
            sa.ForeignKey("evaluations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("dimension", sa.String(63), primary_key=True),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("score", sa.Double(), nullable=True),
        sa.Column("skipped_reason", sa.Text(), nullable=True),
        sa.Column("threshold", sa.Double(), nullable=False),
        sa.Column("agreement", sa.Double(), nullable=True),
        sa.Column("samples", sa.Text(), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("provenance", sa.String(80), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_scores_run", "scores", ["run_id"])
    op.create_index("ix_scores_monitor_dim", "scores", ["monitor", "dimension"])


def downgrade() -> None:
    for table in ("scores", "evaluations", "events", "spans", "runs"):
        op.drop_table(table)
