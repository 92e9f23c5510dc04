"""Detector state: each live score series' state, and which evaluations have been stepped.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "detector_series",
        sa.Column("monitor", sa.String(320), primary_key=True),
        sa.Column("metric", sa.String(63), primary_key=True),
        sa.Column("revision", sa.String(255), primary_key=True),
        sa.Column("session", sa.String(255), primary_key=True),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("fast", sa.Double(), nullable=True),
        sa.Column("slow", sa.Double(), nullable=True),
        sa.Column("latest", sa.Double(), nullable=True),
        sa.Column("threshold", sa.Double(), nullable=True),
        sa.Column("recent", sa.Text(), nullable=False),
        sa.Column("signatures", sa.Text(), nullable=False),
        sa.Column("evaluation_id", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_detector_series_monitor", "detector_series", ["monitor"])
    op.create_table(
        "detector_steps",
        sa.Column("evaluation_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("revision", sa.String(255), nullable=False),
        sa.Column("session", sa.String(255), nullable=False),
        sa.Column("detections", sa.Text(), nullable=False),
        sa.Column("stepped_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_detector_steps_monitor", "detector_steps", ["monitor"])


def downgrade() -> None:
    op.drop_index("ix_detector_steps_monitor", table_name="detector_steps")
    op.drop_table("detector_steps")
    op.drop_index("ix_detector_series_monitor", table_name="detector_series")
    op.drop_table("detector_series")
