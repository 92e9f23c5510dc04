"""Judge quality is counted from indexes alone: the reviews and the observed breach rate.

Judge quality reports, beside each dimension's reviews, the breach rate the monitors' current scores
show (:meth:`proctor.store.Reviews.observed`): a count over every score of those monitors, each
checked to be its run's current evaluation. With ``(monitor, dimension, evaluation_id, score,
threshold)`` on scores (replacing ``(monitor, dimension)``, its prefix) and ``evaluation_id`` on
runs, that count reads two indexes and never a row. The current reviews of a profile are counted
the same way (:meth:`proctor.store.Reviews.cells`): ``(profile, current)`` on feedback gains the
columns the count reads. No table changes.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

FEEDBACK_COUNTED = ("profile", "current", "dimension", "judge_score", "threshold", "agree", "score")


def upgrade() -> None:
    op.create_index(
        "ix_scores_monitor_dim_score",
        "scores",
        ["monitor", "dimension", "evaluation_id", "score", "threshold"],
    )
    op.drop_index("ix_scores_monitor_dim", table_name="scores")
    op.create_index("ix_runs_evaluation", "runs", ["evaluation_id"])
    op.create_index("ix_feedback_profile_counted", "feedback", [*FEEDBACK_COUNTED])
    op.drop_index("ix_feedback_profile_current", table_name="feedback")


def downgrade() -> None:
    op.create_index("ix_feedback_profile_current", "feedback", ["profile", "current"])
    op.drop_index("ix_feedback_profile_counted", table_name="feedback")
    op.drop_index("ix_runs_evaluation", table_name="runs")
    op.create_index("ix_scores_monitor_dim", "scores", ["monitor", "dimension"])
    op.drop_index("ix_scores_monitor_dim_score", table_name="scores")
