"""Real receivers of notices for the tests: Alertmanager (the binary ``make alertmanager`` builds
from its Go module) on a free loopback port, and a local webhook server that checks each notice's
HMAC-SHA256 signature the way a receiver should (a bad or missing one is answered 401)."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from proctor.collector.notices import NOTICE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify
from proctor.devcluster.controlplane import free_port
from proctor.testing.cluster import scaled

ROOT = Path(__file__).resolve().parents[1]
CONFIG = """\
route:
  receiver: blackhole
  group_wait: 1s
  group_interval: 1s
receivers:
  - name: blackhole
"""


def alertmanager_binary() -> Path:
    """The binary ``make alertmanager`` builds (hack/get-alertmanager.sh)."""
    out = subprocess.run(
        ["bash", str(ROOT / "hack" / "get-alertmanager.sh"), "--print"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


@dataclass
class Alertmanager:
    url: str
    proc: subprocess.Popen[bytes]

    def alerts(self, **filters: str) -> list[dict[str, Any]]:
        """Alerts as its v2 API lists them (it lists only those not yet resolved)."""
        query = [("filter", f'{k}="{v}"') for k, v in filters.items()]
        reply = httpx.get(f"{self.url}/api/v2/alerts", params=query, timeout=scaled(30))
        reply.raise_for_status()
        return list(reply.json())

    def received(self, status: str) -> float:
        """``alertmanager_alerts_received_total{status=...}``: alerts it took in, firing or resolved."""
        text = httpx.get(f"{self.url}/metrics", timeout=scaled(30)).text
        total = 0.0
        for line in text.splitlines():
            if line.startswith("alertmanager_alerts_received_total{") and f'status="{status}"' in line:
                total += float(line.rsplit(" ", 1)[1])
        return total


@contextmanager
def alertmanager(tmp: Path) -> Iterator[Alertmanager]:
    binary = alertmanager_binary()
    if not binary.is_file():
        raise AssertionError(
            f"Alertmanager is not built at {binary}: run `make alertmanager` (make test does)"
        )
    (tmp / "am.yml").write_text(CONFIG)
    port = free_port()
    log = (tmp / "alertmanager.log").open("wb")
    proc = subprocess.Popen(
        [
            str(binary),
            f"--config.file={tmp / 'am.yml'}",
            f"--storage.path={tmp / 'am-data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",  # one instance: no gossip port
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + scaled(60)
    try:
        while True:
            try:
                if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"Alertmanager did not start:\n{(tmp / 'alertmanager.log').read_text()[-2000:]}"
                )
            time.sleep(0.1)
        yield Alertmanager(url, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@dataclass
class Webhook:
    """A webhook receiver that keeps the notices whose signature checks out and counts the others."""

    secret: str
    url: str = ""
    notices: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0
    status: int = 200  # what it answers a good notice (a test may make it fail)
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def webhook(secret: str) -> Iterator[Webhook]:
    hook = Webhook(secret)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            stamp = self.headers.get(TIMESTAMP_HEADER) or ""
            signature = self.headers.get(SIGNATURE_HEADER) or ""
            ok = bool(stamp and signature) and verify(hook.secret, stamp, body, signature)
            with hook.lock:
                if not ok:
                    hook.refused += 1
                    status = 401
                else:
                    status = hook.status
                    if status < 300:
                        doc = json.loads(body)
                        doc["_header_id"] = self.headers.get(NOTICE_HEADER)
                        hook.notices.append(doc)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hook.url = f"http://127.0.0.1:{server.server_address[1]}/notices"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
