"""The scripted local judge server, for the collector's tests, imported in ONE place.

The server lives in ``proctor.judge.testserver`` today and moves to ``proctor.testing``: only the
import below changes when it does.
"""

from __future__ import annotations

from proctor.judge.testserver import JudgeServer, hang, judgment, marker_score, respond_with, status

__all__ = ["JudgeServer", "hang", "judgment", "marker_score", "respond_with", "status"]
