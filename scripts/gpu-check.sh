#!/usr/bin/env bash
# The GPU check, one command on a machine with an NVIDIA GPU and no network:
# 1. the CUDA kit, built once and cached (unless CMAKE_PREFIX_PATH already finds a CUDA Kokkos and a
#    Kokkos Kernels): the Kokkos release (CUDA + Serial, shared, for the GPU's architecture, adapted
#    to CUDA 13) and the Kokkos Kernels release (cuBLAS, cuSPARSE) of scripts/common.sh, from their archives in
#    LAPIS_DOWNLOAD_CACHE (scripts/bootstrap-kokkos.sh, scripts/bootstrap-kokkos-kernels.sh);
# 2. lapis built against it with meson (tests and benchmarks on) in build/gpu;
# 3. the C++ tests and the benchmarks' transfer check (meson test), pytest, every example, and,
#    given OUT_DIR, the benchmark report (several minutes; where commands are time-limited, run it
#    apart with `benchmarks/report.py build/gpu/benchmarks/transfers --out OUT_DIR`, fewer
#    `--repetitions` than its 5 where device time is short).
# It needs nvcc, cmake, ninja, meson, Cython and numpy there. What may be missing is taken from
# folders the caller names: GoogleTest and Google Benchmark from LAPIS_DEBS (Debian's libgtest-dev,
# libgmock-dev, libbenchmark-dev and libbenchmark1debian packages, unpacked under build/gpu-debs)
# where pkg-config does not find them; pytest, hypothesis and matplotlib from LAPIS_WHEELS (wheels).
# Usage: scripts/gpu-check.sh [OUT_DIR]      (LAPIS_CUDA_ARCH=90 names the architecture by hand;
#        LAPIS_GPU_CHECK_TESTS="tests/test_x.py ..." runs those Python tests instead of all of them,
#        where device time is short)
set -euo pipefail
out="${1:+$(mkdir -p "$1" && cd "$1" && pwd)}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/common.sh
python=${PYTHON:-python3}
started=$SECONDS
say() { echo "== [$((SECONDS - started)) s] $*"; }

for module in pytest hypothesis matplotlib; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    "$python" -m pip install -q --no-index --find-links "${LAPIS_WHEELS:?$module is missing: set LAPIS_WHEELS to a folder of wheels}" "$module"
  fi
done
if ! pkg-config --exists gtest benchmark 2>/dev/null; then
  debs="${LAPIS_DEBS:?GoogleTest or Google Benchmark is missing: set LAPIS_DEBS to a folder of their Debian packages}"
  unpacked="$root/build/gpu-debs"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$unpacked"; done
  libdir="$(dirname "$(find "$unpacked" -name gtest.pc -print -quit)")/.."
  sed -i "s|^prefix=.*|prefix=$unpacked/usr|" "$libdir"/pkgconfig/*.pc
  export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

prefixes="${CMAKE_PREFIX_PATH:-}"
if [ -z "$prefixes" ] || ! find ${prefixes//:/ } -name KokkosKernelsConfig.cmake -print -quit 2>/dev/null | grep -q .; then
  say "the CUDA kit: Kokkos $kokkos_release and Kokkos Kernels $kokkos_kernels_release (built once, cached)"
  kokkos="$(LAPIS_KOKKOS_VERSION=$kokkos_release LAPIS_KOKKOS_BACKENDS=cuda scripts/bootstrap-kokkos.sh | tail -n 1)"
  kokkos_kernels="$(scripts/bootstrap-kokkos-kernels.sh "$kokkos" | tail -n 1)"
  export CMAKE_PREFIX_PATH="$kokkos_kernels:$kokkos${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi

build=build/gpu
mkdir -p build
stage="$root/$build/stage"
say "building lapis in $build"
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dtests=true -Dbenchmarks=true -Dpython.install_env=auto >"$root/build/gpu-setup.log"
fi
# On failure: each failed target and its compiler's errors first (nvcc's instantiation notes after
# an error can run to hundreds of lines, burying it), then the log's end.
ninja -C "$build" >"$root/build/gpu-build.log" || {
  grep -E -A6 '^FAILED: |error' "$root/build/gpu-build.log" | head -n 60
  tail -n 20 "$root/build/gpu-build.log"
  exit 1
}
rm -rf "$stage" && meson install -C "$build" --destdir "$stage" >/dev/null
site="$(dirname "$(find "$stage" -name __init__.py -path '*/lapis/*' | head -n 1)")/.."
export PYTHONPATH="$(cd "$site" && pwd)"

status=0
say "meson test"
meson test -C "$build" --print-errorlogs || status=1
say "pytest"
# (the wheel test needs build requirements from a package index, which such a machine cannot reach)
parallel=()
"$python" -c "import xdist" 2>/dev/null && parallel=(-n "$(nproc)" --dist loadfile)
# shellcheck disable=SC2086 (a list of paths)
"$python" -m pytest -q -rs ${LAPIS_GPU_CHECK_TESTS:-tests} -p no:cacheprovider "${parallel[@]}" \
  -m "not package_index" || status=1
say "examples"
"$python" scripts/run_examples.py default || status=1
if [ -n "$out" ]; then
  say "benchmark report"
  "$python" benchmarks/report.py "$build/benchmarks/transfers" --out "$out" || status=1
fi
say "gpu-check: $([ "$status" = 0 ] && echo 'all passed' || echo FAILED)"
exit "$status"
