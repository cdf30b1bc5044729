#!/usr/bin/env bash
# Provides Kokkos Kernels for a CPU Kokkos, using only Debian's archive: the Kokkos Kernels 3.4.01
# tree inside the `trilinos` source package (scripts/trilinos-source.sh), built shared against the
# given Kokkos, its BLAS and LAPACK calls going to OpenBLAS (the reference BLAS is 20 times slower)
# in its OpenMP build (libopenblas-openmp-dev, installed if missing): it then runs on the OpenMP
# threads Kokkos's kernels run on, where the pthreads build's threads would compete with them for
# the cores (a small ResNet-18 ran 5.6 times slower). No explicit instantiations (ETI off): lapis
# instantiates what it uses, and the build takes seconds. For a CUDA Kokkos (4.6 or newer), build Kokkos Kernels
# 4.7 by hand instead (docs/guide/building.md).
# Idempotent and cached: a second run only prints the install prefix.
#
# Usage: scripts/bootstrap-kokkos-kernels.sh KOKKOS_PREFIX [PREFIX]
#   PREFIX defaults to ~/.cache/lapis-dualview/kokkos-kernels-3.4.01-openblas-openmp-for-<KOKKOS_PREFIX's name>.
# Prints the prefix (the value for KokkosKernels_ROOT) as its last line.
set -euo pipefail

kokkos_prefix="$(realpath "$1")"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/lapis-dualview"
prefix="${2:-$cache_root/kokkos-kernels-3.4.01-openblas-openmp-for-$(basename "$kokkos_prefix")}"
if [ -f "$prefix/lib/cmake/KokkosKernels/KokkosKernelsConfig.cmake" ] ||
   [ -f "$prefix/lib64/cmake/KokkosKernels/KokkosKernelsConfig.cmake" ]; then
  echo "$prefix"
  exit 0
fi

log() { echo "bootstrap-kokkos-kernels: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! dpkg -s libopenblas-openmp-dev >/dev/null 2>&1; then
  log "installing libopenblas-openmp-dev"
  as_root apt-get install -y -qq libopenblas-openmp-dev >/dev/null ||
    { as_root apt-get update -qq && as_root apt-get install -y -qq libopenblas-openmp-dev >/dev/null; }
fi
# Debian's variants lie side by side; the system's default libopenblas.so.0 may be another one, so
# lapis puts this folder on the rpath of whatever links it (meson.build reads it off the package).
openblas_dir="/usr/lib/$(gcc -print-multiarch)/openblas-openmp"
tree="$("$(dirname "${BASH_SOURCE[0]}")/trilinos-source.sh" kokkos-kernels | tail -n 1)"

log "building Kokkos Kernels against $kokkos_prefix, with OpenBLAS (OpenMP), into $prefix"
build="$(mktemp -d "$(dirname "$tree")/build-kokkos-kernels.XXXXXX")"
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_CXX_STANDARD=17 \
  -DBUILD_SHARED_LIBS=ON -DKokkos_ROOT="$kokkos_prefix" -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
  -DKokkosKernels_ENABLE_TPL_BLAS=ON -DBLAS_LIBRARIES=openblas -DBLAS_LIBRARY_DIRS="$openblas_dir" \
  -DKokkosKernels_ENABLE_TPL_LAPACK=ON -DLAPACK_LIBRARIES=openblas -DLAPACK_LIBRARY_DIRS="$openblas_dir" \
  -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON \
  -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >"$build.configure.log"
cmake --build "$build" -j"$(nproc)" >"$build.build.log"
cmake --install "$build" >"$build.install.log"
rm -f "$build".*.log
rm -rf "$build"
echo "$prefix"
