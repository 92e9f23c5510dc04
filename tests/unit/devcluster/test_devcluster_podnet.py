"""Pod networking for Python containers on the node stand-in: wildcard binds take the pod IP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from proctor.devcluster import podnet


def _bound_address(tmp_path: Path, host: str, env: dict[str, str]) -> str:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(Path(podnet.__file__).read_text())
    code = f"import socket; s = socket.socket(); s.bind(({host!r}, 0)); print(s.getsockname()[0])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(site), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_a_wildcard_bind_in_a_pod_takes_the_pod_address(tmp_path: Path) -> None:
    pod = {podnet.POD_IP_ENV: "127.9.8.7"}
    assert _bound_address(tmp_path, "0.0.0.0", pod) == "127.9.8.7"
    assert _bound_address(tmp_path, "", pod) == "127.9.8.7"
    assert _bound_address(tmp_path, "127.0.0.1", pod) == "127.0.0.1"  # an explicit address is kept
    assert _bound_address(tmp_path, "0.0.0.0", {}) == "0.0.0.0"  # not in a pod: nothing changes
