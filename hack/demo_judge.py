"""`make demo`'s judge of live runs: a local OpenAI-compatible server that checks band readings.

A real HTTP server (``proctor.testing.judgeserver``) whose judgment of ``factual_grounding`` is
computed from the run it is shown, not scripted per run: every answer of the agent that reads a
consumption figure into a band (``NORMAL: 0.30 qt/hr is within limits``) is checked against the
maintenance manual's bands (AMM 72-00, what the agent's ``oil_bands`` tool returns). The score is 92
less 40 points times the share of readings that disagree: one band off in half the readings is 72
(above the EvalProfile's threshold of 70), in all of them 52 (below it); 92 when there is nothing
to check. Every other dimension scores 92. So the example agent's v1 scores 92 everywhere, and
v2's boundary bug (0.30 qt/hr read as NORMAL) lowers a conversation's score as often as it shows.

Prints its base URL on the first line, then serves until SIGTERM or SIGINT. In production the
EvalProfile's endpoint is any OpenAI-compatible model; this stands in for one, deterministically.
"""

from __future__ import annotations

import re
import signal
import sys
import threading

from proctor.judge.prompts import LABELS
from proctor.testing.judgeserver import Behaviour, JudgeServer, RecordedRequest, judgment, respond_with

#: The judge's usual mark for an answer that meets the dimension.
FULL = 92
#: What readings that all disagree with the manual cost (a band one step off, not a made-up one).
WRONG = 40
#: AMM 72-00: NORMAL below 0.30 qt/hr, ELEVATED from 0.30 up to 0.60, HIGH from 0.60.
BANDS = ((0.30, "NORMAL"), (0.60, "ELEVATED"))
_DIMENSION = re.compile(r"^Dimension: (\S+)", re.M)
#: the agent's answer block of the judge prompt (proctor.judge.prompts: its label, then the data markers)
_ANSWER = re.compile(re.escape(LABELS["answer"]) + r":\n<<DATA-(\w+)>>\n(.*?)\n<<END-DATA-\1>>", re.S)
_FIGURE = re.compile(r"(\d+(?:\.\d+)?)\s*qt/hr")
_BAND = re.compile(r"\b(NORMAL|ELEVATED|HIGH)\b")


def manual(value: float) -> str:
    """The band AMM 72-00 gives a consumption figure."""
    return next((band for limit, band in BANDS if value < limit), "HIGH")


def readings(answer: str) -> list[tuple[str, str, str]]:
    """(figure, band read, band in the manual) for each reply of the agent that reads a figure."""
    out = []
    for line in answer.splitlines():
        if not line.startswith("[assistant] "):
            continue  # tool calls and the manual's own text are not the agent's readings
        figure, band = _FIGURE.search(line), _BAND.search(line)
        if figure and band:
            out.append((figure.group(1), band.group(1), manual(float(figure.group(1)))))
    return out


def judge(request: RecordedRequest) -> Behaviour:
    dimension = _DIMENSION.search(request.system_text)
    answer = _ANSWER.search(request.user_text)
    if dimension is None or answer is None or dimension.group(1) != "factual_grounding":
        return judgment(FULL, "Meets the rubric.", 0.9)
    found = readings(answer.group(2))
    if not found:
        return judgment(FULL, "No band reading to check; the replies stay within AMM 72-00.", 0.8)
    wrong = [(f, b, m) for f, b, m in found if b != m]
    score = round(FULL - WRONG * len(wrong) / len(found))
    if not wrong:
        return judgment(score, f"Every band reading ({len(found)}) agrees with AMM 72-00.", 0.9)
    f, b, m = wrong[0]
    why = f"Reads {f} qt/hr as {b}; AMM 72-00 puts {f} qt/hr in {m}."
    return judgment(score, f"{why} {len(wrong)} of {len(found)} band readings disagree with the manual.", 0.9)


def main() -> int:
    with JudgeServer(default=respond_with(judge)) as server:
        print(server.base_url, flush=True)
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
