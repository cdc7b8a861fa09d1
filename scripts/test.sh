#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test with CTest.
# Usage: scripts/test.sh            (optimised build in build/)
#        scripts/test.sh --sanitize (ASan + UBSan build in build-asan/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=()
dir="$root/build"
if [ "${1:-}" = "--sanitize" ]; then
  mode=(--sanitize)
  dir="$root/build-asan"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
"$root/scripts/build.sh" "${mode[@]}"
cd "$dir"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 900
