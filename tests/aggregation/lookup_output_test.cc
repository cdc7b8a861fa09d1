// Stages that reach other collections: $lookup, $facet (sub-pipelines), $out and $merge.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

FakeDb make_db() {
  FakeDb db;
  db.collections["inventory"] = docs_of(R"([{"_id": 1, "sku": "a", "stock": 10},
                                            {"_id": 2, "sku": "b", "stock": 0},
                                            {"_id": 3, "sku": "a", "stock": 5},
                                            {"_id": 4, "stock": 1}])");
  return db;
}

// The context of `db`, noting the filter of every collection read in `filters` (as JSON).
AggregationContext recording_reads(FakeDb& db, std::vector<std::string>* filters) {
  AggregationContext ctx = db.context();
  auto read = ctx.read_collection;
  ctx.read_collection = [read, filters](std::string_view coll, bson::DocumentView filter) {
    filters->push_back(bson::Document::copy_of(filter).to_json());
    return read(coll, filter);
  };
  return ctx;
}

TEST(AggLookup, EqualityForm) {
  FakeDb db = make_db();
  AggregationContext ctx = db.context();
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "localField": "item",
                   "foreignField": "sku", "as": "inv"}}, {"$project": {"ids": "$inv._id"}}])",
              R"([{"_id": 10, "item": "a"}, {"_id": 11, "item": "z"}, {"_id": 12},
                  {"_id": 13, "item": ["b", "a"]}])",
              ctx),
            canon_docs(docs_of(R"([{"_id": 10, "ids": [1, 3]}, {"_id": 11, "ids": []},
                                   {"_id": 12, "ids": [4]}, {"_id": 13, "ids": [1, 2, 3]}])")));
  EXPECT_EQ(R(R"([{"$lookup": {"from": "nothing", "localField": "item", "foreignField": "sku",
                   "as": "x.y"}}])",
              R"([{"_id": 1, "item": "a"}])", ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "x": {"y": []}}])")));
}

TEST(AggLookup, PipelineFormWithLet) {
  FakeDb db = make_db();
  AggregationContext ctx = db.context();
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "let": {"s": "$item", "min": "$min"},
                   "pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$sku", "$$s"]},
                                                               {"$gte": ["$stock", "$$min"]}]}}},
                                {"$project": {"_id": 0, "stock": 1}}],
                   "as": "ok"}}])",
              R"([{"_id": 1, "item": "a", "min": 6}, {"_id": 2, "item": "b", "min": 0}])", ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "min": 6, "ok": [{"stock": 10}]},
                                   {"_id": 2, "item": "b", "min": 0, "ok": [{"stock": 0}]}])")));
  // Uncorrelated pipeline.
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "pipeline": [{"$count": "n"}], "as": "c"}}])",
              R"([{"_id": 1}])", ctx),
            canon_docs(docs_of(R"([{"_id": 1, "c": [{"n": 4}]}])")));
}

// A sub-pipeline's leading $match goes into the foreign read's filter (where an index can
// serve it), combined with the equality part; an $expr in it gets the `let` values bound.
TEST(AggLookup, LeadingMatchIsPushedIntoTheForeignRead) {
  FakeDb db = make_db();
  std::vector<std::string> filters;
  AggregationContext ctx = recording_reads(db, &filters);
  const char* input = R"([{"_id": 1, "item": "a"}])";
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "pipeline": [{"$match": {"stock": 5}},
                   {"$project": {"_id": 1}}], "as": "m"}}])",
              input, ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "m": [{"_id": 3}]}])")));
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku",
                   "pipeline": [{"$match": {"stock": {"$gt": 1}}}, {"$project": {"_id": 1}}],
                   "as": "m"}}])",
              input, ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "m": [{"_id": 1}, {"_id": 3}]}])")));
  // The same field on both sides: both conditions hold.
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku",
                   "pipeline": [{"$match": {"sku": {"$ne": "a"}}}], "as": "m"}}])",
              input, ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "m": []}])")));
  EXPECT_EQ(R(R"([{"$lookup": {"from": "inventory", "let": {"s": "$item"},
                   "pipeline": [{"$match": {"$expr": {"$eq": ["$sku", "$$s"]}}},
                                {"$project": {"_id": 1}}], "as": "m"}}])",
              input, ctx),
            canon_docs(docs_of(R"([{"_id": 1, "item": "a", "m": [{"_id": 1}, {"_id": 3}]}])")));
  ASSERT_EQ(filters.size(), 4u);
  EXPECT_EQ(filters[0], J(R"({"stock": 5})").to_json());
  EXPECT_EQ(filters[1], J(R"({"sku": {"$eq": "a"}, "stock": {"$gt": 1}})").to_json());
  EXPECT_EQ(filters[2], J(R"({"$and": [{"sku": {"$eq": "a"}}, {"sku": {"$ne": "a"}}]})").to_json());
  // The $expr goes in too, with this document's `let` values bound as literals.
  EXPECT_EQ(filters[3], J(R"({"$expr": {"$let": {"vars": {"s": {"$literal": "a"}},
                                      "in": {"$eq": ["$sku", "$$s"]}}}})")
                            .to_json());
}

TEST(AggUnionWith, InputThenTheOtherCollectionThroughItsPipeline) {
  FakeDb db = make_db();
  std::vector<std::string> filters;
  AggregationContext ctx = recording_reads(db, &filters);
  const char* input = R"([{"_id": "x"}, {"_id": "y"}])";
  EXPECT_EQ(R(R"([{"$unionWith": "inventory"}, {"$project": {"_id": 1}}])", input, ctx),
            canon_docs(docs_of(R"([{"_id": "x"}, {"_id": "y"}, {"_id": 1}, {"_id": 2}, {"_id": 3},
                                   {"_id": 4}])")));
  // The sub-pipeline's leading $match is the read's filter; the rest runs over what it read.
  EXPECT_EQ(R(R"([{"$unionWith": {"coll": "inventory", "pipeline": [
                   {"$match": {"sku": "a"}}, {"$group": {"_id": "$sku", "n": {"$sum": 1}}}]}}])",
              input, ctx),
            canon_docs(docs_of(R"([{"_id": "x"}, {"_id": "y"}, {"_id": "a", "n": 2}])")));
  ASSERT_EQ(filters.size(), 2u);
  EXPECT_EQ(filters[0], J("{}").to_json());
  EXPECT_EQ(filters[1], J(R"({"sku": "a"})").to_json());
  // Without a collection: the sub-pipeline's $documents.
  EXPECT_EQ(R(R"([{"$unionWith": {"pipeline": [{"$documents": [{"_id": "d"}]}]}}])", input, ctx),
            canon_docs(docs_of(R"([{"_id": "x"}, {"_id": "y"}, {"_id": "d"}])")));
}

TEST(AggUnionWith, TheOtherCollectionIsReadOnlyAfterTheInput) {
  FakeDb db = make_db();
  AggregationContext ctx = db.context();
  int reads = 0;
  auto read = ctx.read_collection;
  ctx.read_collection = [&](std::string_view coll, bson::DocumentView filter) {
    ++reads;
    return read(coll, filter);
  };
  auto out = P(R"([{"$unionWith": "inventory"}])")
                 .run(make_vector_source(docs_of(R"([{"_id": "x"}])")), ctx);
  ASSERT_TRUE(out->next().has_value());
  EXPECT_EQ(reads, 0);
  size_t rest = drain(*out).size();
  EXPECT_EQ(rest, 4u);
  EXPECT_EQ(reads, 1);
}

TEST(AggUnionWith, Errors) {
  std::string msg;
  EXPECT_EQ(RE(R"([{"$unionWith": 5}])"), 9);
  EXPECT_EQ(RE(R"([{"$unionWith": {"coll": "c", "bogus": 1}}])", "[]", &msg), 40415);
  EXPECT_EQ(msg, "BSON field '$unionWith.bogus' is an unknown field.");
  EXPECT_EQ(RE(R"([{"$unionWith": {"coll": 1}}])"), 14);
  EXPECT_EQ(RE(R"([{"$unionWith": {"coll": "c", "pipeline": {}}}])"), 14);
  EXPECT_EQ(RE(R"([{"$unionWith": {"pipeline": [{"$match": {}}]}}])"), 9);
  EXPECT_EQ(RE(R"([{"$unionWith": {"coll": "c", "pipeline": [{"$out": "z"}]}}])"), 31441);
  EXPECT_EQ(RE(R"([{"$unionWith": {"coll": "c", "pipeline": [{"$bogus": 1}]}}])"), 40324);
}

TEST(AggLookup, Errors) {
  EXPECT_EQ(RE(R"([{"$lookup": {"from": "x", "localField": "a", "foreignField": "b"}}])"), 9);
  EXPECT_EQ(RE(R"([{"$lookup": {"localField": "a", "foreignField": "b", "as": "c"}}])"), 9);
  EXPECT_EQ(RE(R"([{"$lookup": {"from": "x", "as": "c", "bogus": 1}}])"), 9);
  EXPECT_EQ(RE(R"([{"$lookup": {"from": "x", "as": "c", "pipeline": [{"$out": "y"}]}}])"), 51047);
}

TEST(AggFacet, RunsEachSubPipeline) {
  EXPECT_EQ(R(R"([{"$facet": {"count": [{"$count": "n"}],
                              "top": [{"$sort": {"v": -1}}, {"$limit": 1}, {"$project": {"_id": 0}}],
                              "none": [{"$match": {"v": 100}}]}}])",
              R"([{"_id": 1, "v": 1}, {"_id": 2, "v": 3}, {"_id": 3, "v": 2}])"),
            canon_docs(docs_of(R"([{"count": [{"n": 3}], "top": [{"v": 3}], "none": []}])")));
  EXPECT_EQ(RE(R"([{"$facet": {}}])"), 40169);
  EXPECT_EQ(RE(R"([{"$facet": {"a": 1}}])"), 40170);
  EXPECT_EQ(RE(R"([{"$facet": {"a": [{"$out": "x"}]}}])"), 40600);
  EXPECT_EQ(RE(R"([{"$facet": {"a": [{"$bogus": 1}]}}])"), 40324);
}

TEST(AggOut, ReplacesTheCollection) {
  FakeDb db = make_db();
  AggregationContext ctx = db.context();
  Pipeline p = P(R"([{"$match": {"sku": "a"}}, {"$project": {"stock": 1}}, {"$out": "copy"}])");
  EXPECT_TRUE(p.writes_output());
  auto out = p.run(make_vector_source(db.collections["inventory"]), ctx);
  EXPECT_FALSE(out->next().has_value());
  EXPECT_EQ(canon_docs(db.collections["copy"]),
            canon_docs(docs_of(R"([{"_id": 1, "stock": 10}, {"_id": 3, "stock": 5}])")));
  EXPECT_EQ(RE(R"([{"$out": "x"}])"), 1);  // no collection access in a default context
}

TEST(AggMerge, Modes) {
  FakeDb db;
  db.collections["t"] = docs_of(R"([{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 2}])");
  AggregationContext ctx = db.context();
  const char* src = R"([{"_id": 1, "a": 10, "c": 3}, {"_id": 3, "a": 30}])";
  R(R"([{"$merge": {"into": "t"}}])", src, ctx);  // default: merge / insert
  EXPECT_EQ(canon_docs(db.collections["t"]),
            canon_docs(docs_of(R"([{"_id": 1, "a": 10, "b": 1, "c": 3}, {"_id": 2, "a": 2},
                                   {"_id": 3, "a": 30}])")));

  db.collections["t"] = docs_of(R"([{"_id": 1, "a": 1, "b": 1}])");
  R(R"([{"$merge": {"into": "t", "whenMatched": "replace", "whenNotMatched": "discard"}}])", src,
    ctx);
  EXPECT_EQ(canon_docs(db.collections["t"]),
            canon_docs(docs_of(R"([{"_id": 1, "a": 10, "c": 3}])")));

  db.collections["t"] = docs_of(R"([{"_id": 1, "a": 1}])");
  R(R"([{"$merge": {"into": "t", "whenMatched": "keepExisting"}}])", src, ctx);
  EXPECT_EQ(canon_docs(db.collections["t"]),
            canon_docs(docs_of(R"([{"_id": 1, "a": 1}, {"_id": 3, "a": 30}])")));

  db.collections["t"] = docs_of(R"([{"_id": 1, "a": 1, "n": 5}])");
  R(R"([{"$merge": {"into": "t", "whenMatched": [{"$set": {"n": {"$add": ["$n", "$$new.a"]}}}],
                    "whenNotMatched": "discard"}}])",
    src, ctx);
  EXPECT_EQ(canon_docs(db.collections["t"]),
            canon_docs(docs_of(R"([{"_id": 1, "a": 1, "n": 15}])")));

  db.collections["t"] = docs_of(R"([{"_id": 9, "k": "x", "v": 0}])");
  R(R"([{"$merge": {"into": "t", "on": "k", "whenMatched": "merge"}}])",
    R"([{"_id": 1, "k": "x", "v": 1}])", ctx);
  EXPECT_EQ(canon_docs(db.collections["t"]),
            canon_docs(docs_of(R"([{"_id": 9, "k": "x", "v": 1}])")));

  db.collections["t"] = docs_of(R"([{"_id": 1}])");
  EXPECT_EQ(RE(R"([{"$merge": {"into": "t", "whenMatched": "fail"}}])", src, nullptr, ctx), 11000);
  EXPECT_EQ(RE(R"([{"$merge": {"into": "t", "whenNotMatched": "fail"}}])", src, nullptr, ctx),
            13113);
  EXPECT_EQ(RE(R"([{"$merge": {"into": "t", "on": "k"}}])", src, nullptr, ctx), 51132);
  EXPECT_EQ(RE(R"([{"$merge": {"whenMatched": "merge"}}])"), 40414);
  EXPECT_EQ(RE(R"([{"$merge": {"into": "t", "whenMatched": "bogus"}}])"), 2);
  EXPECT_EQ(RE(R"([{"$merge": {"into": "t", "bogus": 1}}])"), 40415);
}

}  // namespace
}  // namespace mongostore::engine::agg_test

namespace mongostore::engine::agg_test {
namespace {

TEST(AggDocuments, LiteralSource) {
  EXPECT_EQ(R(R"([{"$documents": [{"a": 1}, {"a": 2}]}, {"$match": {"a": 2}}])", R"([{"x": 0}])"),
            canon_docs(docs_of(R"([{"a": 2}])")));
  EXPECT_EQ(RE(R"([{"$documents": 1}])"), 5858203);
}

TEST(AggLet, CommandLetVariables) {
  // The aggregate command's `let` option (crud spec aggregate-let.json).
  bson::Document let =
      J(R"({"id": 1, "x": "foo", "y": {"$literal": "$bar"}, "rand": {"$rand": {}}})");
  Variables vars = evaluate_let(let);
  ASSERT_EQ(vars.size(), 4u);
  Pipeline p = P(R"([{"$match": {"$expr": {"$eq": ["$_id", "$$id"]}}},
                     {"$project": {"_id": 0, "x": "$$x", "y": "$$y", "rand": "$$rand"}}])");
  auto out = drain(*p.run(make_vector_source(docs_of(R"([{"_id": 1}, {"_id": 2}])")), {}, vars));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get("x").as_string(), "foo");
  EXPECT_EQ(out[0].get("y").as_string(), "$bar");
  double r = out[0].get("rand").as_double();
  EXPECT_GE(r, 0.0);
  EXPECT_LT(r, 1.0);
  EXPECT_THROW(evaluate_let(J(R"({"Bad": 1})")), Error);
  EXPECT_EQ(RE(R"([{"$project": {"a": "$$nope"}}])", R"([{"_id": 1}])"), 17276);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
