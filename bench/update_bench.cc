// Commit-shaped updates through the engine against raw WiredTiger rewriting the same bytes.
//
// The update is the shape of a workflow store's commit, with a version check in the filter:
//
//   update_one({_id, version: n},
//              {$set: {data: <1 KB string>, version: n + 1},
//               $push: {outbox: {$each: [{seq, target_id, event: <200 B string>}], $slice: -50},
//                       trace: {$each: [{index, step}], $slice: -200}},
//               $addToSet: {processed: "evt-<n>"}})
//
// The raw side does what is left when the update language is taken away: in one transaction
// it reads the document by key and overwrites it with the resulting bytes, which were computed
// beforehand (outside the timed loop) by applying the same compiled Update. Both sides use a
// table of the same configuration, the same key (the order-preserving key of `_id`) and the
// same commit sync. At the end the engine's documents are checked to be byte-identical to the
// raw side's. The engine's extra work per op: compiling filter and update, matching the filter,
// applying the update (rebuilding the document), validating it, the catalog lookup and the
// conflict-retry bookkeeping.
//
// Two measurements, in-memory and durable (fsync per commit):
//   1. one document updated N times in a row (its `processed` array grows by one per op);
//   2. steady-state documents (outbox 50, trace 200 entries) with a `processed` array of
//      10, 100, 1,000, 10,000 elements, one update per document.
//
// Each figure is the best of --trials runs per side (fresh tables each run).
//
//   build/bench/update_bench [--ops N] [--durable-ops N] [--trials T]
#include <fmt/core.h>
#include <wiredtiger.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/storage/record_table.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/update.h"

using namespace mongostore;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kDb = "bench";
constexpr const char* kColl = "workflows";

std::string key_of(const bson::Value& id) {
  return bson::encode_index_key(id);
}

/// The commit from `version` to version + 1; `n` varies the content (event ids, strings).
bson::Document commit_update(int64_t version, int64_t n) {
  bson::DocumentBuilder b;
  b.open_document("$set")
      .append("data", std::string(1024, char('a' + n % 26)))
      .append("version", version + 1)
      .close();
  b.open_document("$push");
  b.open_document("outbox").open_array("$each");
  b.push_document()
      .append("seq", n)
      .append("target_id", fmt::format("target-{}", n % 7))
      .append("event", std::string(200, char('A' + n % 26)))
      .close();
  b.close().append("$slice", -50).close();
  b.open_document("trace").open_array("$each");
  b.push_document().append("index", n).append("step", fmt::format("step-{}", n)).close();
  b.close().append("$slice", -200).close();
  b.close();
  b.open_document("$addToSet").append("processed", fmt::format("evt-{}", n)).close();
  return b.finish();
}

/// A workflow document at version 1: `outbox` and `trace` entries as a long-running workflow
/// has them after trimming, and `processed` event ids.
bson::Document workflow(const std::string& id, int outbox, int trace, int processed) {
  bson::DocumentBuilder b;
  b.append("_id", id).append("version", int64_t(1)).append("data", std::string(1024, 'z'));
  b.open_array("outbox");
  for (int i = 0; i < outbox; ++i) {
    b.push_document()
        .append("seq", int64_t(-outbox + i))
        .append("target_id", fmt::format("target-{}", i % 7))
        .append("event", std::string(200, 'e'))
        .close();
  }
  b.close();
  b.open_array("trace");
  for (int i = 0; i < trace; ++i) {
    b.push_document().append("index", int64_t(-trace + i)).append("step", "old").close();
  }
  b.close();
  b.open_array("processed");
  for (int i = 0; i < processed; ++i) b.push(fmt::format("old-evt-{}", i));
  b.close();
  return b.finish();
}

// Raw WiredTiger: a table like the engine's, the same journal (file_max, zero_fill: as
// src/engine/storage/wiredtiger_connection.cc configures it) and the same commit sync.
class RawWiredTiger {
 public:
  RawWiredTiger(const std::string& home, bool durable) : durable_(durable) {
    std::string config = "create,cache_size=512MB,session_max=100,";
    config +=
        durable ? "log=(enabled=true,file_max=8MB,zero_fill=true),transaction_sync=(enabled=false)"
                : "in_memory=true";
    std::filesystem::create_directories(home);
    if (wiredtiger_open(home.c_str(), nullptr, config.c_str(), &conn_) != 0) std::abort();
    conn_->open_session(conn_, nullptr, "isolation=snapshot", &s_);
    s_->create(s_, "table:raw",
               engine::record_table_config(durable ? engine::Durability::kDurable
                                                   : engine::Durability::kInMemory));
    s_->open_cursor(s_, "table:raw", nullptr, nullptr, &c_);
  }
  ~RawWiredTiger() { conn_->close(conn_, nullptr); }

  void insert(const std::string& k, const bson::Document& d) {
    WT_ITEM key{}, val{};
    key.data = k.data();
    key.size = k.size();
    val.data = d.data();
    val.size = d.size();
    s_->begin_transaction(s_, nullptr);
    c_->set_key(c_, &key);
    c_->set_value(c_, &val);
    if (c_->insert(c_) != 0) std::abort();
    s_->commit_transaction(s_, commit_config());
  }

  /// Reads the document at `k` and overwrites it with `d`, in one transaction.
  void read_and_overwrite(const std::string& k, const bson::Document& d) {
    WT_ITEM key{}, val{}, old{};
    key.data = k.data();
    key.size = k.size();
    val.data = d.data();
    val.size = d.size();
    s_->begin_transaction(s_, nullptr);
    c_->set_key(c_, &key);
    if (c_->search(c_) != 0) std::abort();
    c_->get_value(c_, &old);
    if (old.size == 0) std::abort();
    c_->set_key(c_, &key);
    c_->set_value(c_, &val);
    if (c_->update(c_) != 0) std::abort();
    s_->commit_transaction(s_, commit_config());
  }

  std::vector<uint8_t> read(const std::string& k) {
    WT_ITEM key{}, val{};
    key.data = k.data();
    key.size = k.size();
    s_->begin_transaction(s_, nullptr);
    c_->set_key(c_, &key);
    if (c_->search(c_) != 0) std::abort();
    c_->get_value(c_, &val);
    const auto* p = static_cast<const uint8_t*>(val.data);
    std::vector<uint8_t> out(p, p + val.size);
    s_->rollback_transaction(s_, nullptr);
    return out;
  }

 private:
  const char* commit_config() const { return durable_ ? "sync=on" : "sync=off"; }
  WT_CONNECTION* conn_ = nullptr;
  WT_SESSION* s_ = nullptr;
  WT_CURSOR* c_ = nullptr;
  bool durable_;
};

/// One planned update: the filter and update the engine runs, and the bytes the raw side
/// writes (the same Update applied beforehand).
struct Op {
  std::string key;
  bson::Document filter;
  bson::Document update;
  bson::Document result;
  const bson::Document* source = nullptr;  // the document the update applies to
};

struct Figures {
  double engine_us = 0;  // per op
  double raw_us = 0;
  double apply_us = 0;   // Update::compile + apply alone, per op
  size_t doc_bytes = 0;  // mean size of the written document
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Loads `docs` into both sides, plans `ops_per_doc` updates of each (round by round), runs
/// the raw side then the engine, and checks both end with the same bytes.
Figures run(bool durable, const std::string& scratch, const std::vector<bson::Document>& docs,
            int ops_per_doc) {
  std::filesystem::remove_all(scratch);
  RawWiredTiger raw(scratch + "/raw", durable);
  engine::EngineOptions options;
  options.durability = durable ? engine::Durability::kDurable : engine::Durability::kInMemory;
  options.path = scratch + "/engine";
  auto e = engine::Engine::open(options);

  // Load, and take the stored bytes (the engine puts `_id` first) as the starting point.
  std::vector<bson::Document> current;
  std::vector<std::string> keys;
  for (const auto& d : docs) {
    e->insert_one(kDb, kColl, d);
    auto stored = e->find_by_id(kDb, kColl, d.get("_id"));
    if (!stored) std::abort();
    keys.push_back(key_of(stored->get("_id")));
    raw.insert(keys.back(), *stored);
    current.push_back(std::move(*stored));
  }

  std::vector<Op> plan;
  plan.reserve(current.size() * static_cast<size_t>(ops_per_doc));
  const std::vector<bson::Document> initial = current;
  std::vector<const bson::Document*> latest;
  for (const auto& d : initial) latest.push_back(&d);
  size_t bytes = 0;
  for (int round = 0; round < ops_per_doc; ++round) {
    for (size_t i = 0; i < current.size(); ++i) {
      int64_t version = current[i].get("version").as_int64();
      int64_t n = version + static_cast<int64_t>(i) * 1000000;  // distinct event ids
      Op op;
      op.key = keys[i];
      op.filter = bson::make_document("_id", current[i].get("_id"), "version", version);
      op.update = commit_update(version, n);
      engine::Update u = engine::Update::compile(op.update.view());
      op.result = u.apply(current[i].view()).document;
      op.source = latest[i];
      bytes += op.result.size();
      current[i] = op.result;
      plan.push_back(std::move(op));
      latest[i] = &plan.back().result;
    }
  }

  // Warm-up outside the measured range: the first commits of a connection pay for log-file
  // creation; a throwaway document takes them on both sides.
  {
    bson::Document w = workflow("warm-up", 1, 1, 1);
    auto stored = (e->insert_one(kDb, kColl, w), e->find_by_id(kDb, kColl, w.get("_id")));
    std::string k = key_of(stored->get("_id"));
    raw.insert(k, *stored);
    for (int i = 0; i < 50; ++i) {
      raw.read_and_overwrite(k, *stored);
      e->replace_one(kDb, kColl, bson::make_document("_id", "warm-up"), *stored);
    }
  }

  Figures f;
  auto start = Clock::now();
  for (const Op& op : plan) raw.read_and_overwrite(op.key, op.result);
  f.raw_us = seconds_since(start) * 1e6 / double(plan.size());

  start = Clock::now();
  for (const Op& op : plan) {
    engine::UpdateResult r = e->update_one(kDb, kColl, op.filter, op.update);
    if (r.modified_count != 1) {
      fmt::print(stderr, "engine update did not apply: {}\n", op.filter.to_json());
      std::abort();
    }
  }
  f.engine_us = seconds_since(start) * 1e6 / double(plan.size());
  f.doc_bytes = bytes / plan.size();

  // The update language alone, warm: compile and apply each planned update again.
  start = Clock::now();
  size_t check = 0;
  for (const Op& op : plan) {
    engine::Update u = engine::Update::compile(op.update.view());
    check += u.apply(op.source->view()).document.size();
  }
  f.apply_us = seconds_since(start) * 1e6 / double(plan.size());
  if (check != bytes) std::abort();

  for (size_t i = 0; i < docs.size(); ++i) {
    auto mine = e->find_by_id(kDb, kColl, current[i].get("_id"));
    std::vector<uint8_t> theirs = raw.read(keys[i]);
    if (!mine || mine->size() != theirs.size() ||
        !std::equal(theirs.begin(), theirs.end(), mine->data()) || !(*mine == current[i])) {
      fmt::print(stderr, "engine and raw documents differ for {}\n", keys[i]);
      std::abort();
    }
  }
  return f;
}

/// The best (lowest) per-op cost of each side over `trials` runs.
Figures best_of(int trials, bool durable, const std::string& scratch,
                const std::vector<bson::Document>& docs, int ops_per_doc) {
  Figures best;
  for (int t = 0; t < trials; ++t) {
    Figures f = run(durable, scratch, docs, ops_per_doc);
    if (t == 0 || f.engine_us < best.engine_us) best.engine_us = f.engine_us;
    if (t == 0 || f.raw_us < best.raw_us) best.raw_us = f.raw_us;
    if (t == 0 || f.apply_us < best.apply_us) best.apply_us = f.apply_us;
    best.doc_bytes = f.doc_bytes;
  }
  return best;
}

void header() {
  fmt::print(
      "| case | doc size | engine µs/op | raw WiredTiger µs/op | engine / raw (ops/s) | of which "
      "Update compile+apply µs |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|\n");
}

void row(const std::string& name, const Figures& f) {
  fmt::print("| {} | {:.1f} KB | {:.1f} | {:.1f} | {:.2f} | {:.1f} |\n", name,
             double(f.doc_bytes) / 1024, f.engine_us, f.raw_us, f.raw_us / f.engine_us, f.apply_us);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int ops = 2000, durable_ops = 500, trials = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--ops") ops = std::stoi(argv[i + 1]);
    if (a == "--durable-ops") durable_ops = std::stoi(argv[i + 1]);
    if (a == "--trials") trials = std::stoi(argv[i + 1]);
  }
  std::string scratch = (std::filesystem::temp_directory_path() /
                         fmt::format("mongostore-update-bench-{}", ::getpid()))
                            .string();
  fmt::print(
      "commit-shaped update_one ({{_id, version}} filter; $set 1 KB + version, $push outbox "
      "$slice -50 and trace $slice -200, $addToSet processed) vs raw WiredTiger "
      "read + overwrite of the same resulting bytes\n");
  for (bool durable : {false, true}) {
    int n = durable ? durable_ops : ops;
    fmt::print("\n{}\n\n", durable ? "durable (fsync per commit)" : "in-memory");
    header();
    // 1. One document, updated n times in a row from empty arrays.
    row(fmt::format("one document, {} updates in a row (processed 0 → {})", n, n),
        best_of(trials, durable, scratch, {workflow("wf-1", 0, 0, 0)}, n));
    // 2. Steady-state documents by size of `processed`, one update each.
    for (int processed : {10, 100, 1000, 10000}) {
      int docs = std::max(1, processed >= 10000 ? n / 10 : processed >= 1000 ? n / 4 : n);
      std::vector<bson::Document> batch;
      for (int i = 0; i < docs; ++i)
        batch.push_back(workflow(fmt::format("wf-{}", i), 50, 200, processed));
      row(fmt::format("steady state, processed = {} ({} docs × 1 update)", processed, docs),
          best_of(trials, durable, scratch, batch, 1));
    }
  }
  std::filesystem::remove_all(scratch);
}
