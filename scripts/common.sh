# What the scripts share, sourced by each of them: the releases lapis builds against (an upgrade is
# one edit here), the cache folder, and running a command as root.

# The platform: Kokkos and Kokkos Kernels from their release archives, each pinned by its sha256.
kokkos_release=4.6.01
kokkos_release_sha256=b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a
kokkos_kernels_release=4.7.00
kokkos_kernels_release_sha256=5c7c8c8f91817ab22dbc50ea72f02292bbd6c5b412d6f1588b27574600c478ef
# The Kokkos (and Kokkos Kernels of the same version) in Debian's trilinos source package.
kokkos_debian=3.4.01

# Where builds of Kokkos, Kokkos Kernels and the downloads are kept between runs.
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/lapis-dualview"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
