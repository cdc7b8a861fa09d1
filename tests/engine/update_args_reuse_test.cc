// Update::Impl's arguments reuse a per-thread spare vector (src/engine/update/args_pool.cc):
// a recycled vector must carry nothing of the update that used it before, Updates may be
// destroyed on another thread than the one that compiled them, and updates of many operators
// (past the spare's bound) still work.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {
namespace {

std::string applied(std::string_view update, std::string_view doc) {
  bson::Document u = bson::Document::from_json(update);
  bson::Document d = bson::Document::from_json(doc);
  Update compiled = Update::compile(u.view());
  return compiled.apply(d.view()).document.to_json();
}

constexpr const char* kDoc = R"({"_id": 1, "t": [5, 4], "b": 7, "p": [1, 2, 3]})";

TEST(UpdateArgsReuse, RecycledArgumentsStartClean) {
  const std::string with_modifiers = applied(
      R"({"$push": {"t": {"$each": [3, 1], "$sort": 1, "$slice": 2}},
          "$bit": {"b": {"and": 1}}, "$pull": {"p": {"$gt": 1}}})",
      kDoc);
  EXPECT_EQ(with_modifiers,
            bson::Document::from_json(R"({"_id": 1, "t": [1, 3], "b": 1, "p": [1]})").to_json());
  const std::string plain_expected =
      bson::Document::from_json(R"({"_id": 1, "t": [5, 4, 9], "b": 2, "p": [2, 3]})").to_json();
  for (int round = 0; round < 20; ++round) {
    // Each compile takes the vector the previous update on this thread gave back: the plain
    // $push must not inherit the $sort/$slice, nor the $pull its condition.
    EXPECT_EQ(applied(R"({"$push": {"t": {"$each": [3, 1], "$sort": 1, "$slice": 2}},
                           "$bit": {"b": {"and": 1}}, "$pull": {"p": {"$gt": 1}}})",
                      kDoc),
              with_modifiers);
    EXPECT_EQ(applied(R"({"$push": {"t": 9}, "$set": {"b": 2}, "$pull": {"p": 1}})", kDoc),
              plain_expected);
  }
}

TEST(UpdateArgsReuse, UpdatesMayDieOnAnotherThread) {
  bson::Document u = bson::Document::from_json(R"({"$inc": {"n": 1}, "$push": {"t": 9}})");
  bson::Document d = bson::Document::from_json(R"({"_id": 1, "n": 1, "t": []})");
  const std::string expected =
      bson::Document::from_json(R"({"_id": 1, "n": 2, "t": [9]})").to_json();
  std::vector<Update> compiled;
  std::thread producer([&] {
    for (int i = 0; i < 200; ++i) compiled.push_back(Update::compile(u.view()));
  });
  producer.join();
  std::thread consumer([&] {
    for (const Update& update : compiled) {
      EXPECT_EQ(update.apply(d.view()).document.to_json(), expected);
    }
    compiled.clear();  // destroyed here, recycled into this thread's spare
    EXPECT_EQ(Update::compile(u.view()).apply(d.view()).document.to_json(), expected);
  });
  consumer.join();
  EXPECT_EQ(Update::compile(u.view()).apply(d.view()).document.to_json(), expected);
}

TEST(UpdateArgsReuse, ManyOperatorsPastTheSparesBound) {
  std::string update = R"({"$set": {)";
  std::string expected = R"({"_id": 1, )";
  for (int i = 0; i < 200; ++i) {
    std::string field = "f" + std::to_string(1000 + i);
    update += (i ? ", \"" : "\"") + field + "\": " + std::to_string(i);
    expected += (i ? ", \"" : "\"") + field + "\": " + std::to_string(i);
  }
  update += "}}";
  expected += "}";
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(applied(update, R"({"_id": 1})"), bson::Document::from_json(expected).to_json());
    EXPECT_EQ(applied(R"({"$set": {"a": 1}})", R"({"_id": 1})"),
              bson::Document::from_json(R"({"_id": 1, "a": 1})").to_json());
  }
}

}  // namespace
}  // namespace mongostore::engine
