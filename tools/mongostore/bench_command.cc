// `mongostore bench`: runs the benchmarks of bench/ (built beside this binary, in bench/) one
// after another and passes their ratio tables through. Each benchmark compares mongostore with
// a named baseline side by side in one run; docs/benchmarks.md explains every table.
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "mongostore/error.h"

namespace mongostore::tool {
namespace {

struct Benchmark {
  const char* name;
  const char* what;
  std::vector<std::string> quick_args;  // a smaller run for --quick
};

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> all = {
      {"engine_point_ops_bench",
       "point inserts, finds and replaces vs raw WiredTiger",
       {"--ops", "2000", "--durable-ops", "300"}},
      {"update_bench",
       "commit-shaped updates vs raw WiredTiger rewriting the same bytes",
       {"--ops", "500", "--durable-ops", "100", "--trials", "1"}},
      {"index_bench", "indexed lookups and ranges vs collection scans", {"--max", "100000"}},
      {"aggregation_bench",
       "pipelines vs their plain client-side equivalents",
       {"--max", "100000"}},
      {"exec_bench",
       "ExecutionStore commits vs raw WiredTiger, sweeps at 100,000 executions, history growth",
       {"--trials", "1", "--durable-ops", "200", "--threaded-ops", "200", "--memory-ops", "500",
        "--remote-ops", "300", "--remote-durable-ops", "100", "--idle", "10000"}},
      {"server_bench",
       "round trips and writes through mongostore serve vs embedded",
       {"--ops", "2000", "--trials", "1"}},
  };
  return all;
}

std::filesystem::path bench_directory() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorCode::kInternalError, "cannot locate the mongostore binary");
  return self.parent_path() / "bench";
}

int run_one(const std::filesystem::path& path, const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid < 0) throw Error(ErrorCode::kInternalError, "fork failed");
  if (pid == 0) {
    std::vector<std::string> strings = {path.string()};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

void register_bench_command(CLI::App& app, Action* action) {
  static std::vector<std::string> only;
  static bool quick = false, list = false;
  auto* bench = app.add_subcommand(
      "bench", "Run the benchmarks of bench/ and print their ratio tables (docs/benchmarks.md)");
  bench->add_option("--only", only, "Run only these benchmarks (names from --list)");
  bench->add_flag("--quick", quick, "Smaller sizes: a few seconds per benchmark");
  bench->add_flag("--list", list, "List the benchmarks and exit");
  bench->callback([action] {
    *action = [] {
      if (list) {
        for (const auto& b : benchmarks()) fmt::print("{:<24} {}\n", b.name, b.what);
        return 0;
      }
      for (const auto& name : only) {
        bool known = false;
        for (const auto& b : benchmarks()) known = known || name == b.name;
        if (!known) {
          throw Error(ErrorCode::kBadValue,
                      "unknown benchmark '" + name + "' (see mongostore bench --list)");
        }
      }
      std::filesystem::path dir = bench_directory();
      int failures = 0;
      for (const auto& b : benchmarks()) {
        if (!only.empty() && std::find(only.begin(), only.end(), b.name) == only.end()) continue;
        std::filesystem::path path = dir / b.name;
        if (!std::filesystem::exists(path)) {
          throw std::runtime_error(
              fmt::format("benchmark {} is not built (expected at {}); build it with "
                          "`cmake --build build --target {}`",
                          b.name, path.string(), b.name));
        }
        fmt::print("=== {}: {}\n", b.name, b.what);
        std::fflush(stdout);
        int rc = run_one(path, quick ? b.quick_args : std::vector<std::string>{});
        if (rc != 0) {
          fmt::print(stderr, "mongostore bench: {} exited with status {}\n", b.name, rc);
          ++failures;
        }
        fmt::print("\n");
      }
      return failures == 0 ? 0 : 1;
    };
  });
}

}  // namespace mongostore::tool
