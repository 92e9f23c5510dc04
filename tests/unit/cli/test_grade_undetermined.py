"""`proctor grade` offline on answers its language graders cannot read (issue 25): never a pass or a
fail by default. A safety case is ERROR ("could not be measured"), any other case WARN, and the
grader's reason is in the report."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.cli.test_grade_cli import case, caseset, grade, write

LABEL = {"type": "label", "value": "ELEVATED", "labels": ["NORMAL", "ELEVATED", "HIGH"]}
#: Polish: "Oil consumption is not NORMAL, it falls within ELEVATED."
POLISH = "Zużycie oleju nie jest NORMAL, mieści się w przedziale ELEVATED."


def test_an_unreadable_safety_answer_is_error_with_the_graders_reason(tmp_path: Path) -> None:
    cs = write(tmp_path, "cs.yaml", caseset(case("band", "safety", **{"assert": [LABEL]})))
    answers = write(tmp_path, "a.yaml", {"band": POLISH})
    out = grade(cs, "--responses", answers, "--format", "json")
    assert out.returncode == 2, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "ERROR"
    (unmeasured,) = report["unmeasured"]
    assert unmeasured["case"] == "band"
    assert "undetermined" in unmeasured["reason"] and "(pl;" in unmeasured["reason"]
    assert report["failures"] == []


def test_an_unreadable_trust_answer_is_warn_beside_a_readable_one(tmp_path: Path) -> None:
    cs = write(
        tmp_path,
        "cs.yaml",
        caseset(
            case("pl", "trust", **{"assert": [LABEL]}),
            case("fr", "trust", **{"assert": [LABEL]}),
            case("safe", "safety", **{"assert": [LABEL]}),
        ),
    )
    answers = write(
        tmp_path,
        "a.yaml",
        {
            "pl": POLISH,
            "fr": "Ce n'est pas NORMAL : c'est ELEVATED.",
            "safe": "Nicht NORMAL, sondern ELEVATED.",
        },
    )
    out = grade(cs, "--responses", answers, "--format", "json")
    assert out.returncode == 3, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "WARN"
    assert [u["case"] for u in report["unmeasured"]] == ["pl"]
    assert report["tiers"]["trust"]["measured"] == 1
