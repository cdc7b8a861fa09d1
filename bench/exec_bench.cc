// ExecutionStore (issue 7): commit throughput, the three sweeps, and commit cost as history
// grows, each side by side with a named baseline in one run.
//
// 1. Commit throughput. The typical commit: one emit, a dedupe mark (processed_event_id), a
//    timer schedule and a trace step, on an execution whose context is ~1 KB, through
//    ExecutionStore::commit. Backends: embedded durable (1 and 8 threads, each thread its own
//    executions), embedded in-memory, and remote through `mongostore serve --memory` and
//    `--dbpath` children. Baseline: raw WiredTiger writing the same bytes per commit: the
//    same sequence of commits is first run on an in-memory store and every resulting
//    document captured; the raw side then, per commit, reads the execution's document by
//    key and overwrites it with those bytes in one transaction (same table configuration and
//    connection configuration as the engine's, same commit sync). A second raw column also
//    writes, in that transaction, the index entries the commit changed in the store's layout
//    (`outbox.seq`, `spawns.seq`, `next_fire_at`, with the stored fields of covering
//    indexes): the same keys and values as the engine's index tables (computed from the
//    captured documents before the clock runs; after capture each index's entry count is
//    checked against the engine's, by explain), each table configured as the engine's. It is what
//    WiredTiger alone costs for this layout, the ceiling of the store / raw ratio while the layout
//    stands.
// 2. The sweeps (pending_outbox, pending_spawns, due_timers(now)) over 100,000 idle
//    executions and 10 with work, in memory: median time per sweep and the keys / documents
//    examined by the store's filters (Collection::explain), against harel's filters
//    ({outbox: {$exists: true, $ne: []}}, ...) run as a plain find and a client-side scan.
// 3. Commit cost as history grows: the typical commit on an execution that has processed 0,
//    100, 1,000, 10,000 events and whose trace ring is full (200 steps), in memory and
//    durable; ratio against 0 marks. Side by side: the seed's layout (every dedupe mark in
//    the document, processed_in_document = 0) and the default bound, whose commits move
//    older marks to the `processed` collection. Also load_for_event's cost at each size.
//
//   build/bench/exec_bench [--part abc] [--trials 3] [--durable-ops 1000]
//       [--threaded-ops 1000] [--memory-ops 20000] [--remote-ops 2000]
//       [--remote-durable-ops 1000] [--idle 100000] [--busy 10] [--sweep-runs 300]
//       [--baseline-runs 11] [--history-commits 300] [--history-durable-commits 150]
//       [--no-remote] [--tool PATH] [--covering-indexes 1]
//
// --covering-indexes 0: part 1's stores make their sweep indexes plain
// (ExecutionStoreOptions::covering_indexes; on the embedded engine, cheaper commits).
#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wiredtiger.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "bench_paths.h"
#include "engine/index_descriptor.h"
#include "engine/index_key_generator.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/record_table.h"
#include "exec_workload.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/client/client.h"
#include "mongostore/exec/execution_store.h"
#include "server_child.h"

using namespace mongostore;
using bson::Document;
using bson::make_array;
using bson::make_document;
using exec::CommitBatch;
using exec::Event;
using exec::Execution;
using exec::ExecutionStore;
using exec::ExecutionStoreOptions;
using exec::TimerOp;
using mongostore::bench::ServerChild;
using Clock = std::chrono::steady_clock;
using namespace mongostore::bench;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int64_t as_count(const bson::Value& v) {
  int64_t n = 0;
  return v.number_as_exact_int64(&n) ? n : -1;
}

// --- raw WiredTiger -------------------------------------------------------------------------

/// One write a commit makes to a secondary index's table, as the engine makes it: key = the
/// index key then the record key (a non-unique index), value = the stored fields (the
/// document's first entry of a covering index) then the record key
/// (engine/storage/index_table.h, index_entry_value.h).
struct IndexWrite {
  enum class Op { kInsert, kUpdate, kRemove };
  size_t index;  // into Plan::indexes
  Op op;
  std::string key;
  std::string value;
};

/// A connection configured as the engine configures its own
/// (src/engine/storage/wiredtiger_connection.cc): durable is the journal with sync on every commit,
/// in-memory is `in_memory=true`; one table with the engine's collection table format.
class RawWiredTiger {
 public:
  /// With `index_tables`, also tables raw_ix0, raw_ix1, ... for the index entries.
  RawWiredTiger(const std::string& home, bool durable, size_t index_tables = 0)
      : durable_(durable), index_tables_(index_tables) {
    std::string config = "create,session_max=1000,cache_size=512MB,";
    config +=
        durable
            ? "log=(enabled=true,archive=true,file_max=8MB,zero_fill=true),checkpoint=(wait=60),"
              "transaction_sync=(enabled=false)"
            : "in_memory=true";
    std::filesystem::create_directories(home);
    if (wiredtiger_open(home.c_str(), nullptr, config.c_str(), &conn_) != 0) std::abort();
    WT_SESSION* s = session();
    const char* table = engine::record_table_config(durable ? engine::Durability::kDurable
                                                            : engine::Durability::kInMemory);
    s->create(s, "table:raw", table);
    for (size_t i = 0; i < index_tables; ++i) s->create(s, index_uri(i).c_str(), table);
    s->close(s, nullptr);
  }
  ~RawWiredTiger() { conn_->close(conn_, nullptr); }
  WT_SESSION* session() {
    WT_SESSION* s = nullptr;
    conn_->open_session(conn_, nullptr, "isolation=snapshot", &s);
    return s;
  }
  const char* commit_config() const { return durable_ ? "sync=on" : "sync=off"; }
  size_t index_tables() const { return index_tables_; }
  static std::string index_uri(size_t i) { return "table:raw_ix" + std::to_string(i); }

 private:
  WT_CONNECTION* conn_ = nullptr;
  bool durable_;
  size_t index_tables_;
};

/// One session and cursors of a thread on the raw side: one on the documents' table, one on
/// each index table, kept open (the engine's sessions cache theirs).
class RawWriter {
 public:
  explicit RawWriter(RawWiredTiger& raw) : raw_(raw), s_(raw.session()) {
    s_->open_cursor(s_, "table:raw", nullptr, nullptr, &c_);
    for (size_t i = 0; i < raw.index_tables(); ++i) {
      WT_CURSOR* c = nullptr;
      s_->open_cursor(s_, RawWiredTiger::index_uri(i).c_str(), nullptr, nullptr, &c);
      ix_.push_back(c);
    }
  }
  ~RawWriter() {
    for (WT_CURSOR* c : ix_) c->close(c);
    c_->close(c_);
    s_->close(s_, nullptr);
  }
  void insert(const std::string& k, const Document& d) {
    WT_ITEM key = item(k), val = item(d);
    s_->begin_transaction(s_, nullptr);
    c_->set_key(c_, &key);
    c_->set_value(c_, &val);
    if (c_->insert(c_) != 0) std::abort();
    s_->commit_transaction(s_, raw_.commit_config());
  }
  /// Adds an entry to index table `i` in its own transaction.
  void insert_entry(size_t i, const std::string& k, const std::string& v) {
    s_->begin_transaction(s_, nullptr);
    if (write(IndexWrite{i, IndexWrite::Op::kInsert, k, v}) != 0) std::abort();
    s_->commit_transaction(s_, raw_.commit_config());
  }
  /// The two raw columns' commits, as functions of their own so that a profile can collect
  /// either alone (callgrind --toggle-collect='*RawWriter::overwrite_document*'): the
  /// instruction budget in docs/benchmarks.md is measured that way.
  [[gnu::noinline]] void overwrite_document(const std::string& k, const Document& d) {
    read_and_overwrite(k, d, {});
  }
  [[gnu::noinline]] void overwrite_with_entries(const std::string& k, const Document& d,
                                                std::span<const IndexWrite> entries) {
    read_and_overwrite(k, d, entries);
  }
  /// In one transaction: reads the value at `k`, writes `entries` to the index tables, and
  /// overwrites the value with `d` (retried on a write conflict, as the engine retries; the
  /// engine too writes the index entries before the record).
  void read_and_overwrite(const std::string& k, const Document& d,
                          std::span<const IndexWrite> entries) {
    WT_ITEM key = item(k), val = item(d), old{};
    for (;;) {
      s_->begin_transaction(s_, nullptr);
      c_->set_key(c_, &key);
      if (c_->search(c_) != 0) std::abort();
      c_->get_value(c_, &old);
      if (old.size == 0) std::abort();
      int rc = 0;
      for (const IndexWrite& w : entries) {
        if ((rc = write(w)) != 0) break;
      }
      if (rc == 0) {
        c_->set_key(c_, &key);
        c_->set_value(c_, &val);
        rc = c_->update(c_);
      }
      if (rc == 0)
        rc = s_->commit_transaction(s_, raw_.commit_config());
      else
        s_->rollback_transaction(s_, nullptr);
      if (rc == 0) return;
      if (rc != WT_ROLLBACK) std::abort();
    }
  }

 private:
  /// One index write, with WiredTiger's default cursor semantics, as the engine's cursor on
  /// a non-unique index has them (an insert or update writes whether or not the key is
  /// there).
  int write(const IndexWrite& w) {
    WT_CURSOR* c = ix_.at(w.index);
    WT_ITEM key = item(w.key);
    c->set_key(c, &key);
    if (w.op == IndexWrite::Op::kRemove) return c->remove(c);
    WT_ITEM val = item(w.value);
    c->set_value(c, &val);
    return w.op == IndexWrite::Op::kInsert ? c->insert(c) : c->update(c);
  }
  static WT_ITEM item(const std::string& s) {
    WT_ITEM i{};
    i.data = s.data();
    i.size = s.size();
    return i;
  }
  static WT_ITEM item(const Document& d) {
    WT_ITEM i{};
    i.data = d.data();
    i.size = d.size();
    return i;
  }
  RawWiredTiger& raw_;
  WT_SESSION* s_;
  WT_CURSOR* c_ = nullptr;
  std::vector<WT_CURSOR*> ix_;
};

std::string key_of(const bson::Value& id) {
  return bson::encode_index_key(id);
}
std::string key_of(const std::string& id) {
  return key_of(make_document("_id", id).get("_id"));
}

// --- the typical commit -----------------------------------------------------------------------

/// `threads` threads, each with its own `executions` executions, committing `rounds` rounds
/// round-robin over them (so every execution gets `rounds` commits and its outbox, trace and
/// processed arrays grow to `rounds` entries).
struct Shape {
  int threads = 1;
  int executions = 1;
  int rounds = 10;
  int64_t commits() const { return int64_t(threads) * executions * rounds; }
};

Shape shape_for(int threads, int64_t ops, int rounds) {
  Shape s;
  s.threads = threads;
  s.rounds = rounds;
  s.executions = int(std::max<int64_t>(1, ops / (int64_t(threads) * rounds)));
  return s;
}

using Executions = std::vector<std::vector<Execution>>;  // [thread][execution]

Executions create_all(ExecutionStore& store, const Shape& s) {
  Executions all(s.threads);
  for (int t = 0; t < s.threads; ++t) {
    for (int e = 0; e < s.executions; ++e) {
      exec::NewExecution spec;
      spec.definition_id = "checkout";
      spec.id = execution_id(t, e);
      spec.context = context_at(0);
      spec.status = exec::ExecutionStatus::kRunning;
      all[t].push_back(store.create(spec));
    }
  }
  return all;
}

/// One thread's commits: round by round over its executions.
void commit_rounds(ExecutionStore& store, std::vector<Execution>& mine, int thread, int rounds,
                   const std::function<void(int, const Execution&)>& after = {}) {
  for (int r = 1; r <= rounds; ++r) {
    for (size_t e = 0; e < mine.size(); ++e) {
      advance(mine[e], r);
      store.commit(mine[e], typical_batch(thread, int(e), r));
      if (after) after(int(e), mine[e]);
    }
  }
}

/// A few commits on separate executions so that log-file creation and first-use costs fall
/// outside the timed range.
void warm_up_store(ExecutionStore& store) {
  Shape s{1, 5, 10};
  std::vector<Execution> mine;
  for (int e = 0; e < s.executions; ++e) {
    exec::NewExecution spec;
    spec.definition_id = "checkout";
    spec.id = fmt::format("warm-up-{}", e);
    spec.context = context_at(0);
    mine.push_back(store.create(spec));
  }
  commit_rounds(store, mine, 99, s.rounds);
}

/// The documents each commit leaves behind, captured on an in-memory store: the raw side
/// writes exactly these bytes; and the index entries each commit changed.
struct Plan {
  struct Step {
    int execution;
    Document document;
    std::vector<IndexWrite> index_writes;
  };
  std::vector<engine::IndexDescriptor> indexes;  // the executions' secondary indexes
  std::vector<std::vector<Document>> initial;    // [thread][execution], after create
  std::vector<std::vector<Step>> steps;          // [thread], in commit order
  std::vector<std::vector<std::string>> keys;    // [thread][execution]
  size_t bytes = 0;
  size_t count = 0;
  size_t index_writes = 0;
};

using IndexEntries = std::map<std::string, std::string>;  // WiredTiger key -> value

/// The entries of `doc` (record key `rk`) in index `d`'s table.
IndexEntries entries_of(const engine::IndexDescriptor& d, bson::DocumentView doc,
                        const std::string& rk) {
  std::vector<engine::GeneratedKey> keys;
  bool multikey = false;
  engine::IndexKeyGenerator(d).generate(doc, &keys, &multikey);  // sorted by bytes
  const std::string stored = engine::IndexEntryValue::stored_fields_of(d, doc);
  IndexEntries out;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string key = keys[i].bytes;
    if (!d.unique()) key += rk;
    std::string value(engine::IndexEntryValue::stored_at(d, i, stored));
    value += rk;
    out.emplace(std::move(key), std::move(value));
  }
  return out;
}

/// The writes that take index `index`'s entries from `before` to `after`: the fewest, as the
/// engine's write path makes them (an entry whose key stays is rewritten only if its value
/// changed).
void diff_entries(size_t index, const IndexEntries& before, const IndexEntries& after,
                  std::vector<IndexWrite>* out) {
  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->first < a->first)) {
      out->push_back({index, IndexWrite::Op::kRemove, b->first, {}});
      ++b;
    } else if (b == before.end() || a->first < b->first) {
      out->push_back({index, IndexWrite::Op::kInsert, a->first, a->second});
      ++a;
    } else {
      if (a->second != b->second) {
        out->push_back({index, IndexWrite::Op::kUpdate, a->first, a->second});
      }
      ++a;
      ++b;
    }
  }
}

Plan capture_plan(const Shape& s, const ExecutionStoreOptions& options) {
  ExecutionStore store(client::connect("embedded:memory"), options);
  client::Collection executions =
      store.client()->database(options.database).collection("executions");
  Plan plan;
  for (const Document& spec : executions.list_indexes()) {
    if (spec.get("name").as_string() == "_id_") continue;  // the record table's own key
    bson::DocumentBuilder o;
    o.append("name", spec.get("name"));
    if (spec.has("storedFields")) o.append("storedFields", spec.get("storedFields"));
    plan.indexes.push_back(
        engine::IndexDescriptor::parse(spec.get("key").as_document(), o.finish()));
  }
  Executions all = create_all(store, s);
  plan.initial.resize(s.threads);
  plan.steps.resize(s.threads);
  plan.keys.resize(s.threads);
  std::vector<size_t> entries(plan.indexes.size(), 0);  // in each index after the last commit
  for (int t = 0; t < s.threads; ++t) {
    std::vector<std::vector<IndexEntries>> now(all[t].size());  // [execution][index]
    for (const Execution& exe : all[t]) {
      std::optional<Document> d = executions.find_one(make_document("_id", exe.id));
      if (!d) std::abort();
      plan.keys[t].push_back(key_of(d->get("_id")));
      std::vector<IndexEntries>& mine = now[plan.initial[t].size()];
      for (const engine::IndexDescriptor& ix : plan.indexes) {
        mine.push_back(entries_of(ix, d->view(), plan.keys[t].back()));
      }
      plan.initial[t].push_back(std::move(*d));
    }
    commit_rounds(store, all[t], t, s.rounds, [&](int e, const Execution& exe) {
      std::optional<Document> d = executions.find_one(make_document("_id", exe.id));
      if (!d) std::abort();
      plan.bytes += d->size();
      plan.count += 1;
      Plan::Step step{e, std::move(*d), {}};
      for (size_t i = 0; i < plan.indexes.size(); ++i) {
        IndexEntries next = entries_of(plan.indexes[i], step.document.view(), plan.keys[t][e]);
        diff_entries(i, now[e][i], next, &step.index_writes);
        now[e][i] = std::move(next);
      }
      plan.index_writes += step.index_writes.size();
      plan.steps[t].push_back(std::move(step));
    });
    for (const auto& exe : now) {
      for (size_t i = 0; i < exe.size(); ++i) entries[i] += exe[i].size();
    }
  }
  // The entries computed here are the engine's: each index holds as many (a full scan of it,
  // hinted, examines every key; the store's executions are all the collection holds).
  for (size_t i = 0; i < plan.indexes.size(); ++i) {
    client::FindOptions scan;
    scan.hint.name = plan.indexes[i].name();
    Document e = executions.explain(Document(), scan);
    int64_t keys = as_count(e.get_path("executionStats.totalKeysExamined"));
    if (keys != int64_t(entries[i])) {
      std::fprintf(stderr, "index %s: %lld entries in the engine, %zu computed\n",
                   plan.indexes[i].name().c_str(), static_cast<long long>(keys), entries[i]);
      std::abort();
    }
  }
  return plan;
}

/// Commits per second of the raw side replaying `plan`, one thread per plan thread. With
/// `index_entries`, every commit also writes its index entries in its transaction, to one
/// table per index.
double run_raw(const std::string& home, bool durable, const Plan& plan, bool index_entries) {
  std::filesystem::remove_all(home);
  RawWiredTiger raw(home, durable, index_entries ? plan.indexes.size() : 0);
  size_t threads = plan.steps.size();
  {
    RawWriter w(raw);
    for (size_t t = 0; t < threads; ++t) {
      for (size_t e = 0; e < plan.initial[t].size(); ++e) {
        w.insert(plan.keys[t][e], plan.initial[t][e]);
        if (!index_entries) continue;
        for (size_t i = 0; i < plan.indexes.size(); ++i) {
          for (const auto& [k, v] :
               entries_of(plan.indexes[i], plan.initial[t][e].view(), plan.keys[t][e])) {
            w.insert_entry(i, k, v);
          }
        }
      }
    }
    // Warm-up: log-file creation and first-use costs, outside the timed range.
    Document warm = plan.initial[0][0];
    std::string warm_key = key_of(std::string("warm-up"));
    w.insert(warm_key, warm);
    for (int i = 0; i < 50; ++i) w.read_and_overwrite(warm_key, warm, {});
  }
  auto start = Clock::now();
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      RawWriter w(raw);
      for (const Plan::Step& step : plan.steps[t]) {
        const std::string& key = plan.keys[t][step.execution];
        if (index_entries) {
          w.overwrite_with_entries(key, step.document, step.index_writes);
        } else {
          w.overwrite_document(key, step.document);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  return double(plan.count) / seconds_since(start);
}

/// Commits per second of `store` running `s` (executions created and warm-up done first).
double run_store(ExecutionStore& store, const Shape& s) {
  warm_up_store(store);
  Executions all = create_all(store, s);
  auto start = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < s.threads; ++t) {
    pool.emplace_back([&, t] { commit_rounds(store, all[t], t, s.rounds); });
  }
  for (auto& th : pool) th.join();
  return double(s.commits()) / seconds_since(start);
}

struct Args {
  std::string parts = "abc";
  int trials = 3;
  // 20,000 in-memory commits: at 4,000 the raw side's run took 10 - 20 ms, too short to time
  // on a shared machine (its store / raw ratio spread 0.18 - 0.42 across runs, 0.28 - 0.35 at
  // 20,000).
  int64_t durable_ops = 1000, threaded_ops = 1000, memory_ops = 20000, remote_ops = 2000,
          remote_durable_ops = 1000;
  int rounds = 10;
  int idle = 100000, busy = 10, sweep_runs = 300, baseline_runs = 11;
  int history_commits = 300, history_durable_commits = 150;
  bool remote = true;
  int covering_indexes = 1;
  std::string tool = mongostore::bench::tool_path();
  std::string scratch;
};

enum class Backend { kEmbeddedDurable, kEmbeddedMemory, kRemoteMemory, kRemoteDurable };

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kEmbeddedDurable:
      return "embedded durable";
    case Backend::kEmbeddedMemory:
      return "embedded in-memory";
    case Backend::kRemoteMemory:
      return "remote, `serve --memory`";
    case Backend::kRemoteDurable:
      return "remote, `serve --dbpath` (durable)";
  }
  return "?";
}

bool is_durable(Backend b) {
  return b == Backend::kEmbeddedDurable || b == Backend::kRemoteDurable;
}

void commit_throughput(const Args& a) {
  fmt::print(
      "\n## 1. Commit throughput: the typical commit (1 emit, dedupe mark, timer schedule, trace "
      "step; ~1 KB context) through ExecutionStore::commit vs raw WiredTiger rewriting the same "
      "document bytes (best of {} trials per side)\n\n",
      a.trials);
  fmt::print(
      "| backend | threads | commits | mean doc | index writes / commit | store commits/s | raw "
      "WT commits/s (the document) | store / raw | raw WT + index entries commits/s | raw + "
      "entries / raw | store / raw + entries |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);

  std::unique_ptr<ServerChild> memory_server, durable_server;
  if (a.remote) {
    memory_server = std::make_unique<ServerChild>(a.tool, std::vector<std::string>{"--memory"});
    std::string dbpath = a.scratch + "/served";
    std::filesystem::create_directories(dbpath);
    durable_server =
        std::make_unique<ServerChild>(a.tool, std::vector<std::string>{"--dbpath", dbpath});
  }

  struct Case {
    Backend backend;
    int threads;
    int64_t ops;
  };
  std::vector<Case> cases = {{Backend::kEmbeddedDurable, 1, a.durable_ops},
                             {Backend::kEmbeddedDurable, 8, a.threaded_ops},
                             {Backend::kEmbeddedMemory, 1, a.memory_ops}};
  if (a.remote) {
    cases.push_back({Backend::kRemoteMemory, 1, a.remote_ops});
    cases.push_back({Backend::kRemoteDurable, 1, a.remote_durable_ops});
  }
  int run = 0;
  for (const Case& c : cases) {
    Shape s = shape_for(c.threads, c.ops, a.rounds);
    ExecutionStoreOptions options;
    options.covering_indexes = a.covering_indexes != 0;
    Plan plan = capture_plan(s, options);
    bool durable = is_durable(c.backend);
    double store_best = 0, raw_best = 0, entries_best = 0;
    for (int trial = 0; trial < a.trials; ++trial) {
      raw_best = std::max(raw_best, run_raw(a.scratch + "/raw", durable, plan, false));
      entries_best = std::max(entries_best, run_raw(a.scratch + "/raw", durable, plan, true));
      std::shared_ptr<client::Client> client;
      switch (c.backend) {
        case Backend::kEmbeddedDurable: {
          std::string dir = a.scratch + "/engine";
          std::filesystem::remove_all(dir);
          client = client::connect("embedded:" + dir);
          break;
        }
        case Backend::kEmbeddedMemory:
          client = client::connect("embedded:memory");
          break;
        case Backend::kRemoteMemory:
          client = client::connect(memory_server->uri());
          break;
        case Backend::kRemoteDurable:
          client = client::connect(durable_server->uri());
          break;
      }
      // A fresh database per run, so a served engine starts every trial empty too.
      options.database = fmt::format("bench_{}", run++);
      {
        ExecutionStore store(client, options);
        store_best = std::max(store_best, run_store(store, s));
      }
      client->database(options.database).drop();
      client.reset();
      std::filesystem::remove_all(a.scratch + "/engine");
    }
    fmt::print(
        "| {} | {} | {} | {:.1f} KB | {:.2f} | {:.0f} | {:.0f} | {:.2f} | {:.0f} | {:.2f} | {:.2f} "
        "|\n",
        backend_name(c.backend), c.threads, s.commits(),
        double(plan.bytes) / double(plan.count) / 1024,
        double(plan.index_writes) / double(plan.count), store_best, raw_best, store_best / raw_best,
        entries_best, entries_best / raw_best, store_best / entries_best);
    std::fflush(stdout);
  }
  std::filesystem::remove_all(a.scratch + "/raw");
}

// --- 2. sweeps --------------------------------------------------------------------------------

Document any_seq_in(const char* path) {
  return make_document(path, make_document("$gte", -std::numeric_limits<double>::infinity()));
}
Document harel_non_empty(const char* field, bool array) {
  bson::DocumentBuilder b;
  b.open_document(field).append("$exists", true);
  if (array) {
    b.append("$ne", make_array());
  } else {
    b.append("$ne", Document());
  }
  b.close();
  return b.finish();
}

struct ExplainFigures {
  std::string plan;
  int64_t returned = 0, keys = 0, docs = 0;
};

ExplainFigures explain(const client::Collection& coll, const Document& filter,
                       const client::FindOptions& options) {
  Document e = coll.explain(filter, options);
  ExplainFigures f;
  bson::Value stage = e.get_path("queryPlanner.winningPlan.stage");
  f.plan = stage.is_string() ? std::string(stage.as_string()) : "?";
  bson::Value index = e.get_path("queryPlanner.winningPlan.inputStage.indexName");
  if (index.is_string()) f.plan += " ← IXSCAN " + std::string(index.as_string());
  f.returned = as_count(e.get_path("executionStats.nReturned"));
  f.keys = as_count(e.get_path("executionStats.totalKeysExamined"));
  f.docs = as_count(e.get_path("executionStats.totalDocsExamined"));
  return f;
}

/// Median microseconds of `runs` calls of `body`; `body` returns the entries it found, which
/// must be `expected` every time.
double median_us(int runs, size_t expected, const char* what, const std::function<size_t()>& body) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    size_t n = body();
    times.push_back(seconds_since(start) * 1e6);
    if (n != expected) {
      fmt::print(stderr, "{}: found {} entries, expected {}\n", what, n, expected);
      std::exit(2);
    }
  }
  return median(times);
}

void sweeps(const Args& a) {
  fmt::print(
      "\n## 2. Sweeps over {} idle executions and {} with work (embedded in-memory): the store's "
      "indexed filters vs harel's filters, plain find + client-side scan\n\n",
      a.idle, a.busy);
  ExecutionStore store(client::connect("embedded:memory"));
  client::Collection executions = store.client()->database("harel").collection("executions");

  // Idle: empty outbox and spawns; every other one has a timer armed a day ahead (not due).
  auto start = Clock::now();
  for (int i = 0; i < a.idle; ++i) {
    Execution exe;
    exe.id = fmt::format("idle-{:07}", i);
    exe.definition_id = "checkout";
    exe.status = exec::ExecutionStatus::kRunning;
    exe.active_path = "Checkout.Payment";
    exe.context = context_at(i);
    CommitBatch batch;
    if (i % 2 == 0) batch.timers.push_back(TimerOp::schedule("Checkout.Payment", kNow + 86400));
    store.commit(exe, batch);  // a first save: the insert of the whole document
  }
  double build_seconds = seconds_since(start);
  // With work: one pending outbox entry, one pending spawn and one due timer each.
  for (int i = 0; i < a.busy; ++i) {
    Execution exe;
    exe.id = fmt::format("busy-{:03}", i);
    exe.definition_id = "checkout";
    exe.status = exec::ExecutionStatus::kRunning;
    exe.context = context_at(i);
    CommitBatch batch = typical_batch(0, i, 1);
    batch.timers = {TimerOp::schedule("Checkout.Payment", kNow - 60)};
    batch.spawns.push_back({fmt::format("child-{}", i), "Fork.A", make_document("n", i)});
    store.commit(exe, batch);
  }
  fmt::print(
      "setup: {} idle executions created through ExecutionStore::commit (first saves) in {:.1f} s "
      "({:.0f} µs each); collection {} documents\n\n",
      a.idle, build_seconds, build_seconds * 1e6 / a.idle, executions.estimated_document_count());

  const size_t busy = size_t(a.busy);
  struct Sweep {
    const char* name;
    Document store_filter;
    client::FindOptions store_options;
    std::function<size_t()> store_run;
    Document harel_filter;
    client::FindOptions harel_options;
    std::function<size_t()> harel_run;
  };
  client::FindOptions outbox_projection, spawns_projection, timers_projection, harel_timers;
  outbox_projection.projection = make_document("outbox", 1);
  spawns_projection.projection = make_document("spawns", 1);
  timers_projection.projection = make_document("timers", 1, "next_fire_at", 1, "version", 1);
  harel_timers.projection = make_document("timers", 1);

  // harel's sweeps: find every document whose array / sub-document is non-empty, then pick
  // the entries out client-side (parsing them as the store does).
  auto harel_outbox = [&] {
    std::vector<exec::OutboxEntry> entries;
    for (const Document& doc :
         executions.find(harel_non_empty("outbox", true), outbox_projection)->to_vector()) {
      for (const bson::Element& e : doc.get("outbox").as_array()) {
        bson::DocumentView entry = e.value.as_document();
        exec::OutboxEntry out;
        out.seq = entry.get("seq").as_int64();
        bson::Value target = entry.get("target_id");
        if (target.is_string()) out.target_id = std::string(target.as_string());
        out.event = Event::from_json(entry.get("event").as_string());
        out.source_id = std::string(doc.get("_id").as_string());
        entries.push_back(std::move(out));
      }
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& x, const auto& y) { return x.seq < y.seq; });
    return entries.size();
  };
  auto harel_spawns = [&] {
    std::vector<exec::SpawnEntry> entries;
    for (const Document& doc :
         executions.find(harel_non_empty("spawns", true), spawns_projection)->to_vector()) {
      for (const bson::Element& e : doc.get("spawns").as_array()) {
        bson::DocumentView entry = e.value.as_document();
        exec::SpawnEntry out;
        out.seq = entry.get("seq").as_int64();
        out.parent_id = std::string(entry.get("parent_id").as_string());
        out.child_id = std::string(entry.get("child_id").as_string());
        out.root_path = std::string(entry.get("root_path").as_string());
        out.context = Document::copy_of(entry.get("context").as_document());
        entries.push_back(std::move(out));
      }
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& x, const auto& y) { return x.seq < y.seq; });
    return entries.size();
  };
  auto harel_timers_run = [&] {
    std::vector<exec::DueTimer> due;
    for (const Document& doc :
         executions.find(harel_non_empty("timers", false), harel_timers)->to_vector()) {
      for (const bson::Element& e : doc.get("timers").as_document()) {
        double at = e.value.number_as_double();
        if (at <= kNow) {
          due.push_back(
              {std::string(doc.get("_id").as_string()), exec::decode_timer_path(e.key), at});
        }
      }
    }
    std::sort(due.begin(), due.end(),
              [](const auto& x, const auto& y) { return x.fire_at < y.fire_at; });
    return due.size();
  };

  std::vector<Sweep> list;
  list.push_back({"pending_outbox", any_seq_in("outbox.seq"), outbox_projection,
                  [&] { return store.pending_outbox().size(); }, harel_non_empty("outbox", true),
                  outbox_projection, harel_outbox});
  list.push_back({"pending_spawns", any_seq_in("spawns.seq"), spawns_projection,
                  [&] { return store.pending_spawns().size(); }, harel_non_empty("spawns", true),
                  spawns_projection, harel_spawns});
  list.push_back({"due_timers(now)", make_document("next_fire_at", make_document("$lte", kNow)),
                  timers_projection, [&] { return store.due_timers(kNow).size(); },
                  harel_non_empty("timers", false), harel_timers, harel_timers_run});

  fmt::print(
      "| sweep | side | filter | plan | docs returned | keys examined | docs examined | median "
      "per sweep |\n");
  fmt::print("|---|---|---|---|---:|---:|---:|---:|\n");
  struct Result {
    double store_us, harel_us;
  };
  std::vector<Result> results;
  for (Sweep& s : list) {
    ExplainFigures mine = explain(executions, s.store_filter, s.store_options);
    double mine_us = median_us(a.sweep_runs, busy, s.name, s.store_run);
    ExplainFigures theirs = explain(executions, s.harel_filter, s.harel_options);
    double theirs_us = median_us(a.baseline_runs, busy, s.name, s.harel_run);
    fmt::print("| {} | store | `{}` | {} | {} | {} | {} | {:.1f} µs |\n", s.name,
               s.store_filter.to_json(), mine.plan, mine.returned, mine.keys, mine.docs, mine_us);
    fmt::print("| {} | harel baseline | `{}` | {} | {} | {} | {} | {:.1f} µs |\n", s.name,
               s.harel_filter.to_json(), theirs.plan, theirs.returned, theirs.keys, theirs.docs,
               theirs_us);
    std::fflush(stdout);
    results.push_back({mine_us, theirs_us});
  }
  fmt::print(
      "\n| sweep | store median | harel baseline median | baseline / store | under 1 ms |\n");
  fmt::print("|---|---:|---:|---:|---|\n");
  for (size_t i = 0; i < list.size(); ++i) {
    fmt::print("| {} | {:.1f} µs | {:.1f} µs | {:.0f}x | {} |\n", list[i].name, results[i].store_us,
               results[i].harel_us, results[i].harel_us / results[i].store_us,
               results[i].store_us < 1000 ? "yes" : "NO");
  }
  fmt::print("(store: median of {} sweeps; baseline: median of {})\n", a.sweep_runs,
             a.baseline_runs);
  std::fflush(stdout);
}

// --- 3. history -------------------------------------------------------------------------------

struct HistoryFigures {
  double median_us = 0;
  double mean_us = 0;  // includes the moves of marks to the archive in the window
  size_t doc_bytes = 0;
  double probe_us = 0;  // load_for_event of a fresh event, median
};

/// The typical commit on an execution with `marks` processed ids and a full trace ring:
/// median and mean time of `commits` commits (the outbox entry each one emits is acked
/// between commits, outside the timing, as the relay would). The marks are first written
/// into the document as the seed's layout holds them; a store with a bound then moves them
/// out with archive_processed, exactly as its commits would have over time.
HistoryFigures history_case(ExecutionStore& store, int marks, int commits) {
  const std::string& db = store.options().database;
  client::Collection executions = store.client()->database(db).collection("executions");
  client::Collection counters = store.client()->database(db).collection("counters");
  std::string id = fmt::format("history-{}", marks);
  exec::NewExecution spec;
  spec.definition_id = "checkout";
  spec.id = id;
  spec.context = context_at(0);
  spec.status = exec::ExecutionStatus::kRunning;
  store.create(spec);
  const int64_t trace_max = store.options().trace_max;
  bson::DocumentBuilder b;
  b.open_document("$set");
  b.open_array("processed");
  for (int i = 0; i < marks; ++i) b.push(hex_id(3, 0, i, marks));
  b.close();
  b.open_array("trace");
  for (int64_t i = 0; i < trace_max; ++i) {
    b.push_document()
        .append("step", "transition")
        .append("from", "Checkout.Cart")
        .append("to", "Checkout.Payment")
        .append("event", "Reserve")
        .append("index", i)
        .close();
  }
  b.close();
  b.close();
  executions.update_one(make_document("_id", id), b.finish());
  store.archive_processed(id);
  client::UpdateOptions upsert;
  upsert.upsert = true;
  counters.update_one(make_document("_id", "trace:" + id),
                      make_document("$set", make_document("n", trace_max)), upsert);
  Execution exe = *store.load(id);
  Document clear_outbox = make_document("$set", make_document("outbox", make_array()));
  std::vector<double> times;
  for (int r = 1; r <= commits + 5; ++r) {
    advance(exe, r);
    CommitBatch batch = typical_batch(0, marks, r);
    auto start = Clock::now();
    store.commit(exe, batch);
    double us = seconds_since(start) * 1e6;
    if (r > 5) times.push_back(us);  // the first five warm up
    executions.update_one(make_document("_id", id), clear_outbox);
  }
  HistoryFigures f;
  f.median_us = median(times);
  double sum = 0;
  for (double t : times) sum += t;
  f.mean_us = sum / double(times.size());
  f.doc_bytes = executions.find_one(make_document("_id", id))->size();
  std::vector<double> probes;
  for (int i = 0; i < 101; ++i) {
    auto start = Clock::now();
    auto [loaded, seen] = store.load_for_event(id, hex_id(4, 0, i, marks));
    probes.push_back(seconds_since(start) * 1e6);
    if (!loaded || seen) throw std::runtime_error("history: the dedupe probe is wrong");
  }
  // An old (archived) mark is still a hit.
  if (marks > 0 && !store.load_for_event(id, hex_id(3, 0, 0, marks)).second) {
    throw std::runtime_error("history: an archived mark was not found");
  }
  f.probe_us = median(probes);
  return f;
}

void history(const Args& a) {
  fmt::print(
      "\n## 3. Commit cost as history grows: the typical commit on an execution with N processed "
      "marks and a full trace ring ({}), median and mean per commit (in-memory: {} commits, "
      "durable: {}), and load_for_event of a fresh event (median of 101), for the seed's layout "
      "(every mark in the document) and the default bound (processed_in_document = {})\n\n",
      exec::kDefaultTraceMax, a.history_commits, a.history_durable_commits,
      ExecutionStoreOptions().processed_in_document);
  std::vector<int> sizes = {0, 100, 1000, 10000};
  std::string dir = a.scratch + "/history";
  std::filesystem::remove_all(dir);
  auto memory_client = client::connect("embedded:memory");
  auto durable_client = client::connect("embedded:" + dir);
  ExecutionStoreOptions seed_layout;
  seed_layout.database = "harel_seed_layout";
  seed_layout.processed_in_document = 0;
  struct Layout {
    const char* name;
    ExecutionStoreOptions options;
  };
  std::vector<Layout> layouts = {{"seed layout", seed_layout},
                                 {"bounded (default)", ExecutionStoreOptions()}};
  fmt::print(
      "| layout | marks | doc size | in-memory µs median / mean | ÷ N=0 | durable µs median / mean "
      "| ÷ N=0 | load_for_event µs (in-memory) |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Layout& layout : layouts) {
    ExecutionStore memory(memory_client, layout.options);
    ExecutionStore durable(durable_client, layout.options);
    warm_up_store(memory);
    warm_up_store(durable);
    std::vector<HistoryFigures> in_memory, on_disk;
    for (int n : sizes) in_memory.push_back(history_case(memory, n, a.history_commits));
    for (int n : sizes) on_disk.push_back(history_case(durable, n, a.history_durable_commits));
    for (size_t i = 0; i < sizes.size(); ++i) {
      fmt::print(
          "| {} | {} | {:.1f} KB | {:.1f} / {:.1f} | {:.2f} | {:.1f} / {:.1f} | {:.2f} | "
          "{:.1f} |\n",
          layout.name, sizes[i], double(in_memory[i].doc_bytes) / 1024, in_memory[i].median_us,
          in_memory[i].mean_us, in_memory[i].median_us / in_memory[0].median_us,
          on_disk[i].median_us, on_disk[i].mean_us, on_disk[i].median_us / on_disk[0].median_us,
          in_memory[i].probe_us);
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  BenchArgs args;
  args.option("--part", &a.parts)
      .option("--trials", &a.trials)
      .option("--durable-ops", &a.durable_ops)
      .option("--threaded-ops", &a.threaded_ops)
      .option("--memory-ops", &a.memory_ops)
      .option("--remote-ops", &a.remote_ops)
      .option("--remote-durable-ops", &a.remote_durable_ops)
      .option("--rounds", &a.rounds)
      .option("--idle", &a.idle)
      .option("--busy", &a.busy)
      .option("--sweep-runs", &a.sweep_runs)
      .option("--baseline-runs", &a.baseline_runs)
      .option("--history-commits", &a.history_commits)
      .option("--history-durable-commits", &a.history_durable_commits)
      .flag("--no-remote", &a.remote, false)
      .option("--covering-indexes", &a.covering_indexes)
      .option("--tool", &a.tool);
  if (!args.parse(argc, argv)) return 1;
  a.scratch =
      (std::filesystem::temp_directory_path() / fmt::format("mongostore-exec-bench-{}", ::getpid()))
          .string();
  std::filesystem::create_directories(a.scratch);
  fmt::print("ExecutionStore benchmarks (issue 7)\n");
  if (a.parts.find('a') != std::string::npos) commit_throughput(a);
  if (a.parts.find('b') != std::string::npos) sweeps(a);
  if (a.parts.find('c') != std::string::npos) history(a);
  std::filesystem::remove_all(a.scratch);
}
