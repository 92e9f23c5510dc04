#!/usr/bin/env bash
# Install (once) or reuse the pinned promptfoo and Node 22 that the grading benchmark measures and
# the promptfoo agreement test runs: npm packages into ~/.cache/proctor/bench/ (PROCTOR_BENCH_TOOLS),
# nothing global, nothing in the repository. The pins live in bench/grading_vs_promptfoo.py.
# Prints the install directory. Needs npm (apt-get install npm) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
exec "$PY" bench/grading_vs_promptfoo.py --install-only
