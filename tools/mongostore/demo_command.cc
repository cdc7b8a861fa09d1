// `mongostore demo [exec|records]`: `demo exec` is the order-fulfilment workflow of
// demo_workflow.h driven through the ExecutionStore by demo_runner.h, with progress while it
// runs and a summary at the end; `demo records` is the RecordStore demo of records_demo.h;
// `demo` alone runs both in turn on the same store (different databases).
//
// It runs on a durable embedded directory by default (--data, created if absent) or on any
// MongoDB deployment or `mongostore serve` (--uri mongodb://...). Running it again on the same
// store continues: a new run number, new orders, and whatever an earlier run left unfinished
// (pending outbox entries, spawns, timers) is picked up and completed as well. --fresh drops
// the store's database first.
//
// Before printing OK it checks the store itself: every order is terminal, no event was applied
// twice (each execution's processed-event count equals its set of processed ids), every
// shipped order's two children are done, and no outbox entry, spawn or timer is left.
// A failed check exits with status 2.
#include <fmt/core.h>

#include <chrono>
#include <map>

#include "commands.h"
#include "demo_runner.h"
#include "demo_workflow.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"
#include "records_demo.h"

namespace mongostore::tool {
namespace {

using Clock = std::chrono::steady_clock;

struct StoreReport {
  std::map<std::string, int64_t> by_status;  // every execution in the store
  int64_t run_shipped = 0, run_cancelled = 0, executions = 0;
  std::vector<std::string> problems;
};

int64_t next_run(client::Collection runs, int64_t orders, int workers) {
  int64_t run = runs.count_documents(bson::Document()) + 1;
  while (true) {
    try {
      runs.insert_one(bson::make_document("_id", run, "orders", orders, "workers",
                                          static_cast<int32_t>(workers)));
      return run;
    } catch (const client::DuplicateKeyError&) {
      ++run;  // another demo took this number
    }
  }
}

StoreReport check_store(exec::ExecutionStore& store, int64_t run, bool trace) {
  StoreReport report;
  std::string run_prefix = fmt::format("order-{:03d}-", run);
  exec::ListQuery query;
  query.limit = 500;
  while (true) {
    exec::ExecutionPage page = store.list_executions(query);
    for (const exec::ExecutionSummary& s : page.items) {
      ++report.executions;
      ++report.by_status[std::string(exec::status_name(s.status))];
      std::optional<exec::Execution> exe = store.load(s.id);
      if (!exe) {
        report.problems.push_back(s.id + ": listed but cannot be loaded");
        continue;
      }
      // No event applied twice: every applied event bumped processed_events once and added
      // its id to the `processed` set once.
      int64_t marks = store.processed_count(s.id);
      if (marks != exe->processed_events) {
        report.problems.push_back(fmt::format("{}: {} events applied but {} processed ids", s.id,
                                              exe->processed_events, marks));
      }
      if (trace) {
        auto steps = store.read_trace(s.id);
        int64_t expected = std::min<int64_t>(exe->processed_events, store.options().trace_max);
        if (store.options().trace_max == 0) expected = exe->processed_events;
        if (static_cast<int64_t>(steps.size()) != expected) {
          report.problems.push_back(fmt::format("{}: {} trace steps for {} events", s.id,
                                                steps.size(), exe->processed_events));
        }
      }
      if (s.definition_id != demo::kOrderDefinition) continue;
      if (!exec::is_terminal(s.status)) {
        report.problems.push_back(fmt::format("{}: still {}", s.id, exec::status_name(s.status)));
      }
      bool this_run = s.id.rfind(run_prefix, 0) == 0;
      if (s.status == exec::ExecutionStatus::kDone) {
        if (this_run) ++report.run_shipped;
        if (exe->children.size() != 2) {
          report.problems.push_back(
              fmt::format("{}: shipped with {} children", s.id, exe->children.size()));
        }
        for (const auto& [child_id, state] : exe->children) {
          auto child = store.load(child_id);
          if (!state.finished || !child || child->status != exec::ExecutionStatus::kDone) {
            report.problems.push_back(s.id + ": child " + child_id + " not done");
          }
        }
      } else if (s.status == exec::ExecutionStatus::kCancelled && this_run) {
        ++report.run_cancelled;
      }
    }
    if (!page.next_cursor) break;
    query.cursor = page.next_cursor;
  }
  if (!store.pending_outbox().empty()) report.problems.push_back("outbox entries left");
  if (!store.pending_spawns().empty()) report.problems.push_back("spawns left");
  if (!store.due_timers(1e300).empty()) report.problems.push_back("timers left");
  return report;
}

int run_demo(const std::string& data, const std::string& uri, const std::string& database,
             demo::DemoOptions options, bool fresh, bool json) {
  auto start = Clock::now();
  exec::ExecutionStoreOptions store_options;
  store_options.database = database;
  std::string where = uri.empty() ? "embedded:" + data : uri;
  exec::ExecutionStore store =
      exec::ExecutionStore::connect(where, store_options, std::chrono::seconds(10));
  if (fresh) {
    store.client()->database(database).drop();
    store = exec::ExecutionStore(store.client(), store_options);  // recreate its indexes
  }
  options.run = next_run(store.client()->database(database).collection("demo_runs"), options.orders,
                         options.workers);
  if (!json) {
    fmt::print("mongostore demo: run {} on {} (database {}), {} orders, {} workers\n", options.run,
               where, database, options.orders, options.workers);
    fmt::print(
        "  {:.0f}% of orders never pay (their {:.1f}s payment timer fires), {:.0f}% of "
        "events are delivered twice\n",
        options.unpaid_share * 100, options.payment_timeout, options.duplicate_share * 100);
  }
  demo::DemoRunner runner(store, options);
  const demo::DemoCounters& c = runner.counters();
  runner.run([&](double elapsed) {
    if (json) return;
    fmt::print(
        "  [{:5.1f}s] orders {}/{} · events {} · duplicates {} · conflicts {} · "
        "timers fired {} · spawns joined {}\n",
        elapsed, c.orders_created.load(), options.orders, c.events_processed.load(),
        c.duplicates_suppressed.load(), c.conflicts_retried.load(), c.timers_fired.load(),
        c.spawns_joined.load());
    std::fflush(stdout);
  });
  double run_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  StoreReport report = check_store(store, options.run, options.trace);
  double commits_per_second = double(c.commits.load()) / run_seconds;
  bool ok = report.problems.empty() && c.orders_created.load() == options.orders &&
            report.run_shipped + report.run_cancelled == options.orders;
  if (json) {
    bson::DocumentBuilder b;
    b.append("run", options.run).append("orders", options.orders);
    b.open_document("by_status");
    for (const auto& [status, n] : report.by_status) b.append(status, n);
    b.close();
    b.append("shipped", report.run_shipped)
        .append("cancelled", report.run_cancelled)
        .append("events_processed", c.events_processed.load())
        .append("duplicates_suppressed", c.duplicates_suppressed.load())
        .append("timers_fired", c.timers_fired.load())
        .append("stale_events", c.stale_events.load())
        .append("spawns_created", c.spawns_created.load())
        .append("spawns_joined", c.spawns_joined.load())
        .append("conflicts_retried", c.conflicts_retried.load())
        .append("commits", c.commits.load())
        .append("commits_per_second", commits_per_second)
        .append("elapsed_seconds", run_seconds)
        .append("executions", report.executions)
        .append("ok", ok);
    b.open_array("problems");
    for (size_t i = 0; i < report.problems.size() && i < 20; ++i) {
      b.append(std::to_string(i), report.problems[i]);
    }
    b.close();
    fmt::print("{}\n", b.finish().to_json());
    return ok ? 0 : 2;
  }
  fmt::print("\nsummary (run {}):\n", options.run);
  std::string statuses;
  for (const auto& [status, n] : report.by_status) statuses += fmt::format("{} {}  ", status, n);
  fmt::print("  executions by status   {}(all {} in the store)\n", statuses, report.executions);
  fmt::print("  orders this run        {} shipped, {} cancelled by the payment timer\n",
             report.run_shipped, report.run_cancelled);
  fmt::print("  events processed       {:>8}  (each applied once; {} were stale for their state)\n",
             c.events_processed.load(), c.stale_events.load());
  fmt::print("  duplicates suppressed  {:>8}  (redeliveries caught by load_for_event)\n",
             c.duplicates_suppressed.load());
  fmt::print("  timers fired           {:>8}\n", c.timers_fired.load());
  fmt::print("  spawns joined          {:>8}  ({} children created through the spawn relay)\n",
             c.spawns_joined.load(), c.spawns_created.load());
  fmt::print("  conflicts retried      {:>8}  (StoreConflict: reloaded and applied again)\n",
             c.conflicts_retried.load());
  fmt::print("  commits                {:>8}  ({:.0f} commits/s over {:.2f}s)\n", c.commits.load(),
             commits_per_second, run_seconds);
  if (ok) {
    fmt::print(
        "OK: every order reached a terminal status, no event was applied twice, nothing "
        "is left pending\n");
    fmt::print("inspect it: mongostore exec ls {}    mongostore exec show {}\n",
               uri.empty() ? "--data " + data : "--uri " + uri,
               fmt::format("order-{:03d}-00000", options.run));
    return 0;
  }
  fmt::print("FAILED: {} problems\n", report.problems.size());
  for (size_t i = 0; i < report.problems.size() && i < 20; ++i) {
    fmt::print("  {}\n", report.problems[i]);
  }
  return 2;
}

}  // namespace

namespace {

struct DemoSettings {
  std::string data = "mongostore-data", uri, database = "harel", records_database = "materials";
  demo::DemoOptions exec;
  demo::RecordsDemoOptions records;
  bool fresh = false, json = false, no_trace = false, fsync = false;
};

void add_location_options(CLI::App* cmd, DemoSettings& s) {
  cmd->add_option("--data", s.data, "Durable embedded data directory (created if absent)")
      ->capture_default_str();
  cmd->add_option("--uri", s.uri, "A MongoDB or `mongostore serve` URI instead of --data");
  cmd->add_flag("--fresh", s.fresh, "Drop the demo's database first (default: continue)");
}

void add_exec_options(CLI::App* cmd, DemoSettings& s) {
  demo::DemoOptions& options = s.exec;
  cmd->add_option("--database", s.database, "Database of the ExecutionStore")
      ->capture_default_str();
  cmd->add_option("--executions", options.orders, "Orders to create")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_option("--workers", options.workers, "Worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--payment-timeout", options.payment_timeout,
                  "Seconds before an unpaid order is cancelled")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--unpaid", options.unpaid_share, "Share of orders that never pay")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--duplicates", options.duplicate_share, "Share of events delivered twice")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--deadline", options.deadline_seconds, "Fail if not finished after seconds")
      ->capture_default_str();
  cmd->add_option("--seed", options.seed, "Random seed")->capture_default_str();
  cmd->add_flag("--no-trace", s.no_trace, "Do not record the trace ring");
}

void add_records_options(CLI::App* cmd, DemoSettings& s, const char* database_option) {
  cmd->add_option(database_option, s.records_database, "Database of the RecordStore")
      ->capture_default_str();
  cmd->add_option("--structures", s.records.structures,
                  "Crystal structures to import (the same batch on every run: a second run "
                  "finds them all stored)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_flag("--fsync", s.fsync,
                "On --data: fsync every write (the engine's default durability) instead of "
                "`durability=journaled`, which the import uses by default for speed");
  cmd->add_option("--structure-seed", s.records.seed,
                  "Seed of the generated batch (another seed is another batch)")
      ->capture_default_str();
}

std::string where_of(const DemoSettings& s) {
  return s.uri.empty() ? "embedded:" + s.data : s.uri;
}

int run_exec(DemoSettings& s) {
  s.exec.trace = !s.no_trace;
  return run_demo(s.data, s.uri, s.database, s.exec, s.fresh, s.json);
}

int run_records(DemoSettings& s) {
  std::string inspect = s.uri.empty() ? "--data " + s.data : "--uri " + s.uri;
  if (s.records_database != "materials") inspect += " --database " + s.records_database;
  // A durable directory fsyncs every write, and a degraded-mode save is ~30 single-document
  // writes (sites first): journaled acknowledges before the fsync, which makes the import of
  // thousands of structures take seconds instead of minutes. The summary says which it was.
  std::string where = where_of(s);
  if (s.uri.empty() && !s.fsync) where += "?durability=journaled";
  return demo::run_records_demo(where, s.records_database, s.records, s.fresh, s.json, inspect);
}

}  // namespace

void register_demo_command(CLI::App& app, Action* action) {
  static DemoSettings s;
  auto* cmd = app.add_subcommand(
      "demo",
      "Run both demos in turn: the ExecutionStore's order workflow (`demo exec`), then the "
      "RecordStore's crystal-structure import (`demo records`), each checked against the store");
  add_location_options(cmd, s);
  add_exec_options(cmd, s);
  add_records_options(cmd, s, "--records-database");
  cmd->footer(
      "Exit status: 0 when every check passed, 1 on an error, 2 on a usage error or a failed "
      "check.");
  cmd->callback([cmd, action] {
    if (!cmd->get_subcommands().empty()) return;  // `demo exec` / `demo records` chose
    *action = [] {
      int status = run_exec(s);
      std::fflush(stdout);
      if (!s.json) fmt::print("\n");
      int records_status = run_records(s);
      return status != 0 ? status : records_status;
    };
  });

  auto* exec = cmd->add_subcommand(
      "exec", "The order-fulfilment workflow through the ExecutionStore, checked against it");
  add_location_options(exec, s);
  add_exec_options(exec, s);
  exec->add_flag("--json", s.json, "Print only the summary, as one JSON document");
  exec->footer(
      "Exit status: 0 when the check passed, 1 on an error, 2 on a usage error or a "
      "failed check.");
  exec->callback([action] { *action = [] { return run_exec(s); }; });

  auto* records = cmd->add_subcommand(
      "records",
      "Import crystal structures into a RecordStore (content-id dedup), record a correction "
      "(replace) and an alternative, run fsck, and check the summary against the store");
  add_location_options(records, s);
  add_records_options(records, s, "--database");
  records->add_flag("--json", s.json, "Print only the summary, as one JSON document");
  records->footer(
      "Exit status: 0 when every check passed, 1 on an error, 2 on a usage error or a failed "
      "check. A second run on the same store imports the same batch: every structure is a "
      "dedup hit and nothing is added.");
  records->callback([action] { *action = [] { return run_records(s); }; });
}

}  // namespace mongostore::tool
