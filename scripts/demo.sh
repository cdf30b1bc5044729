#!/usr/bin/env bash
# The project's main job: runs every example (each checks itself against numpy) on the default
# device and on the simulated device, where every copy is real, and prints the copies lapis made.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh
.venv/bin/python scripts/run_examples.py
