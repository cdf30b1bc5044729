#!/usr/bin/env bash
# Builds Kokkos Kernels, shared, against the given Kokkos, into the cache, once. No explicit
# instantiations (ETI off): lapis instantiates what it uses, and the build takes seconds.
# - For a Kokkos 4: the Kokkos Kernels release of scripts/common.sh, from its archive
#   (scripts/release-source.sh); for Kokkos 3.4: Kokkos Kernels of Debian's version from its
#   `trilinos` source package (scripts/trilinos-source.sh).
# - On a CPU Kokkos its BLAS and LAPACK calls go to OpenBLAS (the reference BLAS is 20 times slower)
#   in its OpenMP build (libopenblas-openmp-dev, installed if missing): it then runs on the OpenMP
#   threads Kokkos's kernels run on, where the pthreads build's threads would compete with them for
#   the cores (a small ResNet-18 ran 5.6 times slower).
# - On a CUDA Kokkos: cuBLAS and cuSPARSE, compiled by the nvcc_wrapper installed with that Kokkos.
# Idempotent and cached: a second run only prints the install prefix.
#
# Usage: scripts/bootstrap-kokkos-kernels.sh KOKKOS_PREFIX [PREFIX]
#   PREFIX defaults to ~/.cache/lapis-dualview/kokkos-kernels-<version>-for-<KOKKOS_PREFIX's name>.
# Prints the prefix (the value for KokkosKernels_ROOT) as its last line.
set -euo pipefail
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$scripts/common.sh"
kokkos_prefix="$(realpath "$1")"
log() { echo "bootstrap-kokkos-kernels: $*" >&2; }
fail() { log "$*"; exit 2; }

kokkos_config="$(find "$kokkos_prefix" -name KokkosConfigVersion.cmake -print -quit)"
[ -n "$kokkos_config" ] || fail "no Kokkos installed at $kokkos_prefix"
kokkos_version="$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")$/\1/p' "$kokkos_config")"
case "$kokkos_version" in
  3.*) version=$kokkos_debian ;;
  4.*) version=$kokkos_kernels_release ;;
  *) fail "Kokkos $kokkos_version at $kokkos_prefix: Kokkos Kernels is bootstrapped for Kokkos 3.4 and 4.6 or newer" ;;
esac
cuda=0
grep -qs '^#define KOKKOS_ENABLE_CUDA$' "$kokkos_prefix/include/KokkosCore_config.h" && cuda=1

prefix="${2:-$cache_root/kokkos-kernels-$version-for-$(basename "$kokkos_prefix")}"
if [ -f "$prefix/lib/cmake/KokkosKernels/KokkosKernelsConfig.cmake" ] ||
   [ -f "$prefix/lib64/cmake/KokkosKernels/KokkosKernelsConfig.cmake" ]; then
  echo "$prefix"
  exit 0
fi

if [ "$cuda" = 1 ]; then
  options=(-DCMAKE_CXX_COMPILER="$kokkos_prefix/bin/nvcc_wrapper"
           -DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=ON)
  vendor="cuBLAS and cuSPARSE"
else
  if ! dpkg -s libopenblas-openmp-dev >/dev/null 2>&1; then
    log "installing libopenblas-openmp-dev"
    as_root apt-get update -qq
    as_root apt-get install -y -qq libopenblas-openmp-dev >/dev/null
  fi
  # Debian's variants lie side by side; the system's default libopenblas.so.0 may be another one, so
  # lapis puts this folder on the rpath of whatever links it (meson.build reads it off the package).
  openblas_dir="/usr/lib/$(gcc -print-multiarch)/openblas-openmp"
  options=(-DCMAKE_CXX_COMPILER=g++
           -DKokkosKernels_ENABLE_TPL_BLAS=ON -DBLAS_LIBRARIES=openblas -DBLAS_LIBRARY_DIRS="$openblas_dir"
           -DKokkosKernels_ENABLE_TPL_LAPACK=ON -DLAPACK_LIBRARIES=openblas -DLAPACK_LIBRARY_DIRS="$openblas_dir"
           -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON)
  vendor="OpenBLAS (OpenMP)"
fi

mkdir -p "$cache_root"
work="$(mktemp -d "$cache_root/build-kokkos-kernels.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [ "$version" = "$kokkos_debian" ]; then
  tree="$("$scripts/trilinos-source.sh" kokkos-kernels | tail -n 1)"
else
  tree="$("$scripts/release-source.sh" kokkos-kernels "$version" "$work/src" | tail -n 1)"
fi

log "building Kokkos Kernels $version against $kokkos_prefix, with $vendor, into $prefix"
cmake -S "$tree" -B "$work/build" -G "$(command -v ninja >/dev/null && echo Ninja || echo 'Unix Makefiles')" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON -DKokkos_ROOT="$kokkos_prefix" \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF "${options[@]}" -DKokkosKernels_ENABLE_TESTS=OFF \
  -DKokkosKernels_ENABLE_PERFTESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log" 2>&1 ||
  { tail -n 30 "$work/configure.log" >&2; fail "configuring Kokkos Kernels failed"; }
cmake --build "$work/build" -j"$(nproc)" >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log" >&2; fail "building Kokkos Kernels failed"; }
cmake --install "$work/build" >/dev/null
echo "$prefix"
