#!/usr/bin/env bash
# Configures and builds mongostore into build/ (or build-asan/ with --sanitize).
# Usage: scripts/build.sh [--sanitize] [targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"

dir="$root/build"
# -g1 (line tables): enough for stack traces, sanitizer reports and profiles by line, and a
# fifth less compile time than full -g on two cores. Configure by hand for full debug info.
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
       -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
if [ "${1:-}" = "--sanitize" ]; then
  shift
  dir="$root/build-asan"
  # -O1, as the sanitizers' own docs advise: at -O0 the sanitizer suite ran twice as long as
  # the optimised one and kept CI over its time budget. Assertions stay on (no NDEBUG).
  flags=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1"
         -DMONGOSTORE_SANITIZE=ON -DMONGOSTORE_BUILD_BENCH=OFF)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ccache makes a clean clone's build compile only what changed since the last build of the
# same sources, by any checkout on this machine: paths under the checkout are hashed relative
# to it (base_dir), and the build directory's own path is left out of the hash (debug info of
# a reused object then names the directory it was first compiled in).
if command -v ccache >/dev/null; then
  flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
# Configure on first use, and again whenever this script's flags change, so an existing build
# directory never keeps building with flags the script no longer sets.
stamp="$dir/.mongostore-build-flags"
if [ ! -f "$dir/CMakeCache.txt" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${flags[*]}" ]; then
  cmake -S "$root" -B "$dir" "${generator[@]}" "${flags[@]}" >/dev/null
  printf '%s' "${flags[*]}" > "$stamp"
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -gt 0 ]; then
  for t in "$@"; do cmake --build "$dir" --target "$t" -j "$jobs"; done
else
  cmake --build "$dir" -j "$jobs"
fi
