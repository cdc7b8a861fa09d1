// The order of explain's indexBounds: mongod lists each field's intervals in the order its scan
// meets them. A descending index field, or a backward scan (a sort that reads the index in
// reverse), lists them from the top down with each interval's ends swapped: a backward scan
// of {a: 1} shows "[MaxKey, MinKey]"; a backward scan of a descending field reads it upwards
// again. mongod 5.0's explain of find({age: 21}).sort({username: -1}) on {age: 1, username: 1}
// is direction "backward", age ["[21.0, 21.0]"], username ["[MaxKey, MinKey]"].
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using mongostore::testing::J;

struct Scan {
  std::string direction;
  std::vector<std::string> a, b;  // the bounds of fields a and b
};

// The index scan of find(filter).sort(sort), its direction and the bounds of a and b.
Scan scan_of(client::Collection& coll, const char* filter, const char* sort) {
  client::FindOptions options;
  options.sort = J(sort);
  Document ex = coll.explain(J(filter).view(), options);
  bson::Value plan = ex.get_path("queryPlanner.winningPlan");
  while (plan.as_document().get("stage").as_string() != "IXSCAN") {
    plan = plan.as_document().get("inputStage");
    if (plan.is_missing()) {
      ADD_FAILURE() << "no IXSCAN in " << ex.to_json();
      return {};
    }
  }
  Scan out;
  bson::DocumentView ix = plan.as_document();
  out.direction = std::string(ix.get("direction").as_string());
  bson::DocumentView bounds = ix.get("indexBounds").as_document();
  for (const char* field : {"a", "b"}) {
    bson::Value f = bounds.get(field);
    if (f.is_missing()) continue;
    std::vector<std::string>& list = field[0] == 'a' ? out.a : out.b;
    for (const bson::Element& e : f.as_array()) list.emplace_back(e.value.as_string());
  }
  return out;
}

using Bounds = std::vector<std::string>;

// A fresh in-memory collection with one index and one document.
struct Indexed {
  Indexed(const char* index, const char* document)
      : client(client::connect("embedded:memory")), coll(client->database("db").collection("c")) {
    coll.create_index(J(index));
    coll.insert_one(J(document));
  }
  std::shared_ptr<client::Client> client;
  client::Collection coll;
};

TEST(ExplainBoundsOrder, AscendingIndexForwardAndBackward) {
  Indexed t(R"({"a": 1})", R"({"_id": 1, "a": 1})");
  client::Collection& coll = t.coll;

  Scan fwd = scan_of(coll, R"({"a": {"$in": [5, 1]}})", R"({"a": 1})");
  EXPECT_EQ(fwd.direction, "forward");
  EXPECT_EQ(fwd.a, (Bounds{"[1, 1]", "[5, 5]"}));

  Scan back = scan_of(coll, R"({"a": {"$in": [5, 1]}})", R"({"a": -1})");
  EXPECT_EQ(back.direction, "backward");
  EXPECT_EQ(back.a, (Bounds{"[5, 5]", "[1, 1]"}));

  EXPECT_EQ(scan_of(coll, R"({"a": {"$gt": 5}})", R"({"a": -1})").a, (Bounds{"[inf.0, 5)"}));
  EXPECT_EQ(scan_of(coll, R"({})", R"({"a": -1})").a, (Bounds{"[MaxKey, MinKey]"}));
  EXPECT_EQ(scan_of(coll, R"({})", R"({"a": 1})").a, (Bounds{"[MinKey, MaxKey]"}));
}

TEST(ExplainBoundsOrder, DescendingIndexField) {
  Indexed t(R"({"a": -1})", R"({"_id": 1, "a": 1})");
  client::Collection& coll = t.coll;

  Scan fwd = scan_of(coll, R"({"a": {"$in": [1, 5]}})", R"({"a": -1})");
  EXPECT_EQ(fwd.direction, "forward");
  EXPECT_EQ(fwd.a, (Bounds{"[5, 5]", "[1, 1]"}));

  // Read backwards, the descending field's scan goes upwards.
  Scan back = scan_of(coll, R"({"a": {"$in": [1, 5]}})", R"({"a": 1})");
  EXPECT_EQ(back.direction, "backward");
  EXPECT_EQ(back.a, (Bounds{"[1, 1]", "[5, 5]"}));
  EXPECT_EQ(scan_of(coll, R"({"a": {"$lt": 3}})", R"({"a": 1})").a, (Bounds{"[-inf.0, 3)"}));
  EXPECT_EQ(scan_of(coll, R"({"a": {"$lt": 3}})", R"({"a": -1})").a, (Bounds{"(3, -inf.0]"}));
}

TEST(ExplainBoundsOrder, CompoundIndexEachFieldInItsOwnDirection) {
  Indexed t(R"({"a": 1, "b": 1})", R"({"_id": 1, "a": 21, "b": "x"})");
  client::Collection& coll = t.coll;

  // mongod 5.0's own explain of this shape (see the file comment).
  Scan back = scan_of(coll, R"({"a": 21})", R"({"b": -1})");
  EXPECT_EQ(back.direction, "backward");
  EXPECT_EQ(back.a, (Bounds{"[21, 21]"}));
  EXPECT_EQ(back.b, (Bounds{"[MaxKey, MinKey]"}));

  Scan fwd = scan_of(coll, R"({"a": {"$in": [2, 1]}, "b": {"$gte": "m"}})", R"({"a": 1, "b": 1})");
  EXPECT_EQ(fwd.direction, "forward");
  EXPECT_EQ(fwd.a, (Bounds{"[1, 1]", "[2, 2]"}));
  EXPECT_EQ(fwd.b, (Bounds{R"(["m", {}))"}));

  Scan rev =
      scan_of(coll, R"({"a": {"$in": [2, 1]}, "b": {"$gte": "m"}})", R"({"a": -1, "b": -1})");
  EXPECT_EQ(rev.direction, "backward");
  EXPECT_EQ(rev.a, (Bounds{"[2, 2]", "[1, 1]"}));
  EXPECT_EQ(rev.b, (Bounds{R"(({}, "m"])"}));
}

TEST(ExplainBoundsOrder, MixedDirectionsCompoundIndex) {
  Indexed t(R"({"a": 1, "b": -1})", R"({"_id": 1, "a": 1, "b": 1})");
  client::Collection& coll = t.coll;

  Scan fwd = scan_of(coll, R"({"a": 1, "b": {"$in": [1, 5]}})", R"({"a": 1, "b": -1})");
  EXPECT_EQ(fwd.direction, "forward");
  EXPECT_EQ(fwd.a, (Bounds{"[1, 1]"}));
  EXPECT_EQ(fwd.b, (Bounds{"[5, 5]", "[1, 1]"}));

  Scan back = scan_of(coll, R"({"a": 1, "b": {"$in": [1, 5]}})", R"({"a": -1, "b": 1})");
  EXPECT_EQ(back.direction, "backward");
  EXPECT_EQ(back.b, (Bounds{"[1, 1]", "[5, 5]"}));
}

}  // namespace
}  // namespace mongostore::engine
