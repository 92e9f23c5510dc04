"""SQLite's durability level: FULL unless the operator of the collector chooses NORMAL, never OFF."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from proctor.collector import add_arguments
from proctor.store import Store

#: PRAGMA synchronous answers a number: 1 NORMAL, 2 FULL.
LEVELS = {1: "NORMAL", 2: "FULL"}


def level(store: Store) -> set[str]:
    """The level of every connection the pool hands out (a write and a read at once)."""
    with store.engine.connect() as a, store.engine.connect() as b:
        return {LEVELS[int(c.exec_driver_sql("PRAGMA synchronous").scalar_one())] for c in (a, b)}


def test_a_store_commits_with_fsync_unless_normal_is_asked(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    default = Store.open(url)
    try:
        assert level(default) == {"FULL"}
    finally:
        default.close()
    normal = Store.open(url, sqlite_synchronous="normal")
    try:
        assert level(normal) == {"NORMAL"}
    finally:
        normal.close()


@pytest.mark.parametrize("bad", ["OFF", "EXTRA", "0", ""])
def test_any_other_level_is_refused_before_the_database_is_opened(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="FULL, NORMAL"):
        Store.open(f"sqlite:///{tmp_path / 'c.db'}", sqlite_synchronous=bad)
    assert not (tmp_path / "c.db").exists()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_flag_and_its_environment_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PROCTOR_SQLITE_SYNCHRONOUS", raising=False)
    assert parse([]).sqlite_synchronous == "FULL"
    assert parse(["--sqlite-synchronous", "normal"]).sqlite_synchronous == "NORMAL"
    monkeypatch.setenv("PROCTOR_SQLITE_SYNCHRONOUS", "NORMAL")
    assert parse([]).sqlite_synchronous == "NORMAL"
    assert parse(["--sqlite-synchronous", "FULL"]).sqlite_synchronous == "FULL"
    with pytest.raises(SystemExit) as e:
        parse(["--sqlite-synchronous", "OFF"])
    assert e.value.code == 2 and "FULL, NORMAL" in capsys.readouterr().err
    monkeypatch.setenv("PROCTOR_SQLITE_SYNCHRONOUS", "OFF")  # a bad environment is refused as loudly
    with pytest.raises(SystemExit) as e:
        parse([])
    assert e.value.code == 2 and "FULL, NORMAL" in capsys.readouterr().err
