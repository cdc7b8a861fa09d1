// An in-memory engine's collection and index tables are reconciled in memory once a page's
// updates outgrow 32 KB (kInMemoryRecordTableConfig, record_table.h says why): the versions
// no reader needs any more are dropped and their memory reused, instead of every version an
// update wrote being kept until WiredTiger's eviction server next moves its oldest
// transaction id. Journaled and durable engines keep WiredTiger's default.
#include <gtest/gtest.h>
#include <malloc.h>

#include <string>
#include <thread>
#include <vector>

#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "mongostore/bson/builder.h"
#include "support/memory_engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

// The configuration WiredTiger keeps for the file of `table` ("table:x" is "file:x.wt").
std::string file_config(WiredTigerConnection& connection, const std::string& table) {
  auto s = connection.pool().acquire();
  WT_CURSOR* metadata = nullptr;
  EXPECT_EQ(s->open_cursor(s.get(), "metadata:", nullptr, nullptr, &metadata), 0);
  const std::string key = "file:" + table.substr(table.find(':') + 1) + ".wt";
  metadata->set_key(metadata, key.c_str());
  std::string config;
  const char* value = nullptr;
  if (metadata->search(metadata) == 0 && metadata->get_value(metadata, &value) == 0) {
    config = value;
  }
  metadata->close(metadata);
  return config;
}

TEST(InMemoryPageConfig, OnlyAnInMemoryEngineSetsTheSmallPageLimit) {
  testing::TempDir dir;
  for (Durability d : {Durability::kInMemory, Durability::kJournaled, Durability::kDurable}) {
    EngineOptions options;
    options.durability = d;
    options.cache_size_mb = 64;
    if (d != Durability::kInMemory) options.path = dir.path() + "/" + std::to_string(int(d));
    WiredTigerConnection connection(options);
    connection.create_record_table("table:records");
    const std::string config = file_config(connection, "table:records");
    ASSERT_NE(config.find("key_format=u"), std::string::npos) << config;
    if (d == Durability::kInMemory) {
      EXPECT_NE(config.find(",memory_page_max=32KB,"), std::string::npos) << config;
    } else {
      EXPECT_NE(config.find(",memory_page_max=5MB,"), std::string::npos) << config;
    }
  }
}

// Seen from outside: an in-memory engine that updates each of many documents now and then
// does not keep every version it wrote. 1,000 documents of ~2.5 KB, each updated 20 times
// (~50 MB written, each update a new ~2.5 KB version), with an index on a field every update
// changes. The loop takes a fraction of a second, and WiredTiger's eviction server wakes 10 ms
// to 1 s apart: with WiredTiger's default page limit the heap grew by ~32 MB over the loop,
// with the 32 KB limit by ~3 MB (both measured when this test was written).
TEST(InMemoryPageConfig, UpdatesDoNotKeepEveryVersionTheyWrote) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory and mallinfo2 does not see it";
#else
  auto engine = testing::memory_engine(256);
  engine->create_index("db", "c", make_document("n", 1));
  const std::string pad(2500, 'x');
  constexpr int kDocuments = 1000, kRounds = 20;
  for (int i = 0; i < kDocuments; ++i) {
    engine->insert_one("db", "c", make_document("_id", i, "n", 0, "pad", pad));
  }
  auto heap_in_use = [] {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  const size_t before = heap_in_use();
  for (int r = 1; r <= kRounds; ++r) {
    for (int i = 0; i < kDocuments; ++i) {
      std::string changed = pad;
      changed[size_t(r)] = 'y';
      engine->update_one("db", "c", make_document("_id", i),
                         make_document("$set", make_document("n", r, "pad", changed)));
    }
  }
  const size_t after = heap_in_use();
  const size_t written = size_t(kDocuments) * kRounds * pad.size();
  EXPECT_LT(after > before ? after - before : 0, written / 4)
      << "heap before " << before << ", after " << after << ", " << written << " bytes written";
#endif
}

// Pages reconciled while other threads read and write them: 4 threads each $inc one
// counter 1,500 times and $push to a capped array, spread over 60 documents of ~2 KB, with
// an index on the counter (every update moves its key) and a multikey index on the array.
// Pages pass the 32 KB limit every few updates, so reconciliation races the other threads'
// updates and reads. Nothing is lost: the counters add up, every document reads back whole,
// and validate finds every index entry.
TEST(InMemoryPageConfig, ConcurrentUpdatesAcrossReconciledPagesLoseNothing) {
  auto engine = testing::memory_engine(256);
  engine->create_index("db", "c", make_document("n", 1));
  engine->create_index("db", "c", make_document("recent.v", 1));
  constexpr int kDocuments = 60, kThreads = 4, kUpdates = 1500;
  const std::string pad(2000, 'x');
  for (int i = 0; i < kDocuments; ++i) {
    engine->insert_one("db", "c",
                       make_document("_id", i, "n", 0, "pad", pad, "recent", bson::make_array()));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int u = 0; u < kUpdates; ++u) {
        const int id = (u * 7 + t * 13) % kDocuments;
        engine->update_one(
            "db", "c", make_document("_id", id),
            make_document("$inc", make_document("n", 1), "$push",
                          make_document("recent", make_document("$each",
                                                                bson::make_array(make_document(
                                                                    "v", t * kUpdates + u)),
                                                                "$slice", -8))));
        if (u % 16 == 0) {
          auto read = engine->find_one("db", "c", make_document("_id", (id + 1) % kDocuments));
          ASSERT_TRUE(read.has_value());
          ASSERT_EQ(read->get("pad").as_string().size(), pad.size());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  int64_t total = 0;
  for (int i = 0; i < kDocuments; ++i) {
    auto doc = engine->find_one("db", "c", make_document("_id", i));
    ASSERT_TRUE(doc.has_value());
    int64_t n = 0;
    ASSERT_TRUE(doc->get("n").number_as_exact_int64(&n));
    total += n;
  }
  EXPECT_EQ(total, int64_t(kThreads) * kUpdates);
  ValidateResult v = engine->validate_collection("db", "c");
  EXPECT_TRUE(v.valid()) << (v.errors.empty() ? "" : v.errors.front());
  EXPECT_EQ(v.records, kDocuments);
}

}  // namespace
}  // namespace mongostore::engine
