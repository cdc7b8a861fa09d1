// The index operations through the Client seam (Collection::create_index, list_indexes,
// drop_index, explain), and index builds racing with writers.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

std::shared_ptr<Client> memory_client() {
  engine::EngineOptions o;
  o.durability = engine::Durability::kInMemory;
  return open_embedded(o);
}

TEST(ClientIndexes, CreateListExplainDrop) {
  auto coll = memory_client()->database("shop").collection("orders");
  for (int i = 0; i < 100; ++i) coll.insert_one(make_document("_id", i, "customer", i % 10));
  EXPECT_EQ(coll.create_index(make_document("customer", 1)), "customer_1");
  EXPECT_EQ(coll.create_index(make_document("customer", 1, "_id", -1),
                              make_document("name", "by_customer", "unique", true)),
            "by_customer");
  auto indexes = coll.list_indexes();
  ASSERT_EQ(indexes.size(), 3u);
  EXPECT_EQ(indexes[0].get("name").as_string(), "_id_");
  Document ex = coll.explain(make_document("customer", 3));
  EXPECT_EQ(ex.get_path("queryPlanner.winningPlan.inputStage.stage").as_string(), "IXSCAN");
  EXPECT_EQ(ex.get_path("executionStats.nReturned").as_int64(), 10);
  EXPECT_EQ(ex.get_path("executionStats.totalDocsExamined").as_int64(), 10);
  coll.drop_index("customer_1");
  coll.drop_index(make_document("customer", 1, "_id", -1).view());
  EXPECT_EQ(coll.list_indexes().size(), 1u);
  EXPECT_EQ(coll.explain(make_document("customer", 3))
                .get_path("queryPlanner.winningPlan.stage")
                .as_string(),
            "COLLSCAN");
  try {
    coll.drop_index("customer_1");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 27);
  }
}

// Writers running during an index build: every document ends up indexed exactly once (the
// build and the writes are serialized by the collection's write gate).
TEST(ClientIndexes, BuildWhileWriting) {
  auto client = memory_client();
  auto coll = client->database("db").collection("c");
  for (int i = 0; i < 20000; ++i) coll.insert_one(make_document("_id", i, "k", i % 100));
  std::atomic<bool> stop{false};
  std::atomic<int> next{20000};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&] {
      while (!stop.load()) {
        int id = next.fetch_add(1);
        coll.insert_one(make_document("_id", id, "k", id % 100));
        coll.update_one(make_document("_id", id - 20000),
                        make_document("$set", make_document("k", 1000 + id % 7)));
      }
    });
  }
  coll.create_index(make_document("k", 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  for (auto& w : writers) w.join();
  for (const Document& filter :
       {make_document("k", 5), make_document("k", make_document("$gte", 1000)),
        make_document("k", make_document("$lt", 50))}) {
    Document ex = coll.explain(filter);
    ASSERT_EQ(ex.get_path("queryPlanner.winningPlan.inputStage.indexName").as_string(), "k_1");
    int64_t through_index = ex.get_path("executionStats.nReturned").as_int64();
    // The same count from a collection scan.
    FindOptions natural;
    natural.hint.keys = make_document("$natural", 1);
    EXPECT_EQ(coll.explain(filter, natural).get_path("queryPlanner.winningPlan.stage").as_string(),
              "COLLSCAN");
    EXPECT_EQ(through_index, static_cast<int64_t>(coll.find(filter, natural)->to_vector().size()))
        << filter.to_json();
    // No stale entries: keys examined equal the documents found.
    EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), through_index);
  }
}

}  // namespace
}  // namespace mongostore::client
