#!/usr/bin/env bash
# Configures and builds mongostore into build/ (or build-asan/ with --sanitize).
# Usage: scripts/build.sh [--sanitize] [targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"

dir="$root/build"
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--sanitize" ]; then
  shift
  dir="$root/build-asan"
  flags=(-DCMAKE_BUILD_TYPE=Debug -DMONGOSTORE_SANITIZE=ON -DMONGOSTORE_BUILD_BENCH=OFF)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$dir" "${generator[@]}" "${flags[@]}" >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -gt 0 ]; then
  for t in "$@"; do cmake --build "$dir" --target "$t" -j "$jobs"; done
else
  cmake --build "$dir" -j "$jobs"
fi
