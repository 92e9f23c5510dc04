"""Arm C: reviews of judged scores, the cases reviewers route to the case set, and outcomes.

Three append-only tables of their own (``feedback``, ``feedback_cases``, ``outcomes``); nothing
else changes.

Revision ID: 0006
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("target", sa.String(600), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("profile", sa.String(320), nullable=False),
        sa.Column("monitor", sa.String(320), nullable=True),
        sa.Column("dimension", sa.String(63), nullable=False),
        sa.Column("judge_score", sa.Double(), nullable=False),
        sa.Column("threshold", sa.Double(), nullable=False),
        sa.Column("agree", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Double(), nullable=True),
        sa.Column("minutes", sa.Double(), nullable=True),
        sa.Column("route", sa.String(16), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reviewer", sa.String(320), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_feedback_profile_current", "feedback", ["profile", "current"])
    op.create_index("ix_feedback_monitor_current", "feedback", ["monitor", "current"])
    op.create_index("ix_feedback_target", "feedback", ["target", "dimension", "reviewer"])
    op.create_table(
        "feedback_cases",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("feedback_id", sa.Integer(), nullable=False, unique=True),
        sa.Column("target", sa.String(600), nullable=False),
        sa.Column("profile", sa.String(320), nullable=False),
        sa.Column("monitor", sa.String(320), nullable=True),
        sa.Column("dimension", sa.String(63), nullable=False),
        sa.Column("tier", sa.String(16), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("expected_score", sa.Double(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_feedback_cases_profile", "feedback_cases", ["profile"])
    op.create_table(
        "outcomes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("minutes", sa.Double(), nullable=True),
        sa.Column("source", sa.String(320), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_outcomes_monitor_current", "outcomes", ["monitor", "current"])
    op.create_index("ix_outcomes_run", "outcomes", ["run_id"])


def downgrade() -> None:
    op.drop_table("outcomes")
    op.drop_table("feedback_cases")
    op.drop_table("feedback")
