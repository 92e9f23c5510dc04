#!/usr/bin/env bash
# `make bench`: every benchmark in bench/, printing figures (no pass/fail on timings).
# BENCH=name runs one (file stem in bench/), e.g. BENCH=grading_vs_promptfoo make bench.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
run() { printf '\n\033[1m== bench/%s\033[0m\n' "$1"; $PY "bench/$1.py" "${@:2}"; }
if [[ -n "${BENCH:-}" ]]; then run "$BENCH"; exit; fi
for f in bench/*.py; do
  name="$(basename "$f" .py)"
  [[ "$name" == _* ]] && continue
  run "$name"
done
