"""A large CaseSet is graded by workers that each validate a share of every ConfigMap
(``proctor.graders.grade_shared``): the report, the exit code and every refusal's words must be
those of grading it all in one process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from proctor.cli import grade
from proctor.cli import main as proctor_main


def case(i: int, **extra: Any) -> dict[str, Any]:
    c: dict[str, Any] = {
        "id": f"c{i:03d}",
        "tier": ("form", "trust", "safety")[i % 3],
        "input": f"status of order {i}?",
        "assert": [{"type": "contains", "value": f"order {i}"}, {"type": "regex", "value": r"\bshipped\b"}],
    }
    c.update(extra)
    return c


def files(
    tmp_path: Path,
    maps: list[list[dict[str, Any]]],
    answers: dict[str, str] | None = None,
    inline: list[dict[str, Any]] | None = None,
) -> tuple[Path, Path]:
    """A CaseSet with ``inline`` cases and one ConfigMap per list in ``maps``, and the answers
    (by default: every case answered, every fifth one wrongly)."""
    caseset = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "shared"},
        "spec": {
            "cases": inline or [],
            "casesFrom": [{"name": f"m{k}", "key": "cases.yaml"} for k in range(len(maps))],
        },
    }
    docs = [caseset] + [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"m{k}"},
            "data": {"cases.yaml": yaml.safe_dump(m)},
        }
        for k, m in enumerate(maps)
    ]
    if answers is None:
        ids = [c["id"] for c in (inline or []) + [c for m in maps for c in m]]
        answers = {
            i: f"{i}: order {int(i[1:])} was shipped" if int(i[1:]) % 5 else "lost, sorry" for i in ids
        }
    (tmp_path / "cs.yaml").write_text(yaml.safe_dump_all(docs))
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    return tmp_path / "cs.yaml", tmp_path / "answers.json"


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    paths: tuple[Path, Path],
    workers: int | None,
    *,
    shared_only: bool = False,
) -> tuple[int, str, str]:
    """``proctor grade`` in this process: by ``workers`` shares, or (None) all in one process;
    ``shared_only``: the shares must grade it, without falling back to one process."""
    with monkeypatch.context() as m:
        if workers is None:
            m.setattr(grade, "worth_sharing", lambda inline, sources: False)
        else:
            m.setattr(grade, "worth_sharing", lambda inline, sources: True)
            m.setattr(grade, "cores", lambda: workers)
        if shared_only:
            m.setattr(grade, "_grade_serial", None)
        code = proctor_main(["grade", str(paths[0]), "--responses", str(paths[1]), "--format", "json"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_shares_grade_like_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], workers: int
) -> None:
    # uneven ConfigMaps (one smaller than the number of workers) and inline cases
    maps = [[case(i) for i in range(0, 7)], [case(i) for i in range(7, 9)], [case(i) for i in range(9, 30)]]
    paths = files(tmp_path, maps, inline=[case(i) for i in range(100, 104)])
    serial = run(monkeypatch, capsys, paths, None)
    shared = run(monkeypatch, capsys, paths, workers, shared_only=True)
    assert serial[0] == 1, serial[2]
    assert shared == serial
    report = json.loads(shared[1])
    assert report["cases"] == 34
    # every fifth case answered wrongly, wherever it sits
    assert sorted({f["case"] for f in report["failures"]}) == [
        f"c{i:03d}" for i in [*range(0, 30), *range(100, 104)] if i % 5 == 0
    ]


def test_an_extra_answer_is_noted_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    maps = [[case(i) for i in range(0, 6)], [case(i) for i in range(6, 12)]]
    answers = {c["id"]: f"order {int(c['id'][1:])} was shipped" for m in maps for c in m} | {"c0006x": "hi"}
    paths = files(tmp_path, maps, answers)
    serial = run(monkeypatch, capsys, paths, None)
    assert serial[0] == 0 and "'c0006x'" not in serial[2] and "c0006x (closest case: c006)" in serial[2]
    assert run(monkeypatch, capsys, paths, 2, shared_only=True) == serial


def _broken(kind: str) -> tuple[list[list[dict[str, Any]]], dict[str, str] | None]:
    maps = [[case(i) for i in range(0, 8)], [case(i) for i in range(8, 16)]]
    answers: dict[str, str] | None = None
    if kind == "duplicate id across ConfigMaps":
        maps[1][6]["id"] = "c001"
    elif kind == "duplicate id within a ConfigMap, in different shares":
        maps[1][7]["id"] = "c008"
    elif kind == "invalid case in the second share":
        maps[1][7]["tier"] = "nonsense"
    elif kind == "not a list of cases":
        maps[0] = {"cases": 3}  # type: ignore[call-overload]
        answers = {f"c{i:03d}": "order was shipped" for i in range(16)}
    elif kind == "assertion that does not compile":
        maps[1][7]["assert"] = [{"type": "regex", "value": "("}]
    elif kind == "case without an answer":
        answers = {c["id"]: "order was shipped" for m in maps for c in m if c["id"] != "c013"}
    elif kind == "answers that are not text, and an invalid case":
        answers = {c["id"]: 3 for m in maps for c in m}  # type: ignore[misc]
        maps[1][2]["tier"] = "nonsense"
    return maps, answers


@pytest.mark.parametrize(
    "kind",
    [
        "duplicate id across ConfigMaps",
        "duplicate id within a ConfigMap, in different shares",
        "invalid case in the second share",
        "not a list of cases",
        "assertion that does not compile",
        "case without an answer",
        "answers that are not text, and an invalid case",
    ],
)
def test_a_refusal_is_worded_as_one_process_words_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    maps, answers = _broken(kind)
    paths = files(tmp_path, maps, answers)
    serial = run(monkeypatch, capsys, paths, None)
    assert serial[0] == 2 and serial[1] == "" and "nothing was graded" in serial[2]
    assert run(monkeypatch, capsys, paths, 2) == serial
