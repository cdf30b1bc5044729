#!/usr/bin/env bash
# Prepares everything the project's commands need on a fresh Debian 12 machine, from the package
# registries only: build tools, a CPU Kokkos (unless CMAKE_PREFIX_PATH already finds one), a
# virtual environment in .venv/ with lapis installed into it (pip install ., build isolation on),
# and the C++ tests and benchmarks built in build/cpp.
# Idempotent. Source it (`. scripts/setup.sh`) to keep CMAKE_PREFIX_PATH for later meson calls.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages: compilers and CMake (Kokkos, meson's CMake lookup), GoogleTest and Google
# Benchmark (C++ tests and benchmarks), pkg-config, and venv support for the system Python.
packages=(g++ cmake make pkg-config libgtest-dev libbenchmark-dev)
python3 -c 'import ensurepip, venv' 2>/dev/null || packages+=(python3-venv)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

kokkos_found() {
  local prefix
  IFS=: read -ra prefixes <<<"${CMAKE_PREFIX_PATH:-}"
  for prefix in "${prefixes[@]}"; do
    [ -n "$prefix" ] && find "$prefix" -name KokkosConfig.cmake -print -quit 2>/dev/null | grep -q . && return 0
  done
  return 1
}
if ! kokkos_found; then
  kokkos_prefix="$("$root/scripts/bootstrap-kokkos.sh" | tail -n 1)"
  export CMAKE_PREFIX_PATH="$kokkos_prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi

if [ ! -x "$root/.venv/bin/python" ]; then
  python3 -m venv "$root/.venv"
fi
"$root/.venv/bin/python" -m pip install -q --upgrade pip
# meson and ninja also drive the C++ tests; the package itself builds in an isolated environment.
"$root/.venv/bin/python" -m pip install -q "meson>=1.1" ninja
echo "setup: building and installing lapis into .venv" >&2
"$root/.venv/bin/python" -m pip install -q "$root[test,bench]"

# The C++ tests and benchmarks (header library, no Python) build in build/cpp.
if [ ! -f "$root/build/cpp/build.ninja" ]; then
  "$root/.venv/bin/meson" setup "$root/build/cpp" -Dpython=false -Dtests=true -Dbenchmarks=true >/dev/null
fi
"$root/.venv/bin/ninja" -C "$root/build/cpp" >/dev/null
