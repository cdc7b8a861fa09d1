// Collection validators on the Engine itself: options it does not know are refused, a rename
// keeps the validator, a validator nested deep is refused or compiled (never a crash), and
// collMod racing writers: each write is checked against one version of the options, whole.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

std::shared_ptr<Engine> memory_engine() {
  return testing::memory_engine(/*cache_size_mb=*/64);
}

int32_t code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

Document a_required() {
  return make_document("validator", make_document("a", make_document("$exists", true)));
}

TEST(CollectionValidatorEngine, UnknownOptionsAreRefused) {
  auto e = memory_engine();
  EXPECT_EQ(code_of([&] { e->create_collection("db", "c", make_document("capped", true)); }),
            40415);
  EXPECT_FALSE(e->collection_exists("db", "c"));
  e->create_collection("db", "c", a_required());
  EXPECT_EQ(code_of([&] { e->modify_collection("db", "c", make_document("index", 1)); }), 40415);
  EXPECT_EQ(code_of([&] { e->collection_options("db", "missing"); }), 26);
}

TEST(CollectionValidatorEngine, RenameKeepsTheValidator) {
  auto e = memory_engine();
  e->create_collection("db", "c", a_required());
  e->rename_collection("db", "c", "db", "d", false);
  EXPECT_EQ(e->collection_options("db", "d"), a_required());
  EXPECT_EQ(code_of([&] { e->insert_one("db", "d", make_document("_id", 1)); }), 121);
  // A collection created afresh under the old name has no validator.
  e->insert_one("db", "c", make_document("_id", 1));
  EXPECT_TRUE(e->collection_options("db", "c").empty());
}

TEST(CollectionValidatorEngine, DeeplyNestedValidatorNeverCrashes) {
  auto e = memory_engine();
  // {$and: [{$and: [ ... {a: 1} ... ]}]}, 90 levels (180 BSON levels: within BSON's limit).
  Document inner = make_document("a", 1);
  for (int i = 0; i < 90; ++i) inner = make_document("$and", make_array(inner));
  int32_t code =
      code_of([&] { e->create_collection("db", "deep", make_document("validator", inner)); });
  if (code == 0) {
    EXPECT_EQ(code_of([&] { e->insert_one("db", "deep", make_document("_id", 1)); }), 121);
    e->insert_one("db", "deep", make_document("_id", 2, "a", 1));
  } else {
    EXPECT_FALSE(e->collection_exists("db", "deep"));
  }
}

TEST(CollectionValidatorEngine, CollModRacingWritersIsWholeForEachWrite) {
  auto e = memory_engine();
  e->create_collection("db", "c", a_required());
  std::atomic<int> finished{0};
  std::atomic<int> unexpected{0}, rejected{0}, valid_written{0}, invalid_written{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 1500; ++i) {
        int32_t id = t * 100000 + i;
        // Every other document misses `a`: rejected while the action is `error`, written
        // (and logged once) while it is `warn`. Valid ones are always written.
        bool valid = i % 2 == 0;
        Document d = valid ? make_document("_id", id, "a", 1) : make_document("_id", id);
        int32_t code = code_of([&] { e->insert_one("db", "c", d); });
        if (code == 0) {
          ++(valid ? valid_written : invalid_written);
        } else if (code == 121 && !valid) {
          ++rejected;
        } else {
          ++unexpected;
        }
      }
      ++finished;
    });
  }
  // Toggles the action while the writers run (bounded), ending on `error`.
  for (int i = 0; i < 100000 && finished.load() < 2; ++i) {
    e->modify_collection("db", "c", make_document("validationAction", i % 2 ? "error" : "warn"));
  }
  e->modify_collection("db", "c", make_document("validationAction", "error"));
  for (auto& w : writers) w.join();
  // Both actions were in force at some point (the race really raced).
  EXPECT_GT(rejected.load() + invalid_written.load(), 0);
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(e->count_documents("db", "c", make_document("a", 1)), valid_written.load());
  EXPECT_EQ(e->count_documents("db", "c", make_document("a", make_document("$exists", false))),
            invalid_written.load());
  EXPECT_EQ(e->collection_options("db", "c"),
            make_document("validator", make_document("a", make_document("$exists", true)),
                          "validationAction", "error"));
  // The last collMod left `error` in force.
  EXPECT_EQ(code_of([&] { e->insert_one("db", "c", make_document("_id", -1)); }), 121);
}

}  // namespace
}  // namespace mongostore::engine
