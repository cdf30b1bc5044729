#!/usr/bin/env bash
# Regenerates the benchmark report: docs/benchmarks.md and its plots, from a full run of the suites.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh
.venv/bin/python benchmarks/report.py build/cpp/benchmarks/transfers --out docs
