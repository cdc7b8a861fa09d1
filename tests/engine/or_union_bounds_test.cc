// One field's $or read by one index scan (issue 29): an $or whose every branch is conditions
// on the same field, such as the due-timer sweep's {$or: [{t: null}, {t: {$lte: now}}]}, is
// bounded by the union of its branches' intervals, as mongod merges such an $or into one
// IXSCAN. Explain shows that one IXSCAN with every interval; on seeded random data (mixed
// types, null and missing, multikey arrays, dotted paths) and random one-field $ors the
// results are the collection scan's; the due-timer shape's kept plan rebound to another `now`
// is the plan planning gives; and its bounds are exact (no re-check) only where the null key
// means null or missing.
#include <gtest/gtest.h>

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
using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

using mongostore::testing::expect_same_plan;
using mongostore::testing::J;
using mongostore::testing::sorted_json;

// {$or: [{path: null}, {path: {op: n}}]} (the range first when `range_first`).
template <class T>
Document due_shape(std::string_view op, T n, bool range_first = false,
                   std::string_view path = "t") {
  Document null = make_document(path, bson::Null{});
  Document range = make_document(path, make_document(op, n));
  return range_first ? make_document("$or", make_array(range, null))
                     : make_document("$or", make_array(null, range));
}

client::FindOptions natural() {
  client::FindOptions o;
  o.hint.keys = J(R"({"$natural": 1})");
  return o;
}

std::string text(const bson::Value& v) {
  return v.is_string() ? std::string(v.as_string()) : v.to_json();
}

TEST(OrUnionBounds, ExplainShowsOneIxscanWithBothIntervals) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  for (int i = 0; i < 40; ++i) {
    DocumentBuilder d;
    d.append("_id", i);
    if (i % 4 == 1) d.append("t", bson::Null{});
    if (i % 4 == 2) d.append("t", i);
    if (i % 4 == 3) d.append("t", "s" + std::to_string(i));
    coll.insert_one(d.finish().view());
  }
  coll.create_index(J(R"({"t": 1})"));
  const Document filter = due_shape("$lte", 13.5);
  Document ex = coll.explain(filter.view(), client::FindOptions{});
  EXPECT_EQ(text(ex.get_path("queryPlanner.winningPlan.stage")), "FETCH");
  bson::Value scan = ex.get_path("queryPlanner.winningPlan.inputStage");
  ASSERT_TRUE(scan.is_document()) << ex.to_json();
  EXPECT_EQ(text(scan.as_document().get("stage")), "IXSCAN") << ex.to_json();
  EXPECT_EQ(text(scan.as_document().get("indexName")), "t_1");
  bson::Value bounds = scan.as_document().get_path("indexBounds.t");
  ASSERT_TRUE(bounds.is_array()) << ex.to_json();
  EXPECT_EQ(bounds.as_array().count(), 2u);
  EXPECT_EQ(text(bounds.as_array().get("0")), "[null, null]");
  EXPECT_EQ(text(bounds.as_array().get("1")), "[-inf.0, 13.5]");
  // Null or missing: 20 (i % 4 == 0 or 1); t <= 13.5: 2, 6, 10. Every key read is returned.
  EXPECT_EQ(ex.get_path("executionStats.nReturned").as_int64(), 23);
  EXPECT_EQ(ex.get_path("executionStats.totalDocsExamined").as_int64(), 23);
  EXPECT_EQ(sorted_json(coll.find(filter.view())->to_vector()),
            sorted_json(coll.find(filter.view(), natural())->to_vector()));
  // Branches in another order, and overlapping ones, give the same sorted, joined intervals.
  Document joined = coll.explain(
      J(R"({"$or": [{"t": {"$gt": 10}}, {"t": {"$in": [3, 11, null]}}, {"t": {"$lt": 5}}]})")
          .view(),
      client::FindOptions{});
  bson::Value b = joined.get_path("queryPlanner.winningPlan.inputStage.indexBounds.t");
  ASSERT_TRUE(b.is_array()) << joined.to_json();
  EXPECT_EQ(b.as_array().to_json_array(), R"x(["[null, null]", "[-inf.0, 5)", "(10, inf.0]"])x");
}

// Random one-field $ors over mixed data, on an ascending, a descending and a compound index and
// a dotted path, first while no array was written (the null bounds exact), then multikey:
// every find, prepared find and count returns what the collection scan returns.
TEST(OrUnionBounds, RandomOneFieldOrsAgreeWithTheCollectionScan) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"t": 1})"));
  coll.create_index(J(R"({"d": -1})"));
  coll.create_index(J(R"({"k": 1, "u": 1})"));
  coll.create_index(J(R"({"a.b": 1})"));
  std::mt19937 rng(29);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // A scalar of some type, or null; never an array.
  auto scalar = [&](DocumentBuilder& b, std::string_view field) {
    switch (pick(9)) {
      case 0:
        b.append(field, bson::Null{});
        return;
      case 1:
        b.append(field, static_cast<double>(pick(200)) / 10 - 10);
        return;
      case 2:
        b.append(field, static_cast<int64_t>(pick(20)) - 10);
        return;
      case 3:
        b.append(field, "s" + std::to_string(pick(10)));
        return;
      case 4:
        b.append(field, pick(2) == 0);
        return;
      case 5:
        b.append(field, std::nan(""));
        return;
      case 6:
        b.append(field, pick(2) == 0 ? std::numeric_limits<double>::infinity()
                                     : -std::numeric_limits<double>::infinity());
        return;
      default:
        b.append(field, pick(20) - 10);
    }
  };
  int next_id = 0;
  auto insert = [&](bool arrays) {
    DocumentBuilder d;
    d.append("_id", next_id++);
    for (const char* field : {"t", "d", "k"}) {
      int shape = pick(arrays ? 6 : 5);
      if (shape == 0) continue;  // missing
      if (shape == 5) {
        d.open_array(field);
        int n = pick(3);  // [] too
        for (int i = 0; i < n; ++i) {
          if (pick(4) == 0) {
            d.push(bson::Null{});
          } else {
            d.push(pick(20) - 10);
          }
        }
        d.close();
        continue;
      }
      scalar(d, field);
    }
    d.append("u", pick(3));
    switch (pick(arrays ? 5 : 4)) {
      case 0:
        break;  // no a
      case 1:
        d.append("a", pick(5));  // a.b reaches nothing
        break;
      case 2:
        d.open_document("a");
        if (pick(3) != 0) scalar(d, "b");
        d.close();
        break;
      case 3:
        d.append("a", bson::Null{});
        break;
      default:
        d.open_array("a");
        d.push(make_document("b", pick(10) - 5));
        d.push(make_document("c", 1));
        d.close();
    }
    coll.insert_one(d.finish().view());
  };
  // One condition on `field`: what the planner bounds, and some that it cannot.
  auto condition = [&](DocumentBuilder& b, std::string_view field) {
    auto number = [&](DocumentBuilder& w, std::string_view key) {
      if (pick(5) == 0) {
        w.append(key, "s" + std::to_string(pick(10)));
      } else {
        w.append(key, static_cast<double>(pick(200)) / 10 - 10);
      }
    };
    switch (pick(10)) {
      case 0:
        b.append(field, bson::Null{});
        return;
      case 1:
        b.open_document(field).append("$eq", bson::Null{}).close();
        return;
      case 2:
        b.append(field, pick(20) - 10);
        return;
      case 3:
        b.open_document(field);
        b.open_array("$in");
        b.push(pick(20) - 10);
        if (pick(2) == 0) b.push(bson::Null{});
        b.push("s" + std::to_string(pick(10)));
        b.close();
        b.close();
        return;
      case 4:
        b.open_document(field).append("$type", pick(2) == 0 ? "number" : "string").close();
        return;
      case 5:
        b.open_document(field).append("$exists", pick(2) == 0).close();
        return;
      case 6:
        b.open_document(field).append("$ne", pick(20) - 10).close();
        return;
      default: {
        static const char* ops[] = {"$gt", "$gte", "$lt", "$lte"};
        b.open_document(field);
        number(b, ops[pick(4)]);
        if (pick(3) == 0) number(b, ops[pick(4)]);
        b.close();
      }
    }
  };
  int unions = 0;
  auto check = [&](const std::string& phase) {
    for (int q = 0; q < 150; ++q) {
      static const char* fields[] = {"t", "d", "k", "a.b"};
      const char* field = fields[pick(4)];
      DocumentBuilder f;
      if (pick(5) == 0) condition(f, pick(2) == 0 ? "u" : field);  // beside the $or
      f.open_array("$or");
      const int branches = 1 + pick(4);
      for (int br = 0; br < branches; ++br) {
        f.push_document();
        condition(f, field);
        f.close();
      }
      f.close();
      if (pick(6) == 0) f.append("u", pick(3));
      Document filter = f.finish();
      SCOPED_TRACE(phase + " " + filter.to_json());
      std::vector<std::string> expected =
          sorted_json(coll.find(filter.view(), natural())->to_vector());
      ASSERT_EQ(sorted_json(coll.find(filter.view())->to_vector()), expected);
      client::PreparedFind prepared = coll.prepare_find(filter.view());
      ASSERT_EQ(sorted_json(prepared.find()->to_vector()), expected);
      ASSERT_EQ(sorted_json(prepared.find()->to_vector()), expected);  // on the kept plan
      EXPECT_EQ(coll.count_documents(filter.view()), static_cast<int64_t>(expected.size()));
      Document ex = coll.explain(filter.view(), client::FindOptions{});
      EXPECT_EQ(ex.get_path("executionStats.nReturned").as_int64(),
                static_cast<int64_t>(expected.size()));
      if (text(ex.get_path("queryPlanner.winningPlan.inputStage.stage")) == "IXSCAN") ++unions;
    }
  };
  for (int i = 0; i < 300; ++i) insert(false);
  check("no arrays");
  for (int i = 0; i < 100; ++i) insert(true);
  check("multikey");
  // The random $ors do read single index scans (and not only collection scans or ORs).
  EXPECT_GE(unions, 60);
}

TEST(OrUnionBounds, TheDueShapeRebindsToThePlanPlanningGives) {
  const std::vector<std::string> patterns = {R"({"t": 1})", R"({"t": -1})", R"({"t": 1, "u": 1})",
                                             R"({"t": -1, "u": 1})"};
  const std::vector<const char*> ops = {"$gt", "$gte", "$lt", "$lte"};
  const std::vector<std::string> sorts = {"{}", R"({"t": 1})", R"({"t": -1})"};
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> real(-1e12, 1e12);
  auto filter = [&](const char* op, int i, bool range_first) -> Document {
    switch (i % 4) {
      case 0:
        return due_shape(op, real(rng), range_first);
      case 1:
        return due_shape(op, static_cast<int32_t>(rng() % 2000) - 1000, range_first);
      case 2:
        return due_shape(op, static_cast<int64_t>(rng()) << 20, range_first);
      default:
        return due_shape(op, std::numeric_limits<double>::max() * (i % 2 ? -1 : 1), range_first);
    }
  };
  int rebound = 0;
  for (const std::string& pattern : patterns) {
    IndexDescriptor index = IndexDescriptor::parse(J(pattern).view(), J("{}").view());
    for (bool multikey : {false, true}) {
      std::vector<IndexCandidate> candidates{IndexCandidate{&index, multikey}};
      for (const std::string& sort : sorts) {
        for (const char* op : ops) {
          for (int i = 0; i < 10; ++i) {
            const bool range_first = i % 2 == 1;
            Document was = filter(op, i, range_first);
            Document now = filter(op, i + 1 + static_cast<int>(rng() % 3), range_first);
            ASSERT_TRUE(rebindable_range(was.view())) << was.to_json();
            std::optional<IndexPlan> planned = plan_query(was.view(), J(sort).view(), candidates);
            std::optional<IndexPlan> expected = plan_query(now.view(), J(sort).view(), candidates);
            ASSERT_TRUE(planned && expected);
            SCOPED_TRACE(pattern + " " + was.to_json() + " -> " + now.to_json());
            EXPECT_EQ(planned->ranges.size(), 2u);
            EXPECT_EQ(planned->exact, !multikey);
            std::optional<IndexPlan> got =
                rebind_range_plan(*planned, index, was.view(), now.view());
            ASSERT_TRUE(got);
            expect_same_plan(*got, *expected);
            ++rebound;
          }
        }
      }
    }
  }
  EXPECT_EQ(rebound, 4 * 2 * 3 * 4 * 10);
}

TEST(OrUnionBounds, OnlyTheSameDueShapeIsRebound) {
  IndexDescriptor index = IndexDescriptor::parse(J(R"({"t": 1})").view(), J("{}").view());
  std::vector<IndexCandidate> candidates{IndexCandidate{&index, false}};
  const Document was = due_shape("$lte", 5);
  std::optional<IndexPlan> planned = plan_query(was.view(), J("{}").view(), candidates);
  ASSERT_TRUE(planned);
  const std::vector<Document> others = {
      due_shape("$lte", 7, /*range_first=*/true),  // the branches in the other order
      due_shape("$gte", 7),
      due_shape("$lte", 7, false, "u"),
      due_shape("$lte", std::nan("")),
      due_shape("$lte", std::numeric_limits<double>::infinity()),
      due_shape("$lte", "s"),
      J(R"({"t": {"$lte": 7}})"),
      J(R"({"$or": [{"t": {"$eq": null}}, {"t": {"$lte": 7}}]})"),
      J(R"({"$or": [{"t": 1}, {"t": {"$lte": 7}}]})"),
      J(R"({"$or": [{"t": null}, {"t": {"$lte": 7}}, {"t": null}]})"),
      J(R"({"$or": [{"t": null}, {"u": {"$lte": 7}}]})"),
      J(R"({"$or": [{"t": null}, {"t": {"$lte": 7, "$gt": 1}}]})"),
      J(R"({"$or": [{"t": null}, {"t": {"$lte": 7}}], "u": 1})"),
  };
  for (const Document& other : others) {
    EXPECT_FALSE(rebind_range_plan(*planned, index, was.view(), other.view())) << other.to_json();
  }
  // A single range's plan is not rebound to the $or, nor the other way.
  const Document single = J(R"({"t": {"$lte": 5}})");
  std::optional<IndexPlan> single_plan = plan_query(single.view(), J("{}").view(), candidates);
  ASSERT_TRUE(single_plan);
  EXPECT_FALSE(rebind_range_plan(*single_plan, index, single.view(), due_shape("$lte", 7).view()));
  EXPECT_FALSE(rebind_range_plan(*planned, index, was.view(), J(R"({"t": {"$lte": 7}})").view()));
}

// PlanCache asks rebindable_plan once per kept plan and then rebinds each run with
// rebind_checked_plan: together they are rebind_range_plan.
TEST(OrUnionBounds, TheCheckOfAKeptPlanIsSeparate) {
  IndexDescriptor index = IndexDescriptor::parse(J(R"({"t": -1})").view(), J("{}").view());
  std::vector<IndexCandidate> candidates{IndexCandidate{&index, false}};
  const Document was = due_shape("$lt", 5, /*range_first=*/true);
  std::optional<IndexPlan> planned = plan_query(was.view(), J("{}").view(), candidates);
  ASSERT_TRUE(planned);
  EXPECT_TRUE(rebindable_plan(*planned, index, was.view()));
  const Document now = due_shape("$lt", 9.25, /*range_first=*/true);
  std::optional<RebindableRange> read = read_rebindable_range(was.view());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->path, "t");
  EXPECT_EQ(read->op, "$lt");
  EXPECT_TRUE(read->or_null);
  EXPECT_FALSE(read->null_first);
  std::optional<IndexPlan> checked = rebind_checked_plan(*planned, index, *read, now.view());
  std::optional<IndexPlan> fresh = plan_query(now.view(), J("{}").view(), candidates);
  ASSERT_TRUE(checked && fresh);
  expect_same_plan(*checked, *fresh);
  EXPECT_FALSE(rebind_checked_plan(*planned, index, *read, due_shape("$lt", 9.25).view()));
  EXPECT_FALSE(rebind_checked_plan(*planned, index, *read, due_shape("$lte", 9.25, true).view()));
  EXPECT_FALSE(read_rebindable_range(J(R"({"t": {"$lt": 1}, "u": 2})").view()));
  // The index read whole (a hint) is not that filter's ranges.
  IndexDescriptor other = IndexDescriptor::parse(J(R"({"u": 1})").view(), J("{}").view());
  std::vector<IndexCandidate> hinted{IndexCandidate{&other, false}};
  std::optional<IndexPlan> whole = plan_query(was.view(), J("{}").view(), hinted, /*forced=*/true);
  ASSERT_TRUE(whole);
  EXPECT_FALSE(rebindable_plan(*whole, other, was.view()));
  EXPECT_FALSE(rebindable_plan(*planned, index, J(R"({"t": {"$in": [1, 2]}})").view()));
}

TEST(OrUnionBounds, BoundsAreExactOnlyWhereTheNullKeyMeansNullOrMissing) {
  IndexDescriptor index = IndexDescriptor::parse(J(R"({"t": 1})").view(), J("{}").view());
  auto plan = [&](const char* filter, bool multikey) {
    std::vector<IndexCandidate> candidates{IndexCandidate{&index, multikey}};
    std::optional<IndexPlan> p = plan_query(J(filter).view(), J("{}").view(), candidates);
    EXPECT_TRUE(p) << filter;
    return p ? *p : IndexPlan();
  };
  const char* due = R"({"$or": [{"t": null}, {"t": {"$lte": 5}}]})";
  EXPECT_TRUE(plan(due, false).exact);
  EXPECT_FALSE(plan(due, true).exact);  // [null] and a.b through arrays have the null key too
  const char* ranges = R"({"$or": [{"t": {"$lt": 1}}, {"t": {"$gte": 5}}, {"t": 3}]})";
  EXPECT_TRUE(plan(ranges, false).exact);
  EXPECT_TRUE(plan(ranges, true).exact);  // a key in some branch's bounds matches that branch
  EXPECT_FALSE(plan(R"({"$or": [{"t": {"$lt": 1, "$gt": -1}}, {"t": 3}]})", true).exact);
  EXPECT_FALSE(plan(R"({"$or": [{"t": "s"}, {"t": 3}]})", false).exact);
  EXPECT_FALSE(plan(R"({"$or": [{"t": null}, {"t": 3}], "u": 1})", false).exact);
}

// Through the client, as the sweep runs it: one prepared due-shape find run with many `now`s
// (its kept plan rebound each time) returns what the collection scan returns, while documents
// come, the index turns multikey and the values change type.
TEST(OrUnionBounds, PreparedDueShapeRunsAgreeWithTheCollectionScan) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"t": 1})"));
  std::mt19937 rng(2026);
  auto insert = [&](int id) {
    switch (id % 6) {
      case 0:
        coll.insert_one(make_document("_id", id, "t", bson::Null{}));
        break;
      case 1:
        coll.insert_one(make_document("_id", id));
        break;
      case 2:
        coll.insert_one(make_document("_id", id, "t", std::to_string(id)));
        break;
      default:
        coll.insert_one(make_document("_id", id, "t", static_cast<double>(rng() % 100) - 50.5));
    }
  };
  for (int id = 0; id < 120; ++id) insert(id);
  int next_id = 1000;
  client::FindOptions options;
  options.projection = J(R"({"t": 1})");
  client::FindOptions scan = natural();
  scan.projection = options.projection;
  for (bool range_first : {false, true}) {
    client::PreparedFind prepared = coll.prepare_find(due_shape("$lte", 0.0, range_first), options);
    for (int round = 0; round < 40; ++round) {
      Document filter =
          round % 3 == 0
              ? due_shape("$lte", static_cast<int32_t>(rng() % 120) - 60, range_first)
              : due_shape("$lte", static_cast<double>(rng() % 1200) / 10 - 60, range_first);
      SCOPED_TRACE(filter.to_json());
      EXPECT_EQ(sorted_json(prepared.find(filter.view())->to_vector()),
                sorted_json(coll.find(filter.view(), scan)->to_vector()));
      if (round == 10) insert(next_id++);
      if (round == 20) {
        coll.insert_one(make_document("_id", next_id++, "t", make_array(bson::Null{}, 70)));
        coll.insert_one(make_document("_id", next_id++, "t", make_array()));
      }
      if (round == 30) insert(next_id++);
    }
    coll.delete_many(J(R"({"_id": {"$gte": 1000}})"));
  }
}

}  // namespace
}  // namespace mongostore::engine
