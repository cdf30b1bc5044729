#!/usr/bin/env bash
# Extracts one package of Debian's `trilinos` source package (packages/NAME, e.g. kokkos or
# kokkos-kernels) into the cache, downloading the source package once (about 166 MB; deb-src
# entries are added to apt's sources if there are none). Installs cmake, g++ and make if missing,
# since whoever extracts a package builds it next.
# Usage: scripts/trilinos-source.sh NAME   Prints the extracted tree as its last line.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
name="$1"
work="$cache_root/src"
log() { echo "trilinos-source: $*" >&2; }

missing=()
for tool in cmake g++ make; do command -v "$tool" >/dev/null || missing+=("$tool"); done
srcs=/etc/apt/sources.list.d/lapis-deb-src.sources
if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "adding deb-src entries ($srcs)"
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | as_root tee "$srcs" >/dev/null
  need_update=1
fi
if [ "${need_update:-0}" = 1 ] || [ "${#missing[@]}" -gt 0 ]; then
  as_root apt-get update -qq
fi
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  as_root apt-get install -y -qq cmake g++ make >/dev/null
fi

mkdir -p "$work"
cd "$work"
orig=$(ls trilinos_*.orig.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$orig" ]; then
  log "downloading the trilinos source package (about 166 MB, once)"
  apt-get source --download-only -qq trilinos >/dev/null
  orig=$(ls trilinos_*.orig.tar.* | head -n 1)
fi

tree="$work/${orig%%.orig.tar.*}/$name"
if [ ! -f "$tree/CMakeLists.txt" ]; then
  log "extracting packages/$name from $orig"
  rm -rf "$work/extract" && mkdir -p "$work/extract"
  tar -xf "$orig" -C "$work/extract" --wildcards "*/packages/$name/*"
  mkdir -p "$(dirname "$tree")"
  rm -rf "$tree" && mv "$work/extract"/*/"packages/$name" "$tree"
  rm -rf "$work/extract"
fi
echo "$tree"
