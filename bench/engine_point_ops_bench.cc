// Point operations of the embedded engine against raw WiredTiger writing the same bytes.
//
// Both sides store the same key (the order-preserving key of an int64 _id) and the same value
// (the BSON document), in a table with the same configuration, in one transaction per
// operation, with the same commit sync: durable (journal fsync per commit) and in-memory.
// The engine adds BSON validation, `_id` extraction and key encoding, the catalog lookup, the
// filter compile for replace, and conflict-retry bookkeeping. Output: a table of ops/s and the
// engine/raw ratio (1.00 = as fast as raw WiredTiger).
//
//   build/bench/engine_point_ops_bench [--ops N] [--durable-ops N] [--threads T]
#include <fmt/core.h>
#include <wiredtiger.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/storage/record_table.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/engine.h"

using namespace mongostore;
using Clock = std::chrono::steady_clock;

namespace {

bson::Document make_doc(int64_t id, int version) {
  return bson::make_document("_id", id, "version", int64_t(version), "payload",
                             std::string(1000, char('a' + (id + version) % 26)));
}

std::string key_of(int64_t id) {
  bson::Document d = bson::make_document("_id", id);
  return bson::encode_index_key(d.get("_id"));
}

// Raw WiredTiger doing the engine's work with nothing on top, on the engine's journal config
// (src/engine/storage/wiredtiger_connection.cc).
class RawWiredTiger {
 public:
  RawWiredTiger(const std::string& home, bool durable) : durable_(durable) {
    std::string config = "create,cache_size=512MB,session_max=200,";
    config +=
        durable ? "log=(enabled=true,file_max=8MB,zero_fill=true),transaction_sync=(enabled=false)"
                : "in_memory=true";
    std::filesystem::create_directories(home);
    if (wiredtiger_open(home.c_str(), nullptr, config.c_str(), &conn_) != 0) {
      throw std::runtime_error("wiredtiger_open failed");
    }
    WT_SESSION* s;
    conn_->open_session(conn_, nullptr, nullptr, &s);
    s->create(s, "table:raw",
              engine::record_table_config(durable ? engine::Durability::kDurable
                                                  : engine::Durability::kInMemory));
    s->close(s, nullptr);
  }
  ~RawWiredTiger() { conn_->close(conn_, nullptr); }

  WT_SESSION* session() {
    WT_SESSION* s;
    conn_->open_session(conn_, nullptr, "isolation=snapshot", &s);
    return s;
  }
  const char* commit_config() const { return durable_ ? "sync=on" : "sync=off"; }

 private:
  WT_CONNECTION* conn_ = nullptr;
  bool durable_;
};

double run_threads(int threads, int64_t ops,
                   const std::function<void(int, int64_t, int64_t)>& body) {
  auto start = Clock::now();
  std::vector<std::thread> pool;
  int64_t per = ops / threads;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { body(t, t * per, (t + 1) * per); });
  for (auto& th : pool) th.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  return double(per * threads) / secs;
}

struct Row {
  std::string op;
  double engine, raw;
};

std::vector<Row> measure(bool durable, int64_t ops, int threads, const std::string& scratch) {
  std::filesystem::remove_all(scratch);
  RawWiredTiger raw(scratch + "/raw", durable);
  engine::EngineOptions options;
  options.durability = durable ? engine::Durability::kDurable : engine::Durability::kInMemory;
  options.path = scratch + "/engine";
  auto e = engine::Engine::open(options);

  // Warm-up on a separate key range: the first commits of a new WiredTiger connection pay for
  // log-file creation and preallocation, which would otherwise land on whichever side ran first.
  {
    WT_SESSION* s = raw.session();
    WT_CURSOR* c;
    s->open_cursor(s, "table:raw", nullptr, nullptr, &c);
    for (int64_t i = 1; i <= 300; ++i) {
      bson::Document d = make_doc(-i, 0);
      std::string k = key_of(-i);
      WT_ITEM key{}, val{};
      key.data = k.data();
      key.size = k.size();
      val.data = d.data();
      val.size = d.size();
      s->begin_transaction(s, nullptr);
      c->set_key(c, &key);
      c->set_value(c, &val);
      c->insert(c);
      s->commit_transaction(s, raw.commit_config());
    }
    c->close(c);
    s->close(s, nullptr);
    for (int64_t i = 1; i <= 300; ++i) e->insert_one("bench", "docs", make_doc(-i, 0));
  }

  std::vector<Row> rows;
  // insert
  double raw_insert = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    WT_SESSION* s = raw.session();
    WT_CURSOR* c;
    s->open_cursor(s, "table:raw", nullptr, "overwrite=false", &c);
    for (int64_t i = lo; i < hi; ++i) {
      bson::Document d = make_doc(i, 0);
      std::string k = key_of(i);
      WT_ITEM key{}, val{};
      key.data = k.data();
      key.size = k.size();
      val.data = d.data();
      val.size = d.size();
      s->begin_transaction(s, nullptr);
      c->set_key(c, &key);
      c->set_value(c, &val);
      if (c->insert(c) != 0) std::abort();
      s->commit_transaction(s, raw.commit_config());
    }
    c->close(c);
    s->close(s, nullptr);
  });
  double engine_insert = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) e->insert_one("bench", "docs", make_doc(i, 0));
  });
  rows.push_back({"insert", engine_insert, raw_insert});

  // find by _id
  double raw_find = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    WT_SESSION* s = raw.session();
    WT_CURSOR* c;
    s->open_cursor(s, "table:raw", nullptr, nullptr, &c);
    for (int64_t i = lo; i < hi; ++i) {
      std::string k = key_of(i);
      WT_ITEM key{}, val{};
      key.data = k.data();
      key.size = k.size();
      s->begin_transaction(s, nullptr);
      c->set_key(c, &key);
      if (c->search(c) != 0) std::abort();
      c->get_value(c, &val);
      std::vector<uint8_t> copy(static_cast<const uint8_t*>(val.data),
                                static_cast<const uint8_t*>(val.data) + val.size);
      s->rollback_transaction(s, nullptr);
    }
    c->close(c);
    s->close(s, nullptr);
  });
  double engine_find = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      bson::Document id = bson::make_document("_id", i);
      if (!e->find_by_id("bench", "docs", id.get("_id"))) std::abort();
    }
  });
  rows.push_back({"find by _id", engine_find, raw_find});

  // replace by _id (read + rewrite in one transaction on both sides)
  double raw_replace = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    WT_SESSION* s = raw.session();
    WT_CURSOR* c;
    s->open_cursor(s, "table:raw", nullptr, nullptr, &c);
    for (int64_t i = lo; i < hi; ++i) {
      std::string k = key_of(i);
      bson::Document d = make_doc(i, 1);
      WT_ITEM key{}, val{}, old{};
      key.data = k.data();
      key.size = k.size();
      val.data = d.data();
      val.size = d.size();
      s->begin_transaction(s, nullptr);
      c->set_key(c, &key);
      if (c->search(c) != 0) std::abort();
      c->get_value(c, &old);
      c->set_key(c, &key);
      c->set_value(c, &val);
      if (c->update(c) != 0) std::abort();
      s->commit_transaction(s, raw.commit_config());
    }
    c->close(c);
    s->close(s, nullptr);
  });
  double engine_replace = run_threads(threads, ops, [&](int, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      bson::Document replacement = make_doc(i, 1);
      e->replace_one("bench", "docs", bson::make_document("_id", i), replacement);
    }
  });
  rows.push_back({"replace by _id", engine_replace, raw_replace});
  return rows;
}

void print(const std::string& title, const std::vector<Row>& rows) {
  fmt::print("\n{}\n", title);
  fmt::print("| operation | engine ops/s | raw WiredTiger ops/s | engine / raw |\n");
  fmt::print("|---|---:|---:|---:|\n");
  for (const Row& r : rows) {
    fmt::print("| {} | {:.0f} | {:.0f} | {:.2f} |\n", r.op, r.engine, r.raw, r.engine / r.raw);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t ops = 50000, durable_ops = 2000;
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--ops") ops = std::stoll(argv[i + 1]);
    if (a == "--durable-ops") durable_ops = std::stoll(argv[i + 1]);
    if (a == "--threads") threads = std::stoi(argv[i + 1]);
  }
  std::string scratch = (std::filesystem::temp_directory_path() / "mongostore-bench").string();
  fmt::print(
      "engine point operations vs raw WiredTiger (same keys, same BSON bytes, 1 KB "
      "documents, {} thread(s))\n",
      threads);
  print(fmt::format("in-memory, {} ops each", ops), measure(false, ops, threads, scratch));
  print(fmt::format("durable (fsync per commit), {} ops each", durable_ops),
        measure(true, durable_ops, threads, scratch));
  if (threads == 1) {
    print(fmt::format("durable, 8 threads (group commit), {} ops each", durable_ops * 4),
          measure(true, durable_ops * 4, 8, scratch));
  }
  std::filesystem::remove_all(scratch);
}
