#!/usr/bin/env bash
# Runs every test and exits non-zero on any failure: the C++ tests of the header library and the
# benchmarks' transfer check (meson test), then the Python tests on the default device and on the
# simulated device.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh

export PATH="$root/.venv/bin:$PATH"
meson test -C build/cpp --print-errorlogs

status=0
echo "== pytest, default device"
python -m pytest tests || status=$?
echo "== pytest, simulated device (LAPIS_DEVICE=simulated)"
LAPIS_DEVICE=simulated python -m pytest tests || status=$?
exit "$status"
