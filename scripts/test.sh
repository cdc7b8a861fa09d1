#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test with CTest.
# Usage: scripts/test.sh            (optimised build in build/)
#        scripts/test.sh --sanitize (ASan + UBSan build in build-asan/)
#        MONGOSTORE_TEST_JOBS=<n> scripts/test.sh   (n tests at once; see below for the default)
#
# Under the sanitizers the remote-backend instances of the contract suites (…/remote,
# …/remote_txn, …/remote_degraded) and the spec files run through `mongostore serve`
# (*ThroughServer*) run as a sample: one in eight, by their order in the test list. They are
# a third of the sanitizer suite's time (each starts a sanitized server process) and repeat
# code the rest of the suite already runs under the sanitizers; the optimised suite runs them
# all. Which eighth rotates daily (day of the year mod 8), so eight days cover each one; set
# MONGOSTORE_SANITIZE_SAMPLE=<0-7> to pick one, or MONGOSTORE_SANITIZE_SAMPLE=all to run all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=()
dir="$root/build"
sanitize=0
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=1
  mode=(--sanitize)
  dir="$root/build-asan"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
"$root/scripts/build.sh" "${mode[@]}"
cd "$dir"
# The optimised suite runs two tests per core. At one per core it kept 2 cores busy only 55% of
# the time (539 s of wall, 597 s of CPU), because many of its tests wait rather than compute:
# each remote-backend test starts a server and ends with libmongoc's monitor thread finishing
# its 500 ms poll tick, crash tests wait for killed children, durable tests for fsync; at two
# per core it took 424 s. The sanitizer suite stays at one per core: its tests are CPU-bound
# (two per core took 1,076 s, one 947 s). MONGOSTORE_TEST_JOBS=<n> overrides either.
cores=$(nproc 2>/dev/null || echo 1)
if [ "$sanitize" = 1 ]; then jobs=$cores; else jobs=$((2 * cores)); fi
jobs=${MONGOSTORE_TEST_JOBS:-$jobs}
select=()
sample=${MONGOSTORE_SANITIZE_SAMPLE:-$((10#$(date +%j) % 8))}
if [ "$sanitize" = 1 ] && [ "$sample" != all ]; then
  case "$sample" in
    [0-7]) ;;
    *) echo "MONGOSTORE_SANITIZE_SAMPLE must be 0-7 or all, not '$sample'" >&2; exit 2 ;;
  esac
  # ctest -I with a file: "start,end,stride" empty (0,0,0), then the test numbers to run.
  list="$dir/sanitize-selection.txt"
  ctest -N | awk -v sample="$sample" '
    match($0, /Test +#[0-9]+: /) {
      split(substr($0, RSTART, RLENGTH), t, /[#:]/); num = t[2] + 0
      name = substr($0, RSTART + RLENGTH); sub(/ .*/, "", name)
      if (name ~ /ThroughServer/ || name ~ /\/remote(_[a-z]+)?$/) {
        if (n++ % 8 != sample) { skipped++; next }
      }
      nums = nums "," num; kept++
    }
    END {
      printf "0,0,0%s\n", nums > "/dev/stderr"
      printf "sanitizer stage: %d tests; %d of the remote and through-server tests left to the optimised stage (sample %d of 8)\n", kept, skipped, sample
    }' 2> "$list"
  select=(-I "$list")
fi
ctest --output-on-failure -j "$jobs" --timeout 900 "${select[@]}"
