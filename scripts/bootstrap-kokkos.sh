#!/usr/bin/env bash
# Builds a shared Kokkos (so that lapis and every module built on it run on one Kokkos) into the
# cache, once:
# - the release (scripts/common.sh: kokkos_release, the default) from its archive
#   (scripts/release-source.sh: the download cache, else the project's release page);
# - Debian's version (kokkos_debian) from the standalone Kokkos tree inside Debian's `trilinos`
#   source package (scripts/trilinos-source.sh), for machines that can have only Debian's archive.
# Idempotent and cached: a second run only prints the install prefix.
#
# Usage: scripts/bootstrap-kokkos.sh [PREFIX]
#   LAPIS_KOKKOS_VERSION: the release's version (default) or Debian's.
#   LAPIS_KOKKOS_BACKENDS: openmp (default: OpenMP + Serial), serial (Serial only: the thread
#     sanitizer's Kokkos, and "another Kokkos" that the tests build a module against by mistake), or
#     cuda (CUDA + Serial, the release only, compiled by Kokkos's nvcc_wrapper for LAPIS_CUDA_ARCH, a
#     compute capability such as 90, read off the machine's first GPU with nvidia-smi when unset).
#   PREFIX defaults to ~/.cache/lapis-dualview/kokkos-<version>-<backends>-shared.
# Prints the prefix (the value for Kokkos_ROOT) as its last line.
set -euo pipefail
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$scripts/common.sh"
version="${LAPIS_KOKKOS_VERSION:-$kokkos_release}"
backends="${LAPIS_KOKKOS_BACKENDS:-openmp}"
log() { echo "bootstrap-kokkos: $*" >&2; }
fail() { log "$*"; exit 2; }
case "$version" in
  "$kokkos_release" | "$kokkos_debian") ;;
  *) fail "LAPIS_KOKKOS_VERSION must be $kokkos_release or $kokkos_debian, not '$version'" ;;
esac

options=(-DCMAKE_CXX_COMPILER=g++)
flavour="$backends"
case "$backends" in
  openmp) options+=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON) ;;
  serial) options+=(-DKokkos_ENABLE_SERIAL=ON) ;;
  cuda)
    [ "$version" != "$kokkos_debian" ] || fail "Kokkos $kokkos_debian does not compile with CUDA 13: use $kokkos_release"
    command -v nvcc >/dev/null || fail "LAPIS_KOKKOS_BACKENDS=cuda needs nvcc on PATH"
    arch="${LAPIS_CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')}"
    # Kokkos's name of each architecture, by compute capability (those CUDA 13 still compiles for).
    case "$arch" in
      75) kokkos_arch=TURING75 ;; 80) kokkos_arch=AMPERE80 ;; 86) kokkos_arch=AMPERE86 ;;
      89) kokkos_arch=ADA89 ;; 90) kokkos_arch=HOPPER90 ;; 100) kokkos_arch=BLACKWELL100 ;;
      120) kokkos_arch=BLACKWELL120 ;;
      "") fail "no GPU found to read the architecture off: set LAPIS_CUDA_ARCH (e.g. 90 for an H100)" ;;
      *) fail "LAPIS_CUDA_ARCH=$arch is not one of 75, 80, 86, 89, 90, 100, 120" ;;
    esac
    flavour="cuda-sm$arch"
    options=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON "-DKokkos_ARCH_$kokkos_arch=ON") ;;
  *) fail "LAPIS_KOKKOS_BACKENDS must be openmp, serial or cuda, not '$backends'" ;;
esac

prefix="${1:-$cache_root/kokkos-$version-$flavour-shared}"
if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  echo "$prefix"
  exit 0
fi

mkdir -p "$cache_root"
work="$(mktemp -d "$cache_root/build-kokkos.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [ "$version" = "$kokkos_debian" ]; then
  tree="$("$scripts/trilinos-source.sh" kokkos | tail -n 1)"
else
  tree="$("$scripts/release-source.sh" kokkos "$version" "$work/src" | tail -n 1)"
  if [ "$backends" = cuda ]; then
    python3 "$scripts/kokkos_cuda13.py" "$tree" "sm_$arch"
    options+=(-DCMAKE_CXX_COMPILER="$tree/bin/nvcc_wrapper")
  fi
fi

log "building Kokkos $version ($flavour) into $prefix"
cmake -S "$tree" -B "$work/build" -G "$(command -v ninja >/dev/null && echo Ninja || echo 'Unix Makefiles')" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON "${options[@]}" \
  -DKokkos_ENABLE_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log" 2>&1 ||
  { tail -n 30 "$work/configure.log" >&2; fail "configuring Kokkos failed"; }
cmake --build "$work/build" -j"$(nproc)" >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log" >&2; fail "building Kokkos failed"; }
cmake --install "$work/build" >/dev/null
echo "$prefix"
