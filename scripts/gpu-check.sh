#!/usr/bin/env bash
# Builds lapis against a CUDA-enabled Kokkos and a Kokkos Kernels built on it (cuBLAS and cuSPARSE
# on) and runs everything on the GPU: the C++ tests and the
# benchmarks' transfer check (meson test), the pytest suite, every example, and, given OUT_DIR, the
# benchmark report (a few minutes; where commands are time-limited, run it apart). For a GPU
# machine without network: it needs meson, ninja, Cython, numpy and nvcc there, GoogleTest and
# Google Benchmark where pkg-config or CMAKE_PREFIX_PATH finds them, and takes pytest and
# matplotlib from LAPIS_WHEELS (a folder of wheels) when they are missing.
# Usage: scripts/gpu-check.sh KOKKOS_PREFIX KOKKOS_KERNELS_PREFIX [OUT_DIR]
set -euo pipefail
kokkos="$(cd "$1" && pwd)"
kokkos_kernels="$(cd "$2" && pwd)"
out="${3:+$(mkdir -p "$3" && cd "$3" && pwd)}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python=${PYTHON:-python3}

for module in pytest matplotlib; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    "$python" -m pip install -q --no-index --find-links "${LAPIS_WHEELS:?$module is missing: set LAPIS_WHEELS}" "$module"
  fi
done

build=build/gpu
stage="$root/$build/stage"
if [ ! -f "$build/build.ninja" ]; then
  CMAKE_PREFIX_PATH="$kokkos_kernels:$kokkos${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}" meson setup "$build" -Dtests=true -Dbenchmarks=true -Dpython.install_env=auto
fi
ninja -C "$build"
rm -rf "$stage" && meson install -C "$build" --destdir "$stage" >/dev/null
site="$(dirname "$(find "$stage" -name __init__.py -path '*/lapis/*' | head -n 1)")/.."
export PYTHONPATH="$(cd "$site" && pwd)"

status=0
echo "== meson test"
meson test -C "$build" --print-errorlogs || status=1
echo "== pytest"
# (the wheel test needs build requirements from a package index, which such a machine cannot reach)
"$python" -m pytest -q -rs tests -p no:cacheprovider --deselect tests/test_wheel.py::test_wheel_contents || status=1
echo "== examples"
"$python" scripts/run_examples.py default || status=1
if [ -n "$out" ]; then
  echo "== benchmark report"
  "$python" benchmarks/report.py "$build/benchmarks/transfers" --out "$out" || status=1
fi
exit "$status"
