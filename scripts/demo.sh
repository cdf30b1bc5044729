#!/usr/bin/env bash
# The project's main job: shows kernel results staying resident on the device and the copies
# lapis makes, on the default device and on the simulated device (where every copy is real).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh
echo "== default device"
.venv/bin/python examples/residency.py
echo
echo "== simulated device (LAPIS_DEVICE=simulated)"
LAPIS_DEVICE=simulated .venv/bin/python examples/residency.py
