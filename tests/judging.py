"""The scripted local judge server (``proctor.testing.judgeserver``), for the collector's tests."""

from __future__ import annotations

from proctor.testing.judgeserver import JudgeServer, hang, judgment, marker_score, respond_with, status

__all__ = ["JudgeServer", "hang", "judgment", "marker_score", "respond_with", "status"]
