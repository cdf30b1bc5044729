#!/usr/bin/env bash
# Runs every test and exits non-zero on any failure: the C++ tests of the header library and the
# benchmarks' transfer check (meson test), then the Python tests on the default device and on the
# simulated device.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh

export PATH="$root/.venv/bin:$PATH"
started=$SECONDS
say() { echo "== [$((SECONDS - started)) s] $*"; }
status=0
# what every result below is for: the Kokkos lapis was built against and runs on
kokkos="$(python -c "import lapis; i = lapis.runtime_info(); print('Kokkos', i['kokkos_version'], '(' + ','.join(i['kokkos_backends']) + ') from', i['kokkos_prefix'])")"
say "testing against $kokkos"
summary=("$kokkos")
# run NAME LOG PATTERN COMMAND...: runs a test command (its output also in build/LOG), keeping the
# lines of its own summary (those matching PATTERN) for the final report.
run() {
  local name="$1" log="build/$2" pattern="$3" rc=0
  shift 3
  say "$name"
  "$@" 2>&1 | tee "$log" || rc=$?
  [ "$rc" = 0 ] || status=$rc
  summary+=("$name: $(grep -E "$pattern" "$log" | tr -d '=' | tr -s ' ' | sed 's/^ //; s/ $//' | paste -sd ' ')$([ "$rc" = 0 ] || echo " (FAILED)")")
}
run "C++ tests" test-cpp.log '^(Ok|Fail): ' meson test -C build/cpp --print-errorlogs
run "pytest, default device" test-pytest-default.log ' in [0-9.]+s' python -m pytest tests
run "pytest, simulated device" test-pytest-simulated.log ' in [0-9.]+s' env LAPIS_DEVICE=simulated python -m pytest tests
echo
printf '%s\n' "${summary[@]}"
if [ "$status" = 0 ]; then echo "test: all passed in $((SECONDS - started)) s"; else echo "test: FAILED (see above)"; fi
exit "$status"
