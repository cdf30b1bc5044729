#!/usr/bin/env bash
# A longer run of the property-based tests (kernels against numpy, the DualView state model, random
# programs over the Python entry points with misuse and finalize, each in its own interpreter), on
# both devices. Usage: scripts/fuzz.sh [SCALE]  (examples per property x SCALE; default 50)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for device in default simulated; do
  LAPIS_FUZZ_SCALE="${1:-50}" LAPIS_DEVICE=$device .venv/bin/python -m pytest -q tests/test_fuzz_kernels.py tests/test_model.py tests/test_fuzz_calls.py
done
