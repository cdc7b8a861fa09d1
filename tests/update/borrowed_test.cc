// Update::compile_borrowed: the same update as compile, without the copy of the update
// document (the caller keeps it alive). Differential over the update forms: operators (cold
// and from the recent-shape and shape caches), a replacement, arrayFilters, and errors.
#include <string>
#include <vector>

#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

std::string outcome(std::string_view doc, std::string_view update, bool borrowed,
                    const std::vector<std::string>& filters = {}) {
  std::vector<bson::Document> owned;
  for (const auto& f : filters) owned.push_back(J(f));
  std::vector<bson::DocumentView> views;
  for (const auto& d : owned) views.push_back(d.view());
  bson::Document u = J(update);
  bson::Document d = J(doc);
  try {
    Update compiled =
        borrowed ? Update::compile_borrowed(u.view(), views) : Update::compile(u.view(), views);
    return canon(compiled.apply(d.view()).document);
  } catch (const Error& e) {
    return "error " + std::to_string(e.code()) + ": " + e.what();
  }
}

void expect_same(std::string_view doc, std::string_view update,
                 const std::vector<std::string>& filters = {}) {
  // Twice each: the second compile of a shape comes from the caches.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(outcome(doc, update, true, filters), outcome(doc, update, false, filters))
        << update << " round " << round;
  }
}

TEST(UpdateCompileBorrowed, SameAsACopyingCompile) {
  const char* doc = R"({"_id": 1, "a": 5, "t": [1, 2], "s": ["x"], "o": {"p": 1}})";
  expect_same(doc, R"({"$set": {"a": "v", "o.q": [1, {"r": 2}]}, "$inc": {"n": 2}})");
  expect_same(doc, R"({"$push": {"t": {"$each": [5, 0], "$slice": -3, "$sort": 1}}})");
  expect_same(doc, R"({"$addToSet": {"s": {"$each": ["x", "y"]}}, "$unset": {"a": ""}})");
  expect_same(doc, R"({"$rename": {"a": "b"}, "$min": {"o.p": 0}})");
  expect_same(doc, R"({"z": 1, "w": {"k": "v"}})");  // a replacement
  expect_same(R"({"_id": 1, "t": [{"v": 1}, {"v": 5}]})", R"({"$set": {"t.$[e].v": 0}})",
              {R"({"e.v": {"$gt": 2}})"});
  expect_same(doc, R"({"$inc": {"a": "x"}})");
  expect_same(doc, R"({"$set": {"a": 1, "a.b": 2}})");
  EXPECT_EQ(outcome(doc, R"({"$set": {"a": "v"}})", true),
            canon(R"({"_id": 1, "a": "v", "t": [1, 2], "s": ["x"], "o": {"p": 1}})"));
}

}  // namespace
}  // namespace mongostore::engine::update_test
