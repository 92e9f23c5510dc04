"""The README's two tours, run as a user types them: copied from README.md at test time, so the test
breaks when the README and the product drift apart.

Each tour is the ```bash block after a ``<!-- tour: NAME -->`` marker. Both run in one shell, as the
README says, from a working directory that holds what the repository root holds (``.venv``,
``crds``, ``examples``) so the files they write (``judge.url``, ``runs.db``) stay out of the
checkout. What the test changes, and why: the control plane's state directory
(``PROCTOR_DEV_DIR``, which ``proctor dev up`` reads) and the operator's listeners (this machine is
shared with other tests: free ports), and the one line of the arm B tour that names its ports
(it says "any two free ports"). Nothing else is rewritten."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest
from tests.conftest import REPO

from proctor.testing.cluster import scaled

TOURS = ("arm-a", "arm-b")
PORTS_LINE = "COLLECTOR_PORT=4318 AGENT_PORT=8765"


def tour(readme: str, name: str) -> str:
    """The bash block right after ``<!-- tour: NAME -->``."""
    m = re.search(rf"<!-- tour: {re.escape(name)} -->\n```bash\n(.*?)\n```", readme, re.S)
    assert m is not None, f"README.md has no ```bash block after <!-- tour: {name} -->"
    return m.group(1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_tours_are_marked_and_name_their_ports_on_one_line() -> None:
    readme = (REPO / "README.md").read_text()
    blocks = [tour(readme, name) for name in TOURS]
    assert blocks[1].splitlines()[0].startswith(PORTS_LINE)
    # every object the arm B tour uses is made by a command it gives
    for made in (
        "kubectl apply -f examples/oil-monitoring/live-rbac.yaml",
        "kubectl create secret generic oil-agent-ingest",
        "kubectl create secret generic judge-api-key",
        "proctor.testing.judgeserver",
        "examples/agent/agent.py",
    ):
        assert made in blocks[1], made


@pytest.mark.timeout(scaled(900))
def test_the_readmes_tours_run_as_written(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    arm_a, arm_b = (tour(readme, name) for name in TOURS)
    arm_b = arm_b.replace(PORTS_LINE, f"COLLECTOR_PORT={_free_port()} AGENT_PORT={_free_port()}", 1)
    work = tmp_path / "root"
    work.mkdir()
    for name in (".venv", "crds", "examples", "hack"):
        (work / name).symlink_to(REPO / name)
    dev = tmp_path / "dev"
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(
        PROCTOR_DEV_DIR=str(dev),
        PROCTOR_METRICS_PORT="0",
        PROCTOR_LIVENESS="http://127.0.0.1:0/healthz",
    )
    # the shell a user types in: no `set -e` (the offline grade exits 1 by design), and whatever
    # happens the control plane is stopped
    script = "\n".join(
        [
            f"trap '{REPO}/.venv/bin/proctor dev down --dir {dev} >/dev/null 2>&1; "
            "kill $(jobs -p) 2>/dev/null' EXIT",
            "echo '### arm-a'",
            arm_a,
            "echo '### arm-b'",
            arm_b,
        ]
    )
    proc = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(900),
        check=False,
    )
    out = proc.stdout + proc.stderr
    said = out.split("### arm-b")
    assert len(said) == 2, out[-4000:]
    a, b = said
    # arm A: the offline verdict and its exit code, then the two exams in the cluster
    assert "FAIL" in a and "exit code 1" in a, a[-3000:]
    evalruns = {
        line.split()[0]: line.split() for line in a.splitlines() if line.startswith(("oil-v1 ", "oil-v2 "))
    }
    assert evalruns["oil-v1"][1:3] == ["Evaluated", "PASS"], a[-3000:]
    assert evalruns["oil-v2"][1:3] == ["Evaluated", "FAIL"], a[-3000:]
    # arm B: both conversations judged, read by the SRE's ServiceAccount, summarised on the monitor
    assert "condition met" in b, b[-4000:]
    # (the operator's and the collector's logs go to the same terminal: only the tables' rows count)
    runs = re.findall(r"^r[0-9a-f]+\s+default/oil-agent\s+(\w+)\s", b, re.M)
    assert runs == ["Evaluated", "Evaluated"], b[-4000:]
    monitor = re.findall(r"^oil-agent\s+(\d+)\s", b, re.M)
    assert monitor == ["2"], b[-4000:]
    assert "Traceback" not in out, out[-4000:]
