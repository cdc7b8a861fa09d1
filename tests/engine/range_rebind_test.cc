// A kept plan rebound to another number (engine/query/range_rebind.h rebind_range_plan, used by
// PlanCache for prepared finds such as the due-timer sweep's {next_fire_at: {$lte: now}}):
// for every operator, index direction and shape, the rebound plan reads exactly the ranges
// plan_query makes for the new filter; filters of another shape are not rebound; and a
// prepared find run with many values returns what the collection scan returns, also when the
// index turns multikey, a partial index comes, or the values change type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/query/range_rebind.h"
#include "engine/query_planner.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/client/prepared_find.h"
#include "support/index_plan.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

using mongostore::testing::expect_same_plan;
using mongostore::testing::J;
using mongostore::testing::sorted_json;

template <class T>
Document range(std::string_view op, T v, std::string_view path = "t") {
  return make_document(path, make_document(op, v));
}

TEST(RangeRebind, GivesThePlanPlanningGivesForEveryOperatorAndIndex) {
  const std::vector<std::string> patterns = {R"({"t": 1})", R"({"t": -1})", R"({"t": 1, "u": 1})",
                                             R"({"t": -1, "u": 1})"};
  const std::vector<const char*> ops = {"$gt", "$gte", "$lt", "$lte"};
  const std::vector<std::string> sorts = {"{}", R"({"t": 1})", R"({"t": -1})"};
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> real(-1e12, 1e12);
  // {t: {<op>: n}} with n of each numeric type, zero of both signs and the extremes.
  auto filter = [&](const char* op, int i) -> Document {
    switch (i % 5) {
      case 0:
        return range(op, real(rng));
      case 1:
        return range(op, static_cast<int32_t>(rng() % 2000) - 1000);
      case 2:
        return range(op, static_cast<int64_t>(rng()) << 20);
      case 3:
        return range(op, i % 2 ? -0.0 : 0.0);
      default:
        return range(op, std::numeric_limits<double>::max() * (i % 2 ? -1 : 1));
    }
  };
  int rebound = 0;
  for (const std::string& pattern : patterns) {
    IndexDescriptor index = IndexDescriptor::parse(J(pattern).view(), J("{}").view());
    for (bool multikey : {false, true}) {
      std::vector<IndexCandidate> candidates{IndexCandidate{&index, multikey}};
      for (const std::string& sort : sorts) {
        for (const char* op : ops) {
          for (int i = 0; i < 20; ++i) {
            Document was = filter(op, i), now = filter(op, i + 1 + static_cast<int>(rng() % 4));
            std::optional<IndexPlan> planned = plan_query(was.view(), J(sort).view(), candidates);
            std::optional<IndexPlan> expected = plan_query(now.view(), J(sort).view(), candidates);
            ASSERT_TRUE(planned && expected);
            std::optional<IndexPlan> got =
                rebind_range_plan(*planned, index, was.view(), now.view());
            ASSERT_TRUE(got) << pattern << " " << was.to_json() << " -> " << now.to_json();
            SCOPED_TRACE(pattern + " " + was.to_json() + " -> " + now.to_json());
            expect_same_plan(*got, *expected);
            ++rebound;
          }
        }
      }
    }
  }
  EXPECT_EQ(rebound, 4 * 2 * 3 * 4 * 20);
}

TEST(RangeRebind, OnlyOneRangeOfOneFieldOnAFiniteNumberIsRebound) {
  IndexDescriptor index = IndexDescriptor::parse(J(R"({"t": 1})").view(), J("{}").view());
  std::vector<IndexCandidate> candidates{IndexCandidate{&index, false}};
  const Document was = J(R"({"t": {"$lte": 5}})");
  std::optional<IndexPlan> planned = plan_query(was.view(), J("{}").view(), candidates);
  ASSERT_TRUE(planned);
  EXPECT_TRUE(rebindable_range(was.view()));
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const std::vector<Document> others = {
      range("$lte", nan),
      range("$lte", inf),
      range("$lte", -inf),
      range("$lte", "s"),
      range("$lte", bson::Null{}),
      range("$gte", 7),       // another operator
      range("$lte", 7, "u"),  // another field
      J(R"({"t": {"$lte": 7, "$gte": 1}})"),
      J(R"({"t": {"$lte": 7}, "u": 1})"),
      J(R"({"t": 7})"),
      J(R"({"t": {"$eq": 7}})"),
      J(R"({"$or": [{"t": {"$lte": 7}}, {"t": null}]})"),
      J(R"({"t.0": {"$lte": 7}})"),
      J(R"({})"),
  };
  for (const Document& other : others) {
    EXPECT_FALSE(rebind_range_plan(*planned, index, was.view(), other.view())) << other.to_json();
  }
  // A plan that is not that range (the index read whole for a hint) is not rebound.
  IndexDescriptor other_index = IndexDescriptor::parse(J(R"({"u": 1})").view(), J("{}").view());
  std::vector<IndexCandidate> hinted{IndexCandidate{&other_index, false}};
  std::optional<IndexPlan> whole = plan_query(was.view(), J("{}").view(), hinted, /*forced=*/true);
  ASSERT_TRUE(whole);
  EXPECT_FALSE(
      rebind_range_plan(*whole, other_index, was.view(), J(R"({"t": {"$lte": 7}})").view()));
}

// Through the client: a prepared find with a range filter, run with a sequence of values on
// the embedded engine (where the plan is kept and rebound), returns what the collection scan
// returns, as the data, the index's multikey state and the index list change.
TEST(RangeRebind, PreparedRunsAgreeWithTheCollectionScan) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"t": 1})"));
  coll.create_index(J(R"({"u": -1})"));
  std::mt19937 rng(7);
  auto insert = [&](int id) {
    switch (id % 7) {
      case 0:
        coll.insert_one(make_document("_id", id, "t", bson::Null{}));
        break;
      case 1:
        coll.insert_one(make_document("_id", id, "u", id));
        break;
      case 2:
        coll.insert_one(make_document("_id", id, "t", std::to_string(id)));
        break;
      default:
        coll.insert_one(make_document("_id", id, "t", static_cast<double>(rng() % 100) - 50.5, "u",
                                      static_cast<int32_t>(rng() % 100)));
    }
  };
  for (int id = 0; id < 200; ++id) insert(id);
  int next_id = 1000;
  client::FindOptions options;
  options.projection = J(R"({"t": 1})");
  client::FindOptions scan = options;
  scan.hint.keys = J(R"({"$natural": 1})");
  scan.sort = J(R"({"_id": 1})");
  const std::vector<const char*> ops = {"$gt", "$gte", "$lt", "$lte"};
  for (const char* op : ops) {
    client::PreparedFind prepared = coll.prepare_find(range(op, 0), options);
    for (const char* path : {"t", "u"}) {
      client::PreparedFind other = coll.prepare_find(range(op, 0, path), options);
      for (int round = 0; round < 40; ++round) {
        Document filter = round % 3 == 0
                              ? range(op, static_cast<int32_t>(rng() % 120) - 60, path)
                              : range(op, static_cast<double>(rng() % 1200) / 10 - 60, path);
        client::PreparedFind& run = std::string(path) == "t" ? prepared : other;
        SCOPED_TRACE(filter.to_json());
        EXPECT_EQ(sorted_json(run.find(filter.view())->to_vector()),
                  sorted_json(coll.find(filter.view(), scan)->to_vector()));
        if (round == 10) {
          coll.insert_one(make_document("_id", next_id++, "t", make_array(-70, 70), "u", 5));
          coll.insert_one(make_document("_id", next_id++, "t", 1, "u", make_array(-70, 70)));
        }
        if (round == 20) {
          coll.create_index(J(R"({"t": 1, "u": 1})"),
                            J(R"({"partialFilterExpression": {"u": {"$gt": 0}}})"));
        }
        if (round == 30) insert(next_id++);
      }
      coll.drop_index(J(R"({"t": 1, "u": 1})"));
    }
  }
}

// A run rebound to another number compiles its filter only when the read needs a matcher
// (FindCursor::defer_matcher): a collection scan (no index on the field, or the index dropped
// between runs) must filter by the run's own number, not the prepared one's.
TEST(RangeRebind, RunsThatNeedAMatcherFilterByTheirOwnNumber) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  for (int id = 0; id < 60; ++id) coll.insert_one(make_document("_id", id, "w", id - 30));
  client::FindOptions options;
  options.projection = J(R"({"w": 1})");
  client::FindOptions scan = options;
  scan.hint.keys = J(R"({"$natural": 1})");
  client::PreparedFind prepared = coll.prepare_find(range("$lte", 0, "w"), options);
  auto check = [&](const std::string& when) {
    for (int n : {-40, -10, 0, 7, 29, 100}) {
      Document filter = range("$lte", n, "w");
      SCOPED_TRACE(when + " " + filter.to_json());
      std::vector<std::string> got = sorted_json(prepared.find(filter.view())->to_vector());
      EXPECT_EQ(got, sorted_json(coll.find(filter.view(), scan)->to_vector()));
      EXPECT_EQ(got.size(), static_cast<size_t>(std::clamp(n + 31, 0, 60)));
    }
  };
  check("no index");
  coll.create_index(J(R"({"w": 1})"));
  check("index");
  coll.drop_index(J(R"({"w": 1})"));
  check("index dropped");
  // The prepared find run without a filter after rebound runs reads its own.
  coll.create_index(J(R"({"w": 1})"));
  check("index again");
  EXPECT_EQ(sorted_json(prepared.find()->to_vector()),
            sorted_json(coll.find(range("$lte", 0, "w").view(), scan)->to_vector()));
}

}  // namespace
}  // namespace mongostore::engine
