#!/usr/bin/env bash
# The project's main job: runs every example (each checks itself against numpy) on the default
# device and on the simulated device, then a short run of the benchmark suites (on a CPU build, the
# simulated device, so copies are real) and prints the copies per call of each strategy.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh
started=$SECONDS
echo "== examples, each checked against numpy, on the default and the simulated device"
.venv/bin/python scripts/run_examples.py
echo
echo "== [$((SECONDS - started)) s] a short run of the benchmark suites"
.venv/bin/python benchmarks/report.py build/cpp/benchmarks/transfers --short --out build/report
echo "demo: all done in $((SECONDS - started)) s"
