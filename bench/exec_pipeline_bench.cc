// ExecutionStore through `mongostore serve` (issue 29): commits pipelined across executions
// from one client against the same commits one after another.
//
// A remote commit is bound by round trips (two for the typical commit: the outbox seq block's
// findAndModify, then the versioned update; docs/execution-store.md, "Round trips, remote").
// One connection of the MongoDB wire protocol carries one request at a time (libmongoc
// multiplexes nothing), so the way one client overlaps commits is to run commits of different
// executions at once on pooled connections: AsyncExecutionStore does that, up to
// `max_in_flight` operations on its thread pool. This bench measures what that buys.
//
// Workload: `--executions` executions (default 64) each committing the typical commit of
// bench/exec_workload.h `--rounds` times (default 10); an execution's own commits stay in
// order (each awaits the previous one, as a state machine would). Baseline: the same commits
// through the synchronous ExecutionStore from one thread, round-robin over the executions.
// Pipelined: AsyncExecutionStore with max_in_flight 1, 4, 16, 64 (threads = min(in flight,
// 16)). Servers: `serve --memory` and `serve --dbpath` children. Best of `--trials` per row,
// the rows alternating within each trial; after each run the bench checks every execution's
// version and the pending outbox (exit 3 on a mismatch), so a faster row cannot be a lossy
// one.
//
//   build/bench/exec_pipeline_bench [--trials 3] [--executions 64] [--rounds 10]
//       [--in-flight 1,4,16,64] [--no-durable] [--tool PATH]
#include <fmt/core.h>

#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "bench_paths.h"
#include "exec_workload.h"
#include "mongostore/client/client.h"
#include "mongostore/exec/async_execution_store.h"
#include "mongostore/exec/execution_store.h"
#include "server_child.h"

namespace mongostore::bench {
namespace {

using Clock = std::chrono::steady_clock;
using exec::AsyncExecutionStore;
using exec::AsyncStoreOptions;
using exec::Execution;
using exec::ExecutionStore;
using exec::ExecutionStoreOptions;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Args {
  int trials = 3;
  int executions = 64;
  int rounds = 10;
  std::string in_flight = "1,4,16,64";
  bool durable = true;
  std::string tool = mongostore::bench::tool_path();
};

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = std::stoi(item);
    if (v < 1) throw std::invalid_argument("--in-flight values must be >= 1");
    out.push_back(v);
  }
  return out;
}

std::vector<Execution> create_executions(ExecutionStore& store, int count) {
  std::vector<Execution> all;
  for (int e = 0; e < count; ++e) {
    exec::NewExecution spec;
    spec.definition_id = "checkout";
    spec.id = execution_id(0, e);
    spec.context = context_at(0);
    spec.status = exec::ExecutionStatus::kRunning;
    all.push_back(store.create(spec));
  }
  return all;
}

/// Every execution at version rounds + 1 and one pending outbox entry per commit: the run lost
/// nothing. Exits 3 otherwise.
void check(ExecutionStore& store, int executions, int rounds, const std::string& what) {
  for (int e = 0; e < executions; ++e) {
    std::optional<Execution> exe = store.load(execution_id(0, e));
    if (!exe || exe->version != rounds + 1) {
      fmt::print(stderr, "{}: execution {} at version {}, expected {}\n", what, e,
                 exe ? exe->version : -1, rounds + 1);
      std::exit(3);
    }
  }
  size_t pending = store.pending_outbox().size();
  if (pending != size_t(executions) * size_t(rounds)) {
    fmt::print(stderr, "{}: {} pending outbox entries, expected {}\n", what, pending,
               executions * rounds);
    std::exit(3);
  }
}

/// Commits per second: one thread, round-robin, each commit waiting for the previous one.
double run_sequential(ExecutionStore& store, const Args& a) {
  std::vector<Execution> all = create_executions(store, a.executions);
  auto start = Clock::now();
  for (int r = 1; r <= a.rounds; ++r) {
    for (int e = 0; e < a.executions; ++e) {
      advance(all[e], r);
      store.commit(all[e], typical_batch(0, e, r));
    }
  }
  return double(a.executions) * a.rounds / seconds_since(start);
}

asio::awaitable<void> commit_in_order(AsyncExecutionStore& store, Execution& exe, int e,
                                      int rounds) {
  for (int r = 1; r <= rounds; ++r) {
    advance(exe, r);
    // A named batch: GCC 12 mishandles class-type temporaries in co_await arguments.
    exec::CommitBatch batch = typical_batch(0, e, r);
    co_await store.commit(exe, std::move(batch));
  }
}

/// Commits per second: one coroutine per execution, at most `in_flight` commits at once.
double run_pipelined(const std::shared_ptr<ExecutionStore>& sync, const Args& a, int in_flight) {
  std::vector<Execution> all = create_executions(*sync, a.executions);
  AsyncStoreOptions options;
  options.threads = size_t(std::min(in_flight, 16));
  options.max_in_flight = size_t(in_flight);
  AsyncExecutionStore store(sync, options);
  asio::io_context io;
  std::exception_ptr failure;
  auto start = Clock::now();
  for (int e = 0; e < a.executions; ++e) {
    asio::co_spawn(io, commit_in_order(store, all[e], e, a.rounds), [&](std::exception_ptr ex) {
      if (ex && !failure) failure = ex;
    });
  }
  io.run();
  double rate = double(a.executions) * a.rounds / seconds_since(start);
  if (failure) std::rethrow_exception(failure);
  return rate;
}

int run(const Args& a) {
  std::vector<int> in_flight = parse_list(a.in_flight);
  std::string scratch =
      (std::filesystem::temp_directory_path() / fmt::format("exec_pipeline_bench_{}", getpid()))
          .string();
  std::filesystem::create_directories(scratch + "/served");

  fmt::print(
      "# ExecutionStore commits through `mongostore serve`: pipelined across executions from one "
      "client (AsyncExecutionStore) vs one after another (best of {} trials; {} executions x {} "
      "typical commits)\n\n",
      a.trials, a.executions, a.rounds);
  fmt::print("| server | commits in flight | commits/s | ÷ one after another |\n");
  fmt::print("|---|---:|---:|---:|\n");
  std::fflush(stdout);

  struct Server {
    const char* name;
    std::vector<std::string> args;
  };
  std::vector<Server> servers = {{"`serve --memory`", {"--memory"}}};
  if (a.durable)
    servers.push_back({"`serve --dbpath` (durable)", {"--dbpath", scratch + "/served"}});

  int database = 0;
  for (const Server& server : servers) {
    ServerChild child(a.tool, server.args);
    std::shared_ptr<client::Client> client = client::connect(child.uri());
    // Warm-up outside the timed rows: pooled connections, the server's first allocations, a
    // durable server's log files.
    for (int mode : {0, 16}) {
      ExecutionStoreOptions options;
      options.database = fmt::format("pipeline_warm_up_{}", mode);
      auto store = std::make_shared<ExecutionStore>(client, options);
      Args warm = a;
      warm.executions = 16;
      warm.rounds = 3;
      mode == 0 ? run_sequential(*store, warm) : run_pipelined(store, warm, mode);
      store.reset();
      client->database(options.database).drop();
    }
    // One row per mode: 0 is the sequential baseline.
    std::vector<int> modes = {0};
    modes.insert(modes.end(), in_flight.begin(), in_flight.end());
    // The modes alternate within each trial, so a slow spell of this shared machine (or of its
    // disk's fsync) falls on every mode alike rather than on one row.
    std::vector<double> best(modes.size(), 0);
    for (int trial = 0; trial < a.trials; ++trial) {
      for (size_t m = 0; m < modes.size(); ++m) {
        int mode = modes[m];
        ExecutionStoreOptions options;
        options.database = fmt::format("pipeline_{}", database++);
        auto store = std::make_shared<ExecutionStore>(client, options);
        double rate = mode == 0 ? run_sequential(*store, a) : run_pipelined(store, a, mode);
        check(*store, a.executions, a.rounds,
              mode == 0 ? std::string("sequential") : fmt::format("{} in flight", mode));
        best[m] = std::max(best[m], rate);
        store.reset();
        client->database(options.database).drop();
      }
    }
    for (size_t m = 0; m < modes.size(); ++m) {
      fmt::print("| {} | {} | {:.0f} | {:.2f} |\n", server.name,
                 modes[m] == 0 ? std::string("1, one after another (sync store)")
                               : fmt::format("{} (AsyncExecutionStore)", modes[m]),
                 best[m], best[m] / best[0]);
    }
    std::fflush(stdout);
  }
  std::filesystem::remove_all(scratch);
  return 0;
}

}  // namespace
}  // namespace mongostore::bench

int main(int argc, char** argv) {
  mongostore::bench::Args a;
  BenchArgs args;
  args.option("--trials", &a.trials)
      .option("--executions", &a.executions)
      .option("--rounds", &a.rounds)
      .option("--in-flight", &a.in_flight)
      .option("--tool", &a.tool)
      .flag("--no-durable", &a.durable, false);
  if (!args.parse(argc, argv)) return 1;
  if (a.trials < 1 || a.executions < 1 || a.rounds < 1) {
    fmt::print(stderr, "--trials, --executions and --rounds must be >= 1\n");
    return 1;
  }
  try {
    return mongostore::bench::run(a);
  } catch (const std::exception& e) {
    fmt::print(stderr, "exec_pipeline_bench: {}\n", e.what());
    return 2;
  }
}
