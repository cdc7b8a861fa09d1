// Engine::aggregate with allowDiskUse: blocking stages spill into <dbpath>/_tmp (durable) or
// the in-memory engine's private directory, give the same results as in memory, leave no
// files behind, and a durable engine clears leftovers from a crash when it opens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::Document;

std::vector<Document> pipeline() {
  return {Document::from_json(R"({"$addFields": {"r": {"$mod": ["$_id", 13]}}})"),
          Document::from_json(R"({"$sort": {"r": 1, "pad": -1}})"),
          Document::from_json(R"({"$group": {"_id": "$r", "ids": {"$push": "$_id"},
                                             "n": {"$sum": 1}}})"),
          Document::from_json(R"({"$sort": {"_id": 1}})")};
}

std::string run(Engine& engine, const AggregateOptions& options) {
  auto cursor = engine.aggregate("db", "c", pipeline(), options);
  std::string out;
  while (!cursor->exhausted()) {
    for (const auto& d : cursor->next_batch()) out += d.to_json(bson::JsonMode::kCanonical);
  }
  return out;
}

void fill(Engine& engine) {
  std::vector<Document> docs;
  for (int i = 0; i < 5000; ++i) {
    docs.push_back(bson::make_document("_id", i, "pad",
                                       std::string(50 + i % 7, static_cast<char>('a' + i % 26))));
  }
  engine.insert_many("db", "c", docs);
}

void check_spills(Engine& engine) {
  AggregateOptions plain;
  const std::string expected = run(engine, plain);
  ASSERT_FALSE(expected.empty());
  SpillStats stats;
  AggregateOptions small;
  small.allow_disk_use = true;
  small.memory_limit_bytes = 32 * 1024;
  small.spill_stats = &stats;
  EXPECT_EQ(run(engine, small), expected);
  EXPECT_GE(stats.files, 2);  // the $sort and the $group
  EXPECT_GE(stats.runs, 4);
  small.allow_disk_use = false;
  try {
    run(engine, small);
    ADD_FAILURE() << "expected 292";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 292);
  }
}

TEST(AggregateSpill, DurableEngineSpillsIntoDbpathTmp) {
  testing::TempDir dir;
  const std::string tmp = dir.sub("db/_tmp");
  {
    auto engine = Engine::open(EngineOptions{dir.sub("db"), Durability::kDurable});
    fill(*engine);
    check_spills(*engine);
    ASSERT_TRUE(std::filesystem::is_directory(tmp));
    EXPECT_EQ(testing::entry_count(tmp), 0u);
    // While a spilled pipeline's cursor is open its files are there.
    AggregateOptions small;
    small.allow_disk_use = true;
    small.memory_limit_bytes = 32 * 1024;
    {
      auto cursor = engine->aggregate("db", "c", pipeline(), small);
      EXPECT_GE(testing::entry_count(tmp), 1u);
    }
    EXPECT_EQ(testing::entry_count(tmp), 0u);
  }
  // A crash leaves spill files behind: the next open removes them.
  std::ofstream(tmp + "/sort-leftover") << "stale";
  ASSERT_EQ(testing::entry_count(tmp), 1u);
  auto engine = Engine::open(EngineOptions{dir.sub("db"), Durability::kDurable});
  EXPECT_EQ(testing::entry_count(tmp), 0u);
  check_spills(*engine);
}

TEST(AggregateSpill, InMemoryEngineSpills) {
  auto engine = Engine::open(EngineOptions{"", Durability::kInMemory});
  fill(*engine);
  check_spills(*engine);
}

}  // namespace
}  // namespace mongostore::engine
