#!/usr/bin/env bash
# Provides the release source archive of Kokkos or Kokkos Kernels from a download cache: the folder
# $LAPIS_DOWNLOAD_CACHE (default ~/.cache/lapis-dualview/downloads), where a user (or CI) may put the
# archives by hand. An archive missing there is downloaded from the project's release page where the
# machine can reach it. Every archive is checked against its pinned sha256 before use.
#
# Usage: scripts/release-source.sh NAME VERSION [DEST]
#   NAME is kokkos or kokkos-kernels. Prints the archive's path as its last line; given DEST, unpacks
#   the archive into DEST (which must not exist) and prints the source tree instead.
#   --check NAME VERSION: exits 0 if the archive is in the cache or can be downloaded, 1 otherwise,
#   and prints nothing; downloads it in the first case.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_only=0
[ "${1:-}" = --check ] && { check_only=1; shift; }
name="$1" version="$2" dest="${3:-}"
log() { [ "$check_only" = 1 ] || echo "release-source: $*" >&2; }

# The release archives this project builds against (common.sh pins them): the upstream release
# downloads (github.com/kokkos/<name>/releases/download/<version>/<name>-<version>.tar.gz).
case "$name-$version" in
  "kokkos-$kokkos_release") sha256=$kokkos_release_sha256 ;;
  "kokkos-kernels-$kokkos_kernels_release") sha256=$kokkos_kernels_release_sha256 ;;
  *) echo "release-source: no pinned archive for $name $version" \
          "(known: kokkos $kokkos_release, kokkos-kernels $kokkos_kernels_release)" >&2
     exit 2 ;;
esac
cache="${LAPIS_DOWNLOAD_CACHE:-$cache_root/downloads}"
archive="$cache/$name-$version.tar.gz"
url="https://github.com/kokkos/$name/releases/download/$version/$name-$version.tar.gz"

verified() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha256" ]; }
if [ -f "$archive" ] && ! verified "$archive"; then
  echo "release-source: $archive does not have the sha256 of the $name $version release ($sha256):" \
       "replace it with the file from $url" >&2
  exit 1
fi
if [ ! -f "$archive" ]; then
  log "$name-$version.tar.gz is not in $cache: downloading it from $url"
  mkdir -p "$cache" 2>/dev/null || true
  partial="$(mktemp "${TMPDIR:-/tmp}/$name-$version.XXXXXX")"
  if ! curl -fsSL --connect-timeout 10 --max-time 600 -o "$partial" "$url" 2>/dev/null || ! verified "$partial"; then
    rm -f "$partial"
    log "cannot download $url; put $name-$version.tar.gz (sha256 $sha256) into $cache"
    exit 1
  fi
  # the cache may be read-only (a shared folder): the archive is then used from where it landed
  mv "$partial" "$archive" 2>/dev/null || archive="$partial"
fi
[ "$check_only" = 1 ] && exit 0
if [ -z "$dest" ]; then
  echo "$archive"
  exit 0
fi
mkdir -p "$dest"
tar -xzf "$archive" -C "$dest" --strip-components=1
echo "$dest"
