// Where the benchmarks find the `mongostore` binary they start as `serve` children.
//
// The path is compiled into one object (bench_paths.cc) instead of defined on each benchmark's
// command line: an absolute path in a -D flag is part of the object's compiler hash, which
// ccache's base_dir rewriting does not reach, so every clean clone (CI) would recompile those
// benchmarks (tests/support/test_paths.h does the same for the tests).
#pragma once

namespace mongostore::bench {

/// The `mongostore` binary of this build (tools/mongostore).
const char* tool_path();

}  // namespace mongostore::bench
