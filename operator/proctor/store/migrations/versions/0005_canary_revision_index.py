"""The live canary verdict counts a revision's runs on an index of its own.

``GET /api/v1/monitors/NS/NAME/verdict?revision=R`` is asked every few seconds by a rollout
controller; with ``(monitor, revision, state, breached)`` indexed it counts a revision's runs from
the index alone, however many other runs and scores are stored. No table changes.

Revision ID: 0005
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # text_pattern_ops on PostgreSQL: "= R" and "LIKE 'R@%'" use it whatever the collation
    op.create_index(
        "ix_runs_monitor_revision",
        "runs",
        ["monitor", "revision", "state", "breached"],
        postgresql_ops={"revision": "text_pattern_ops"},
    )


def downgrade() -> None:
    op.drop_index("ix_runs_monitor_revision", table_name="runs")
