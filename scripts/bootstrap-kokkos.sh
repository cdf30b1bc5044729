#!/usr/bin/env bash
# Provides a CPU Kokkos (OpenMP + Serial, shared libraries) on a Debian 12 machine that has none,
# using only Debian's archive: the standalone Kokkos 3.4.01 tree inside the `trilinos` source
# package (scripts/trilinos-source.sh). Shared, so that lapis and every module built on it run on one Kokkos.
# Idempotent and cached: a second run only prints the install prefix.
#
# Usage: scripts/bootstrap-kokkos.sh [PREFIX]
#   PREFIX defaults to $LAPIS_KOKKOS_PREFIX, else ~/.cache/lapis-dualview/kokkos-3.4.01-openmp-shared.
#   LAPIS_KOKKOS_BACKENDS=serial builds a Serial-only Kokkos instead (the tests use one as "another
#   Kokkos" that a module may wrongly be built against).
# Prints the prefix (the value for Kokkos_ROOT) as its last line.
set -euo pipefail

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/lapis-dualview"
prefix="${1:-${LAPIS_KOKKOS_PREFIX:-$cache_root/kokkos-3.4.01-openmp-shared}}"
case "${LAPIS_KOKKOS_BACKENDS:-openmp}" in
  openmp) backends=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON) ;;
  serial) backends=(-DKokkos_ENABLE_SERIAL=ON) ;;
  *) echo "bootstrap-kokkos: LAPIS_KOKKOS_BACKENDS must be openmp or serial" >&2; exit 2 ;;
esac

if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  echo "$prefix"
  exit 0
fi

log() { echo "bootstrap-kokkos: $*" >&2; }
tree="$("$(dirname "${BASH_SOURCE[0]}")/trilinos-source.sh" kokkos | tail -n 1)"
work="$(dirname "$tree")"

log "building Kokkos (${LAPIS_KOKKOS_BACKENDS:-openmp}) into $prefix"
build="$(mktemp -d "$work/build-kokkos.XXXXXX")"
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON "${backends[@]}" -DKokkos_ENABLE_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >"$build.configure.log"
cmake --build "$build" -j"$(nproc)" >"$build.build.log"
cmake --install "$build" >"$build.install.log"
rm -f "$build".*.log
rm -rf "$build"
echo "$prefix"
