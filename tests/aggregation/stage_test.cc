// Streaming and reshaping stages: $match $project $addFields/$set $unset $replaceRoot
// $replaceWith $sort $limit $skip $unwind $count $sample, and pipeline-level errors.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

const char* kDocs = R"([{"_id": 1, "a": 5, "b": {"c": 1, "d": 2}},
                        {"_id": 2, "a": 1, "b": {"c": 3}},
                        {"_id": 3, "a": 3}])";

TEST(AggStage, UnknownStageAndShape) {
  std::string msg;
  EXPECT_EQ(RE(R"([{"$foo": {}}])", "[]", &msg), 40324);
  EXPECT_EQ(msg, "Unrecognized pipeline stage name: '$foo'");
  EXPECT_EQ(RE(R"([{"$match": {}, "$limit": 1}])"), 40323);
  EXPECT_EQ(RE(R"([{"$out": "x"}, {"$limit": 1}])"), 40601);
}

TEST(AggStage, Match) {
  EXPECT_EQ(
      R(R"([{"$match": {"a": {"$gt": 2}}}])", kDocs),
      canon_docs(docs_of(R"([{"_id": 1, "a": 5, "b": {"c": 1, "d": 2}}, {"_id": 3, "a": 3}])")));
  EXPECT_EQ(R(R"([{"$match": {"$expr": {"$lt": ["$a", "$_id"]}}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 2, "a": 1, "b": {"c": 3}}])")));
  EXPECT_EQ(R(R"([{"$match": {"_id": {"$gte": 2}, "$expr": {"$eq": ["$a", 3]}}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 3, "a": 3}])")));
  EXPECT_EQ(RE(R"([{"$match": 1}])"), 15959);
}

TEST(AggStage, LeadingMatch) {
  Pipeline p = P(R"([{"$match": {"_id": 7}}, {"$limit": 1}])");
  ASSERT_TRUE(p.leading_match().has_value());
  EXPECT_EQ(*p.leading_match(), J(R"({"_id": 7})"));
  EXPECT_FALSE(P(R"([{"$limit": 1}, {"$match": {"_id": 7}}])").leading_match().has_value());
  // With $expr too: the engine binds the pipeline's variables into it before its find.
  EXPECT_EQ(*P(R"([{"$match": {"$expr": true}}])").leading_match(), J(R"({"$expr": true})"));
  EXPECT_FALSE(P("[]").leading_match().has_value());
}

TEST(AggStage, ProjectInclusion) {
  EXPECT_EQ(R(R"([{"$project": {"a": 1}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 1, "a": 5}, {"_id": 2, "a": 1}, {"_id": 3, "a": 3}])")));
  EXPECT_EQ(R(R"([{"$project": {"_id": 0, "b.c": 1}}])", kDocs),
            canon_docs(docs_of(R"([{"b": {"c": 1}}, {"b": {"c": 3}}, {}])")));
  EXPECT_EQ(R(R"([{"$project": {"b": {"d": 1}}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 1, "b": {"d": 2}}, {"_id": 2, "b": {}}, {"_id": 3}])")));
  // Arrays of documents project element-wise; scalars inside are dropped.
  EXPECT_EQ(
      R(R"([{"$project": {"x.y": 1}}])", R"([{"_id": 1, "x": [{"y": 1, "z": 2}, 3, {"z": 1}]}])"),
      canon_docs(docs_of(R"([{"_id": 1, "x": [{"y": 1}, {}]}])")));
}

TEST(AggStage, ProjectComputed) {
  EXPECT_EQ(R(R"([{"$project": {"sum": {"$add": ["$a", 1]}, "lit": {"$literal": 1}, "s": "$b.c",
                   "gone": "$nope"}}])",
              R"([{"_id": 1, "a": 5, "b": {"c": 2}}])"),
            canon_docs(docs_of(R"([{"_id": 1, "sum": 6, "lit": 1, "s": 2}])")));
  // Computed fields follow the included ones.
  EXPECT_EQ(R(R"([{"$project": {"x": "$a", "a": 1}}])", R"([{"_id": 1, "a": 5, "z": 0}])"),
            canon_docs(docs_of(R"([{"_id": 1, "a": 5, "x": 5}])")));
  EXPECT_EQ(R(R"([{"$project": {"n": {"m": {"$literal": 1}}}}])", R"([{"_id": 1}])"),
            canon_docs(docs_of(R"([{"_id": 1, "n": {"m": 1}}])")));
  EXPECT_EQ(R(R"([{"$project": {"r": "$$REMOVE", "a": 1}}])", R"([{"_id": 1, "a": 5}])"),
            canon_docs(docs_of(R"([{"_id": 1, "a": 5}])")));
}

TEST(AggStage, ProjectExclusionAndErrors) {
  EXPECT_EQ(R(R"([{"$project": {"b": 0}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 1, "a": 5}, {"_id": 2, "a": 1}, {"_id": 3, "a": 3}])")));
  EXPECT_EQ(R(R"([{"$project": {"b.c": 0, "_id": 0}}])", kDocs),
            canon_docs(docs_of(R"([{"a": 5, "b": {"d": 2}}, {"a": 1, "b": {}}, {"a": 3}])")));
  std::string msg;
  EXPECT_EQ(RE(R"([{"$project": {"a": 1, "b": 0}}])", "[]", &msg), 31254);
  EXPECT_EQ(msg,
            "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion "
            "projection");
  EXPECT_EQ(RE(R"([{"$project": {"a": 0, "b": 1}}])"), 31253);
  EXPECT_EQ(RE(R"([{"$project": {}}])"), 51272);
  EXPECT_EQ(RE(R"([{"$project": {"a": 1, "a.b": 1}}])"), 31249);
  EXPECT_EQ(RE(R"([{"$project": {"x": {"$foo": 1}}}])"), 168);
}

TEST(AggStage, AddFieldsSetUnset) {
  EXPECT_EQ(R(R"([{"$addFields": {"a": {"$multiply": ["$a", 2]}, "n": 1}}])",
              R"([{"_id": 1, "a": 5, "z": 0}])"),
            canon_docs(docs_of(R"([{"_id": 1, "a": 10, "z": 0, "n": 1}])")));
  EXPECT_EQ(R(R"([{"$set": {"b.e": 3, "x.y": "$a"}}])", R"([{"_id": 1, "a": 5, "b": {"c": 1}}])"),
            canon_docs(docs_of(R"([{"_id": 1, "a": 5, "b": {"c": 1, "e": 3}, "x": {"y": 5}}])")));
  EXPECT_EQ(R(R"([{"$set": {"b": {"e": 3}}}])", R"([{"_id": 1, "b": {"c": 1}}])"),
            canon_docs(docs_of(R"([{"_id": 1, "b": {"c": 1, "e": 3}}])")));
  EXPECT_EQ(R(R"([{"$set": {"arr.k": 1}}])", R"([{"_id": 1, "arr": [{"j": 0}, 5]}])"),
            canon_docs(docs_of(R"([{"_id": 1, "arr": [{"j": 0, "k": 1}, {"k": 1}]}])")));
  EXPECT_EQ(R(R"([{"$set": {"a": "$$REMOVE"}}])", R"([{"_id": 1, "a": 5}])"),
            canon_docs(docs_of(R"([{"_id": 1}])")));
  EXPECT_EQ(R(R"([{"$unset": ["a", "b.c"]}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 1, "b": {"d": 2}}, {"_id": 2, "b": {}}, {"_id": 3}])")));
  EXPECT_EQ(R(R"([{"$unset": "b"}])", R"([{"_id": 1, "b": 1}])"),
            canon_docs(docs_of(R"([{"_id": 1}])")));
  EXPECT_EQ(RE(R"([{"$unset": 1}])"), 31002);
  EXPECT_EQ(RE(R"([{"$unset": [1]}])"), 31120);
}

TEST(AggStage, ReplaceRoot) {
  EXPECT_EQ(R(R"([{"$replaceRoot": {"newRoot": "$b"}}])", R"([{"_id": 1, "b": {"c": 1}}])"),
            canon_docs(docs_of(R"([{"c": 1}])")));
  EXPECT_EQ(R(R"([{"$replaceWith": {"$mergeObjects": [{"d": 0}, "$b"]}}])",
              R"([{"_id": 1, "b": {"c": 1}}])"),
            canon_docs(docs_of(R"([{"d": 0, "c": 1}])")));
  std::string msg;
  EXPECT_EQ(RE(R"([{"$replaceRoot": {"newRoot": "$a"}}])", R"([{"_id": 1, "a": 1}])", &msg), 40228);
  EXPECT_NE(msg.find("'newRoot' expression must evaluate to an object"), std::string::npos);
  EXPECT_EQ(RE(R"([{"$replaceRoot": {}}])"), 40231);
}

TEST(AggStage, SortLimitSkip) {
  EXPECT_EQ(R(R"([{"$sort": {"a": 1}}, {"$project": {"_id": 1}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 2}, {"_id": 3}, {"_id": 1}])")));
  EXPECT_EQ(R(R"([{"$sort": {"b.c": -1, "_id": 1}}, {"$project": {"_id": 1}}])", kDocs),
            canon_docs(docs_of(R"([{"_id": 2}, {"_id": 1}, {"_id": 3}])")));
  EXPECT_EQ(R(R"([{"$sort": {"_id": -1}}, {"$skip": 1}, {"$limit": 1}, {"$project": {"_id": 1}}])",
              kDocs),
            canon_docs(docs_of(R"([{"_id": 2}])")));
  EXPECT_EQ(R(R"([{"$skip": 5}])", kDocs), canon_docs({}));
  EXPECT_EQ(RE(R"([{"$sort": {"a": 2}}])"), 15975);
  EXPECT_EQ(RE(R"([{"$sort": {}}])"), 15976);
  EXPECT_EQ(RE(R"([{"$limit": 0}])"), 15958);
  EXPECT_EQ(RE(R"([{"$limit": "x"}])"), 15957);
  EXPECT_EQ(RE(R"([{"$skip": -1}])"), 15956);
}

TEST(AggStage, Unwind) {
  const char* docs = R"([{"_id": 1, "a": [1, 2]}, {"_id": 2, "a": []}, {"_id": 3, "a": null},
                         {"_id": 4}, {"_id": 5, "a": 7}])";
  EXPECT_EQ(R(R"([{"$unwind": "$a"}])", docs),
            canon_docs(docs_of(R"([{"_id": 1, "a": 1}, {"_id": 1, "a": 2}, {"_id": 5, "a": 7}])")));
  EXPECT_EQ(R(R"([{"$unwind": {"path": "$a", "includeArrayIndex": "i",
                   "preserveNullAndEmptyArrays": true}}])",
              docs),
            canon_docs(docs_of(R"([{"_id": 1, "a": 1, "i": {"$numberLong": "0"}},
                                   {"_id": 1, "a": 2, "i": {"$numberLong": "1"}},
                                   {"_id": 2, "i": null}, {"_id": 3, "a": null, "i": null},
                                   {"_id": 4, "i": null}, {"_id": 5, "a": 7, "i": null}])")));
  EXPECT_EQ(R(R"([{"$unwind": "$x.y"}])", R"([{"_id": 1, "x": {"y": ["p", "q"], "z": 1}}])"),
            canon_docs(docs_of(R"([{"_id": 1, "x": {"y": "p", "z": 1}},
                                   {"_id": 1, "x": {"y": "q", "z": 1}}])")));
  EXPECT_EQ(RE(R"([{"$unwind": "a"}])"), 28818);
  EXPECT_EQ(RE(R"([{"$unwind": 1}])"), 15981);
  EXPECT_EQ(RE(R"([{"$unwind": {"path": "$a", "bogus": 1}}])"), 28811);
  EXPECT_EQ(RE(R"([{"$unwind": {}}])"), 28812);
}

TEST(AggStage, CountAndSample) {
  EXPECT_EQ(R(R"([{"$count": "n"}])", kDocs), canon_docs(docs_of(R"([{"n": 3}])")));
  EXPECT_EQ(R(R"([{"$match": {"a": 99}}, {"$count": "n"}])", kDocs), canon_docs({}));
  EXPECT_EQ(RE(R"([{"$count": ""}])"), 40156);
  EXPECT_EQ(RE(R"([{"$count": "$n"}])"), 40158);
  EXPECT_EQ(RE(R"([{"$count": "a.b"}])"), 40160);
  auto out = P(R"([{"$sample": {"size": 2}}])").run(make_vector_source(docs_of(kDocs)), {});
  EXPECT_EQ(drain(*out).size(), 2u);
  out = P(R"([{"$sample": {"size": 10}}])").run(make_vector_source(docs_of(kDocs)), {});
  EXPECT_EQ(drain(*out).size(), 3u);
  EXPECT_EQ(RE(R"([{"$sample": {"size": -1}}])"), 28747);
  EXPECT_EQ(RE(R"([{"$sample": {}}])"), 28749);
}

TEST(AggStage, ExecutionStoreHitPipeline) {
  // The exact pipeline the ExecutionStore runs to read an execution and test an event id.
  auto run = [](const char* docs, const char* event_id) {
    bson::Document ev = J(std::string("{\"v\": ") + event_id + "}");
    bson::DocumentBuilder b;
    b.open_array("p");
    b.push_document().open_document("$match").append("_id", "exec-1").close().close();
    b.push_document()
        .open_document("$project")
        .append("data", int32_t{1})
        .open_document("hit")
        .open_array("$in")
        .push(ev.get("v"))
        .push_document()
        .open_array("$ifNull")
        .push("$processed")
        .push_array()
        .close()
        .close()
        .close()
        .close()
        .close()
        .close()
        .close();
    bson::Document p = b.finish();
    Pipeline pipeline = Pipeline::compile(p.get("p").as_array());
    EXPECT_TRUE(pipeline.leading_match().has_value());
    return canon_docs(drain(*pipeline.run(make_vector_source(docs_of(docs)), {})));
  };
  const char* docs = R"([{"_id": "exec-0", "data": 0, "processed": ["e1"]},
                         {"_id": "exec-1", "data": {"k": 1}, "processed": ["e1", "e2"], "x": 1}])";
  EXPECT_EQ(run(docs, "\"e2\""),
            canon_docs(docs_of(R"([{"_id": "exec-1", "data": {"k": 1}, "hit": true}])")));
  EXPECT_EQ(run(docs, "\"e3\""),
            canon_docs(docs_of(R"([{"_id": "exec-1", "data": {"k": 1}, "hit": false}])")));
  // No processed array yet: $ifNull supplies [].
  EXPECT_EQ(run(R"([{"_id": "exec-1", "data": 5}])", "\"e1\""),
            canon_docs(docs_of(R"([{"_id": "exec-1", "data": 5, "hit": false}])")));
  EXPECT_EQ(run(R"([{"_id": "exec-1"}])", "\"e1\""),
            canon_docs(docs_of(R"([{"_id": "exec-1", "hit": false}])")));
  EXPECT_EQ(run(R"([{"_id": "other"}])", "\"e1\""), canon_docs({}));
}

}  // namespace
}  // namespace mongostore::engine::agg_test

namespace mongostore::engine::agg_test {
namespace {

TEST(AggStage, EdgeCases) {
  // A computed _id replaces the stored one.
  EXPECT_EQ(R(R"([{"$project": {"_id": "$a", "b": 1}}])", R"([{"_id": 1, "a": "k", "b": 2}])"),
            canon_docs(docs_of(R"([{"_id": "k", "b": 2}])")));
  // $first of a missing value is null; $push skips missing values.
  EXPECT_EQ(R(R"([{"$group": {"_id": null, "f": {"$first": "$x"}, "p": {"$push": "$x"}}}])",
              R"([{"_id": 1}, {"_id": 2, "x": 5}])"),
            canon_docs(docs_of(R"([{"_id": null, "f": null, "p": [5]}])")));
  // Pipelines chain: unwind, group, sort, project.
  EXPECT_EQ(
      R(R"([{"$unwind": "$t"}, {"$group": {"_id": "$t", "n": {"$sum": 1}}},
                  {"$sort": {"n": -1, "_id": 1}}, {"$project": {"_id": 0, "tag": "$_id", "n": 1}}])",
        R"([{"t": ["a", "b"]}, {"t": ["b"]}, {"t": "c"}])"),
      canon_docs(docs_of(R"([{"n": 2, "tag": "b"}, {"n": 1, "tag": "a"}, {"n": 1, "tag": "c"}])")));
  // The context and the pipeline may go away before the source is drained.
  std::unique_ptr<DocumentSource> src;
  {
    Pipeline p = P(R"([{"$match": {"a": {"$gt": 1}}}, {"$set": {"b": {"$add": ["$a", 1]}}},
                       {"$unwind": "$c"}, {"$limit": 5}])");
    AggregationContext ctx;
    src = p.run(make_vector_source(docs_of(R"([{"a": 2, "c": [1, 2]}, {"a": 0, "c": [3]}])")), ctx);
  }
  EXPECT_EQ(canon_docs(drain(*src)),
            canon_docs(docs_of(R"([{"a": 2, "c": 1, "b": 3}, {"a": 2, "c": 2, "b": 3}])")));
}

}  // namespace
}  // namespace mongostore::engine::agg_test
