"""Incidents, the notices' memory, the notice outbox and its deliveries, alerts kept firing.

Only this room's tables (``proctor.store._incidents``); nothing else changes.

Revision ID: 0004
Revises: 0003 (0002 before armb-detect was merged)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "incidents",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("agent", sa.String(255), nullable=False),
        sa.Column("revision", sa.String(255), nullable=True),
        sa.Column("series", sa.String(700), nullable=False),
        sa.Column("signatures", sa.Text(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("probable_cause", sa.Text(), nullable=False),
        sa.Column("cause", sa.Text(), nullable=False),
        sa.Column("recommendations", sa.Text(), nullable=False),
        sa.Column("run_count", sa.Integer(), nullable=False),
        sa.Column("opened_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("acknowledged_at", sa.Double(), nullable=True),
        sa.Column("acknowledged_by", sa.String(320), nullable=True),
        sa.Column("resolved_at", sa.Double(), nullable=True),
    )
    op.create_index("ix_incidents_monitor_state", "incidents", ["monitor", "state"])
    op.create_index("ix_incidents_series_state", "incidents", ["series", "state"])
    op.create_table(
        "incident_runs",
        sa.Column(
            "incident_id",
            sa.String(40),
            sa.ForeignKey("incidents.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("run_id", sa.String(40), primary_key=True),
        sa.Column("added_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "notice_state",
        sa.Column("key", sa.String(800), primary_key=True),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "notice_seen",
        sa.Column("evaluation", sa.String(80), primary_key=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("series", sa.String(700), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("signatures", sa.Text(), nullable=False),
        sa.Column("incident_id", sa.String(40), nullable=True),
        sa.Column("sent", sa.Boolean(), nullable=False),
        sa.Column("why_not", sa.Text(), nullable=True),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_notices_monitor", "notices", ["monitor", "id"])
    op.create_table(
        "notice_deliveries",
        sa.Column(
            "notice_id", sa.Integer(), sa.ForeignKey("notices.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("sink", sa.String(63), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.Double(), nullable=False),
        sa.Column("lease_owner", sa.String(128), nullable=True),
        sa.Column("lease_until", sa.Double(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("delivered_at", sa.Double(), nullable=True),
    )
    op.create_index("ix_notice_deliveries_due", "notice_deliveries", ["state", "next_at"])
    op.create_table(
        "notice_alerts",
        sa.Column("key", sa.String(800), primary_key=True),
        sa.Column("monitor", sa.String(320), nullable=False),
        sa.Column("series", sa.String(700), nullable=False),
        sa.Column("alertname", sa.String(63), nullable=False),
        sa.Column("labels", sa.Text(), nullable=False),
        sa.Column("annotations", sa.Text(), nullable=False),
        sa.Column("starts_at", sa.Double(), nullable=False),
        sa.Column("ends_at", sa.Double(), nullable=True),
        sa.Column("last_sent_at", sa.Double(), nullable=True),
    )
    op.create_index("ix_notice_alerts_monitor", "notice_alerts", ["monitor", "ends_at"])


def downgrade() -> None:
    for table in (
        "notice_alerts",
        "notice_deliveries",
        "notices",
        "notice_seen",
        "notice_state",
        "incident_runs",
        "incidents",
    ):
        op.drop_table(table)
