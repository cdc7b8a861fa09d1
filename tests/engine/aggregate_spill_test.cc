// Engine::aggregate with allowDiskUse: blocking stages spill into <dbpath>/_tmp (durable) or
// the in-memory engine's private directory, give the same results as in memory, leave no
// files behind, and a durable engine clears leftovers from a crash when it opens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/engine.h"
#include "support/error_code.h"
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

// Every document a cursor gives, one canonical JSON line each.
std::string lines_of(Cursor& cursor) {
  std::string out;
  while (!cursor.exhausted()) {
    for (const auto& d : cursor.next_batch()) out += d.to_json(bson::JsonMode::kCanonical) + "\n";
  }
  return out;
}

std::string run(Engine& engine, const std::vector<Document>& stages,
                const AggregateOptions& options) {
  return lines_of(*engine.aggregate("db", "c", stages, options));
}

std::string run(Engine& engine, const AggregateOptions& options) {
  return run(engine, pipeline(), options);
}

void fill(Engine& engine) {
  std::vector<Document> docs;
  for (int i = 0; i < 5000; ++i) {
    docs.push_back(bson::make_document("_id", i, "pad",
                                       std::string(50 + i % 7, static_cast<char>('a' + i % 26))));
  }
  engine.insert_many("db", "c", docs);
}

// allowDiskUse with a 32 KiB limit, so the blocking stages spill; what they wrote goes to
// `stats`.
AggregateOptions spilling(SpillStats* stats) {
  AggregateOptions options;
  options.allow_disk_use = true;
  options.memory_limit_bytes = 32 * 1024;
  options.spill_stats = stats;
  return options;
}

void check_spills(Engine& engine) {
  AggregateOptions plain;
  const std::string expected = run(engine, plain);
  ASSERT_FALSE(expected.empty());
  SpillStats stats;
  AggregateOptions small = spilling(&stats);
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
    AggregateOptions small = spilling(nullptr);
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

// A leading $sort (after a $match) is the find's unless allowDiskUse is set and no index
// gives the order: then the pipeline's $sort sorts, and spills.
TEST(AggregateSpill, LeadingSortSpillsUnlessAnIndexGivesTheOrder) {
  auto engine = Engine::open(EngineOptions{"", Durability::kInMemory});
  fill(*engine);
  for (const std::vector<Document>& stages :
       {std::vector<Document>{Document::from_json(R"({"$sort": {"pad": 1, "_id": -1}})")},
        std::vector<Document>{Document::from_json(R"({"$match": {"_id": {"$gte": 100}}})"),
                              Document::from_json(R"({"$sort": {"pad": 1, "_id": -1}})"),
                              Document::from_json(R"({"$project": {"pad": 1}})")}}) {
    SCOPED_TRACE(stages.size());
    const std::string expected = run(*engine, stages, AggregateOptions());
    ASSERT_FALSE(expected.empty());
    SpillStats stats;
    AggregateOptions small = spilling(&stats);
    EXPECT_EQ(run(*engine, stages, small), expected);
    EXPECT_GE(stats.runs, 3);
    EXPECT_LT(stats.peak_memory_bytes, small.memory_limit_bytes + 1024);
  }
  // With a $limit the find's top-k sort holds only the limit: it stays in the find.
  SpillStats limited_stats;
  AggregateOptions limited = spilling(&limited_stats);
  std::vector<Document> top = {Document::from_json(R"({"$sort": {"pad": 1, "_id": -1}})"),
                               Document::from_json(R"({"$limit": 5})")};
  EXPECT_EQ(run(*engine, top, limited), run(*engine, top, AggregateOptions()));
  EXPECT_EQ(limited_stats.runs, 0);
  // An index that gives the order: the sort streams from it, nothing spills.
  engine->create_index("db", "c", Document::from_json(R"({"pad": 1, "_id": -1})"));
  std::vector<Document> sorted = {Document::from_json(R"({"$sort": {"pad": 1, "_id": -1}})")};
  SpillStats indexed_stats;
  AggregateOptions indexed = limited;
  indexed.spill_stats = &indexed_stats;
  EXPECT_EQ(run(*engine, sorted, indexed), run(*engine, sorted, AggregateOptions()));
  EXPECT_EQ(indexed_stats.runs, 0);
  EXPECT_TRUE(
      engine->index_provides_sort("db", "c", Document(), sorted[0].get("$sort").as_document()));
  EXPECT_FALSE(engine->index_provides_sort("db", "c", Document(),
                                           Document::from_json(R"({"pad": -1, "_id": -1})")));
  EXPECT_TRUE(engine->index_provides_sort("db", "missing", Document(), Document()));
}

std::string find_all(Engine& engine, bson::DocumentView filter, const FindOptions& options) {
  return lines_of(*engine.find("db", "c", filter, options));
}

// A find's blocking sort with allowDiskUse and no limit is an external sort: past the memory
// limit it spills into <dbpath>/_tmp, and gives the in-memory sort's answer (skip and
// projection included); without allowDiskUse the same sort fails 292.
TEST(AggregateSpill, FindSortSpillsWithAllowDiskUse) {
  testing::TempDir dir;
  const std::string tmp = dir.sub("db/_tmp");
  auto engine = Engine::open(EngineOptions{dir.sub("db"), Durability::kDurable});
  fill(*engine);
  const Document filter = Document::from_json(R"({"_id": {"$gte": 10}})");
  FindOptions plain;
  plain.sort = Document::from_json(R"({"pad": -1, "_id": 1})");
  plain.skip = 7;
  plain.projection = Document::from_json(R"({"pad": 1})");
  plain.batch_size = 50;
  const std::string expected = find_all(*engine, filter, plain);
  ASSERT_FALSE(expected.empty());
  FindOptions small = plain;
  small.memory_limit_bytes = 32 * 1024;
  EXPECT_EQ(testing::code_of([&] { find_all(*engine, filter, small); }), 292);
  small.allow_disk_use = true;
  {
    auto cursor = engine->find("db", "c", filter, small);
    auto first = cursor->next_batch();
    ASSERT_EQ(first.size(), 50u);
    EXPECT_GE(testing::entry_count(tmp), 1u);  // the sorted runs, while the cursor is open
  }
  EXPECT_EQ(testing::entry_count(tmp), 0u);
  EXPECT_EQ(find_all(*engine, filter, small), expected);
  EXPECT_EQ(testing::entry_count(tmp), 0u);
}

// $out writes its results as they come: a result far larger than the memory limit needs no
// allowDiskUse (before, $out held the whole result and failed with 292).
TEST(AggregateSpill, OutStreamsIntoItsTarget) {
  auto engine = Engine::open(EngineOptions{"", Durability::kInMemory});
  fill(*engine);
  engine->create_index("db", "copy", Document::from_json(R"({"pad": 1})"));
  AggregateOptions small = spilling(nullptr);
  small.allow_disk_use = false;  // $out needs none
  auto cursor =
      engine->aggregate("db", "c",
                        {Document::from_json(R"({"$project": {"_id": 0, "n": "$_id", "pad": 1}})"),
                         Document::from_json(R"({"$out": "copy"})")},
                        small);
  EXPECT_TRUE(cursor->exhausted());
  EXPECT_EQ(engine->count_documents("db", "copy", Document()), 5000);
  EXPECT_EQ(engine->count_documents("db", "copy", Document::from_json(R"({"n": 4999})")), 1);
  EXPECT_EQ(engine->list_indexes("db", "copy").size(), 2u);  // the target's index kept
}

}  // namespace
}  // namespace mongostore::engine
