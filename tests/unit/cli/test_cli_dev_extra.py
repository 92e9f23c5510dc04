"""``proctor dev`` where the development tools are left out (the operator's image)."""

from __future__ import annotations

import sys

import pytest

from proctor.cli import main


def test_proctor_dev_without_the_dev_extra_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # as in the image: proctor.devcluster is not there to import
    monkeypatch.setitem(sys.modules, "proctor.devcluster", None)
    monkeypatch.delitem(sys.modules, "proctor.devcluster.controlplane", raising=False)
    assert main(["dev", "up"]) == 2
    err = capsys.readouterr().err
    assert "not installed" in err
    assert "pip install 'proctor[dev]'" in err
    assert "Traceback" not in err
