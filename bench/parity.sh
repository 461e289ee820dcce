#!/usr/bin/env bash
# LocAgent parity on real corpora: downloads the requests 2.31.0 and flask 3.0.0 sdists (the
# inputs of tests/fixtures/locagent/graph_{requests,flask}.jsonl), unpacks them into a cache
# outside the repository, and runs the parity tests against them.
#
#   bench/parity.sh [CACHE_DIR] [-- CARGO_TEST_ARGS...]
#
# CACHE_DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/cds/parity. Needs pip (for
# `pip download`), tar and cargo.
set -euo pipefail

cache="${XDG_CACHE_HOME:-$HOME/.cache}/cds/parity"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  cache="$1"
  shift
fi
[ "${1:-}" = "--" ] && shift
mkdir -p "$cache/sdist"
cache="$(cd "$cache" && pwd)"

repo="$(cd "$(dirname "$0")/.." && pwd)"
pip="$(command -v pip3 || command -v pip || true)"

for spec in requests==2.31.0 flask==3.0.0; do
  name="${spec%%==*}"
  version="${spec##*==}"
  dir="$cache/$name-$version"
  [ -d "$dir" ] && continue
  find_archive() { find "$cache/sdist" -maxdepth 1 -iname "$name-$version.tar.gz" | head -n 1; }
  archive="$(find_archive)"
  if [ -z "$archive" ]; then
    [ -n "$pip" ] || { echo "parity.sh: pip is needed to download $spec" >&2; exit 1; }
    # --no-binary: the sdist, which is what LocAgent's reference graphs were built from.
    "$pip" download --quiet --no-deps --no-binary :all: "$spec" -d "$cache/sdist"
    archive="$(find_archive)"
    [ -n "$archive" ] || { echo "parity.sh: no $name-$version.tar.gz after pip download" >&2; exit 1; }
  fi
  # Unpack into a temporary directory first, so an interrupted run is not taken for a done one.
  tmp="$(mktemp -d "$cache/.unpack.XXXXXX")"
  tar -xzf "$archive" -C "$tmp"
  mv "$tmp"/*/ "$dir"
  rm -rf "$tmp"
done

cd "$repo"
CDS_PARITY_CORPORA="$cache" exec cargo test --release --test integration parity "$@"
