#!/usr/bin/env bash
# Prepares everything the project's commands need on a fresh Debian 12 machine: build tools from
# Debian's archive, a CPU Kokkos and a Kokkos Kernels with OpenBLAS (unless CMAKE_PREFIX_PATH already
# finds them), a virtual environment in .venv/ with lapis installed into it (pip install ., build
# isolation on, packages from PyPI), and the C++ tests and benchmarks built in build/cpp.
# Kokkos and Kokkos Kernels are the releases scripts/common.sh names, built from their archives (found
# in $LAPIS_DOWNLOAD_CACHE, else downloaded: scripts/release-source.sh); where neither can be had, or
# with LAPIS_KOKKOS_VERSION set to Debian's version (common.sh: kokkos_debian), they are Kokkos and
# Kokkos Kernels of that version from Debian's trilinos source package. Both are built once and cached in ~/.cache/lapis-dualview.
# Idempotent. Source it (`. scripts/setup.sh`) to keep CMAKE_PREFIX_PATH for later meson calls.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/common.sh"

setup_started=$SECONDS
step() { echo "setup [$((SECONDS - setup_started)) s]: $*" >&2; }
# Runs a quiet step with its output in a log file, shown (its end) only if it fails.
logged() {
  local log="$1"; shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; echo "setup: failed; the whole log is $log" >&2; return 1; }
}
mkdir -p "$root/build" "$cache_root"

# Debian packages: compilers and CMake (Kokkos, meson's CMake lookup), GoogleTest and Google
# Benchmark (C++ tests and benchmarks), pkg-config, Open MPI (lapis.mpi's tests, mpi4py's MPI), and
# venv support for the system Python.
packages=(g++ cmake make pkg-config libgtest-dev libbenchmark-dev openmpi-bin libopenmpi-dev)
python3 -c 'import ensurepip, venv' 2>/dev/null || packages+=(python3-venv)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  step "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# MLIR's memref descriptor header (mlir/ExecutionEngine/CRunnerUtils.h, from Debian's libmlir-15-dev,
# of which only the headers are unpacked into the cache): the LAPIS corpus's tests compile it beside
# lapis's own declaration of the same type.
mlir_root="$cache_root/mlir-15"
export LAPIS_MLIR_INCLUDE="$mlir_root/usr/lib/llvm-15/include"
if [ ! -f "$LAPIS_MLIR_INCLUDE/mlir/ExecutionEngine/CRunnerUtils.h" ]; then
  step "unpacking MLIR's headers (Debian's libmlir-15-dev) into $mlir_root"
  mlir_deb="$(mktemp -d)"
  (cd "$mlir_deb" && { apt-get download -qq libmlir-15-dev 2>/dev/null ||
                       { as_root apt-get update -qq && apt-get download -qq libmlir-15-dev 2>/dev/null; }; } &&
   dpkg-deb -x libmlir-15-dev_*.deb "$mlir_root")
  rm -rf "$mlir_deb"
fi

# The install prefix of the first CMake package NAME (its NAMEConfig.cmake) on CMAKE_PREFIX_PATH.
package_prefix() {
  local prefix config
  IFS=: read -ra prefixes <<<"${CMAKE_PREFIX_PATH:-}"
  for prefix in "${prefixes[@]}"; do
    [ -n "$prefix" ] || continue
    config="$(find "$prefix" -name "$1Config.cmake" -print -quit 2>/dev/null)"
    [ -n "$config" ] && { realpath "$(dirname "$config")/../../.."; return 0; }
  done
  return 1
}
if ! kokkos_prefix="$(package_prefix Kokkos)"; then
  # the release unless asked otherwise; only the default falls back, where its archives cannot be had
  requested_version="${LAPIS_KOKKOS_VERSION:-}"
  export LAPIS_KOKKOS_VERSION="${requested_version:-$kokkos_release}"
  if [ -z "$requested_version" ] &&
     ! { "$root/scripts/release-source.sh" --check kokkos "$kokkos_release" &&
         "$root/scripts/release-source.sh" --check kokkos-kernels "$kokkos_kernels_release"; }; then
    step "no Kokkos $kokkos_release / Kokkos Kernels $kokkos_kernels_release release archives in ${LAPIS_DOWNLOAD_CACHE:-$cache_root/downloads} and no download: falling back to Kokkos $kokkos_debian from Debian's trilinos source"
    LAPIS_KOKKOS_VERSION=$kokkos_debian
  fi
  step "no Kokkos on CMAKE_PREFIX_PATH: using a CPU Kokkos $LAPIS_KOKKOS_VERSION (built once, cached)"
  kokkos_prefix="$("$root/scripts/bootstrap-kokkos.sh" | tail -n 1)"
  export CMAKE_PREFIX_PATH="$kokkos_prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi
if ! package_prefix KokkosKernels >/dev/null; then
  step "no Kokkos Kernels on CMAKE_PREFIX_PATH: building Kokkos Kernels with OpenBLAS against $kokkos_prefix (once, seconds; cached)"
  kernels_prefix="$("$root/scripts/bootstrap-kokkos-kernels.sh" "$kokkos_prefix" | tail -n 1)"
  export CMAKE_PREFIX_PATH="$kernels_prefix:$CMAKE_PREFIX_PATH"
fi
step "Kokkos: $kokkos_prefix"

if [ ! -x "$root/.venv/bin/python" ]; then
  step "making the virtual environment .venv"
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install -q --upgrade pip
fi
# meson and ninja also drive the C++ tests; the package itself builds in an isolated environment.
[ -x "$root/.venv/bin/meson" ] && [ -x "$root/.venv/bin/ninja" ] || "$root/.venv/bin/python" -m pip install -q "meson>=1.1" ninja

# lapis is rebuilt only when what it is built from changed: its sources and the Kokkos it finds.
fingerprint="$(cd "$root" && { find cython include src meson.build meson_options.txt pyproject.toml -type f -print0 |
  sort -z | xargs -0 sha256sum; echo "${CMAKE_PREFIX_PATH:-}"; } | sha256sum | cut -d' ' -f1)"
stamp="$root/.venv/lapis-installed-from"
if [ "$(cat "$stamp" 2>/dev/null)" = "$fingerprint" ] && "$root/.venv/bin/python" -c "import lapis" 2>/dev/null; then
  step "lapis in .venv is up to date with its sources: not rebuilt"
else
  step "building and installing lapis into .venv (about a minute on 2 cores; log: build/setup-install.log)"
  logged "$root/build/setup-install.log" "$root/.venv/bin/python" -m pip install "$root[test,bench]"
  echo "$fingerprint" >"$stamp"
fi

# The C++ tests and benchmarks (header library, no Python) build in build/cpp; ninja rebuilds only
# what changed.
# Meson keeps what it found at configure time: a build configured with other Kokkos prefixes starts over.
cpp_prefixes="$root/build/cpp/lapis-configured-with"
if [ ! -f "$root/build/cpp/build.ninja" ] || [ "$(cat "$cpp_prefixes" 2>/dev/null)" != "${CMAKE_PREFIX_PATH:-}" ]; then
  rm -rf "$root/build/cpp"
  logged "$root/build/cpp-setup.log" "$root/.venv/bin/meson" setup "$root/build/cpp" -Dpython=false -Dtests=true -Dbenchmarks=true
  echo "${CMAKE_PREFIX_PATH:-}" >"$cpp_prefixes"
fi
step "building the C++ tests and benchmarks in build/cpp (about a minute the first time; log: build/cpp-build.log)"
logged "$root/build/cpp-build.log" "$root/.venv/bin/ninja" -C "$root/build/cpp"
step "ready"
