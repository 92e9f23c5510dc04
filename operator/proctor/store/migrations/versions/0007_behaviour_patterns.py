"""Behaviour patterns (arm C): patterns, the failing scores behind them, and how far grouping got.

Revision ID: 0007
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "patterns",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("dimension", sa.String(63), nullable=False),
        sa.Column("category", sa.String(63), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("centroid", sa.Text(), nullable=True),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("recurrence", sa.Integer(), nullable=False),
        sa.Column("occurrences", sa.Integer(), nullable=False),
        sa.Column("reopened", sa.Integer(), nullable=False),
        sa.Column("first_seen", sa.Double(), nullable=False),
        sa.Column("last_seen", sa.Double(), nullable=False),
        sa.Column("opened_at", sa.Double(), nullable=False),
        sa.Column("resolved_at", sa.Double(), nullable=True),
        sa.Column("resolved_by", sa.String(255), nullable=True),
        sa.Column("resolution", sa.Text(), nullable=True),
    )
    op.create_index("ix_patterns_monitor_state", "patterns", ["monitor", "state"])
    op.create_table(
        "pattern_occurrences",
        sa.Column("evaluation_id", sa.Integer(), nullable=False),
        sa.Column("dimension", sa.String(63), nullable=False),
        sa.Column(
            "pattern_id", sa.Integer(), sa.ForeignKey("patterns.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("evaluation_id", "dimension"),
    )
    op.create_index("ix_pattern_occurrences_pattern_at", "pattern_occurrences", ["pattern_id", "at"])
    op.create_table(
        "pattern_cursors",
        sa.Column("monitor", sa.String(320), primary_key=True),
        sa.Column("evaluation_id", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("pattern_cursors")
    op.drop_index("ix_pattern_occurrences_pattern_at", table_name="pattern_occurrences")
    op.drop_table("pattern_occurrences")
    op.drop_index("ix_patterns_monitor_state", table_name="patterns")
    op.drop_table("patterns")
