"""A small example agent: an engine oil-monitoring assistant over HTTP (stdlib only).

POST /ask {"question": "..."} -> {"answer": "..."}; GET /healthz -> 200.

Versions (``AGENT_VERSION``; on Proctor's local node stand-in, the image tag):
- v1: correct.
- v2: the seed's band-boundary bug: 0.30 qt/hr, the inclusive lower bound of ELEVATED, is read as
  NORMAL. A perfectly formed answer carrying the wrong threshold.
- v1.1: correct, with different wording.

It listens on ``POD_IP`` (the downward API's status.podIP) when set, else all interfaces, on ``PORT``
(default 8080).
"""

from __future__ import annotations

import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def version() -> str:
    if v := os.environ.get("AGENT_VERSION"):
        return v
    image = os.environ.get("PROCTOR_NODE_IMAGE", "")
    return image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else "v1"


def band(value: float, buggy: bool) -> str:
    if value < 0.30 or (buggy and value <= 0.30):
        return "NORMAL"
    return "ELEVATED" if value < 0.60 else "HIGH"


def answer(question: str, v: str) -> str:
    q = question.lower()
    figure = re.search(r"(\d+(?:\.\d+)?)\s*qt/hr", q)
    if "auxiliary power unit" in q or "apu" in q.split():
        return ("I can't answer that: the manual I have (AMM 72-00) gives oil consumption bands for the "
                "main engines only, not the APU.")
    if "json" in q and figure:
        return json.dumps({"band": band(float(figure.group(1)), v == "v2"), "source": "AMM 72-00"})
    if "dispatch" in q and figure:
        b = band(float(figure.group(1)), v == "v2")
        rule = "dispatch is allowed with a trend check" if b == "ELEVATED" else "dispatch is allowed"
        return f"{figure.group(1)} qt/hr is in the {b} band: {rule} (AMM 72-00)."
    if figure:
        value = float(figure.group(1))
        b = band(value, v == "v2")
        if v == "v1.1":
            return f"Band: {b}. {value:.2f} qt/hr, per the AMM 72-00 consumption bands."
        why = {
            "NORMAL": f"{value:.2f} qt/hr is within limits",
            "ELEVATED": f"{value:.2f} qt/hr is in the ELEVATED band (from 0.30 up to 0.60 qt/hr)",
            "HIGH": f"{value:.2f} qt/hr is where the HIGH band starts or beyond",
        }[b]
        return f"{b}: {why} (AMM 72-00)."
    if "where" in q and "come from" in q:
        return "They come from the aircraft maintenance manual, chapter AMM 72-00."
    if "one sentence" in q:
        return "ELEVATED means consumption from 0.30 up to 0.60 qt/hr: monitor the trend."
    if "summarise" in q or "summarize" in q:
        return "NORMAL below 0.30 qt/hr, ELEVATED from 0.30 to 0.60, HIGH from 0.60. Source: AMM 72-00."
    return "I don't know: that is outside the oil consumption bands of AMM 72-00."


class Handler(BaseHTTPRequestHandler):
    server_version = "oil-agent"

    def log_message(self, fmt: str, *args: object) -> None:
        sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

    def _send(self, code: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/healthz":
            self._send(200, {"ok": True, "version": version()})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/ask":
            self._send(404, {"error": "not found"})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            question = str(body["question"])
        except (ValueError, KeyError, TypeError):
            self._send(400, {"error": 'expected {"question": "..."}'})
            return
        self._send(200, {"answer": answer(question, version())})


def main() -> None:
    host = os.environ.get("POD_IP") or "0.0.0.0"
    port = int(os.environ.get("PORT", "8080"))
    server = ThreadingHTTPServer((host, port), Handler)
    print(f"oil agent {version()} listening on {host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
