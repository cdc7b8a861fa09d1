// IndexKeyGenerator: the entries one document gives one index. Pins what the generator's
// single-encoding path must keep: distinct keys sorted by bytes (also descending and
// compound), the first of equal values as the entry's value, null / undefined stand-ins,
// sparse skips, and the walked paths CannotIndexParallelArrays names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/index_key_generator.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;

using mongostore::testing::J;

struct Generated {
  std::vector<GeneratedKey> keys;
  bool multikey = false;
};

Generated generate(std::string_view pattern, std::string_view doc,
                   std::string_view options = "{}") {
  IndexDescriptor d = IndexDescriptor::parse(J(pattern).view(), J(options).view());
  static std::vector<Document> docs;  // the keys' values view into the document
  docs.push_back(J(doc));
  Generated g;
  IndexKeyGenerator(d).generate(docs.back().view(), &g.keys, &g.multikey);
  return g;
}

std::vector<std::string> described(std::string_view pattern, const Generated& g) {
  IndexDescriptor d = IndexDescriptor::parse(J(pattern).view(), J("{}").view());
  std::vector<std::string> out;
  for (const GeneratedKey& k : g.keys) out.push_back(describe_key(d, k.values));
  return out;
}

void expect_sorted_distinct(const Generated& g) {
  for (size_t i = 1; i < g.keys.size(); ++i) EXPECT_LT(g.keys[i - 1].bytes, g.keys[i].bytes);
}

TEST(IndexKeyGenerator, DistinctSortedKeysWithTheFirstEqualValue) {
  Generated g = generate(R"({"t": 1})", R"({"t": [3, 1, 1.0, 2, 3, {"$numberLong": "1"}]})");
  EXPECT_TRUE(g.multikey);
  EXPECT_EQ(described(R"({"t": 1})", g),
            (std::vector<std::string>{"{ t: 1 }", "{ t: 2 }", "{ t: 3 }"}));
  expect_sorted_distinct(g);
  EXPECT_EQ(g.keys[0].values[0].type(), bson::BsonType::kInt32);  // 1 came before 1.0
  Generated down = generate(R"({"t": -1})", R"({"t": [1, 3, 2, 3.0]})");
  EXPECT_EQ(described(R"({"t": -1})", down),
            (std::vector<std::string>{"{ t: 3 }", "{ t: 2 }", "{ t: 1 }"}));
  expect_sorted_distinct(down);
}

TEST(IndexKeyGenerator, CompoundKeysAreTheProduct) {
  Generated g = generate(R"({"a": 1, "b": -1})", R"({"a": [2, 1, 2], "b": 5})");
  EXPECT_EQ(described(R"({"a": 1, "b": -1})", g),
            (std::vector<std::string>{"{ a: 1, b: 5 }", "{ a: 2, b: 5 }"}));
  expect_sorted_distinct(g);
  Generated shared = generate(R"({"o.x": 1, "o.y": 1})", R"({"o": [{"x": 1, "y": 2}, {"x": 3}]})");
  EXPECT_EQ(shared.keys.size(), 4u);  // {1, 3} x {2, null}
  expect_sorted_distinct(shared);
}

TEST(IndexKeyGenerator, StandInsAndSparse) {
  EXPECT_EQ(described(R"({"m": 1})", generate(R"({"m": 1})", R"({"x": 1})")),
            std::vector<std::string>{"{ m: null }"});
  EXPECT_EQ(described(R"({"m": 1})", generate(R"({"m": 1})", R"({"m": []})")),
            std::vector<std::string>{R"({ m: { "$undefined" : true } })"});
  EXPECT_EQ(described(R"({"m.k": 1})", generate(R"({"m.k": 1})", R"({"m": [1, {"k": 2}]})")),
            (std::vector<std::string>{"{ m.k: null }", "{ m.k: 2 }"}));
  EXPECT_TRUE(generate(R"({"m": 1})", R"({"x": 1})", R"({"sparse": true})").keys.empty());
}

TEST(IndexKeyGenerator, ParallelArraysNameTheWalkedPaths) {
  try {
    generate(R"({"x.y.v": 1, "z.w": 1})", R"({"x": {"y": [{"v": 1}]}, "z": [{"w": 1}]})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 171);
    EXPECT_STREQ(e.what(), "cannot index parallel arrays [z] [x.y]");
  }
  try {
    generate(R"({"a.b": 1, "c": 1})", R"({"a": {"b": [1]}, "c": [2]})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot index parallel arrays [c] [a.b]");
  }
}

}  // namespace
}  // namespace mongostore::engine
