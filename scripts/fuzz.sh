#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (see docs/testing.md).
# Usage: scripts/fuzz.sh TARGET SECONDS   fuzz one target for SECONDS (TARGET: bson, wire,
#                                         matcher, update, aggregation, json_schema, or all)
#        scripts/fuzz.sh TARGET replay    only replay the target's past crashes
# Builds build-fuzz/ (clang, -DMONGOSTORE_FUZZ=ON, only the fuzzers) when needed. Before
# fuzzing, every file in fuzz/crashes/<target>/ is replayed: those are past findings, fixed, and
# must stay fixed. New findings are written to fuzz/crashes/<target>/; the script then fails.
# The working corpus grows in build-fuzz/corpus/<target>/, seeded from the tests' own inputs
# (fuzz/make_seeds.py writes build-fuzz/seeds/<target>/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
targets=(bson wire matcher update aggregation json_schema optimade)
if [ $# -ne 2 ]; then
  echo "usage: $0 TARGET|all SECONDS|replay   (targets: ${targets[*]})" >&2
  exit 2
fi
what=$1
seconds=$2
if [ "$what" != all ]; then
  case " ${targets[*]} " in
    *" $what "*) targets=("$what") ;;
    *) echo "fuzz: unknown target '$what' (targets: ${targets[*]} all)" >&2; exit 2 ;;
  esac
fi
if [ "$seconds" != replay ] && ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "fuzz: SECONDS must be a number or 'replay'" >&2
  exit 2
fi

"$root/scripts/install-deps.sh"
dir="$root/build-fuzz"
if [ ! -f "$dir/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  launcher=()
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # -O1 with assertions kept (no NDEBUG): what libFuzzer recommends.
  cmake -S "$root" -B "$dir" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DMONGOSTORE_FUZZ=ON \
    -DMONGOSTORE_BUILD_TESTS=OFF -DMONGOSTORE_BUILD_BENCH=OFF >/dev/null
fi
# As in build.sh: objects shared with any other checkout's build of the same sources.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
bins=()
for t in "${targets[@]}"; do bins+=("${t}_fuzzer"); done
cmake --build "$dir" -j "$(nproc 2>/dev/null || echo 2)" --target "${bins[@]}"

python3 "$root/fuzz/make_seeds.py" "$root" "$dir/seeds"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -timeout: an input that runs this long is a finding (untrusted input must run bounded);
# -rss_limit_mb: likewise for memory (the engine's own limits are 100 MB per expression/stage).
common=(-timeout=15 -rss_limit_mb=3072 -print_final_stats=1)
failed=()
for t in "${targets[@]}"; do
  bin="$dir/fuzz/${t}_fuzzer"
  crashes="$root/fuzz/crashes/$t"
  mkdir -p "$crashes"
  mapfile -t past < <(find "$crashes" -type f | sort)
  if [ ${#past[@]} -gt 0 ]; then
    echo "fuzz: $t: replaying ${#past[@]} past finding(s)"
    if ! "$bin" "${common[@]}" "${past[@]}" >"$dir/$t-replay.log" 2>&1; then
      tail -n 60 "$dir/$t-replay.log" >&2
      echo "fuzz: $t: a past finding fails again (log: $dir/$t-replay.log)" >&2
      failed+=("$t")
      continue
    fi
  fi
  [ "$seconds" = replay ] && continue
  corpus="$dir/corpus/$t"
  mkdir -p "$corpus"
  echo "fuzz: $t: fuzzing for ${seconds}s"
  if ! "$bin" "${common[@]}" -max_total_time="$seconds" -artifact_prefix="$crashes/" \
    "$corpus" "$dir/seeds/$t" >"$dir/$t.log" 2>&1; then
    tail -n 60 "$dir/$t.log" >&2
    echo "fuzz: $t: FOUND A CRASH, saved in fuzz/crashes/$t/ (log: $dir/$t.log)" >&2
    failed+=("$t")
    continue
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$dir/$t.log" |
    sed "s/^/fuzz: $t: /" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no findings"
