// Grouping stages and accumulators: $group $sortByCount $bucket, and the memory limit.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

const char* kSales = R"([{"_id": 1, "item": "a", "qty": 2, "price": 10, "tags": ["x"]},
                         {"_id": 2, "item": "b", "qty": 1, "price": 5.5},
                         {"_id": 3, "item": "a", "qty": 3, "price": 10, "tags": ["y", "x"]},
                         {"_id": 4, "item": null, "qty": 7},
                         {"_id": 5, "qty": 1}])";

TEST(AggGroup, AccumulatorsPerGroup) {
  EXPECT_EQ(R(R"([{"$group": {"_id": "$item", "n": {"$sum": 1}, "q": {"$sum": "$qty"},
                   "avg": {"$avg": "$qty"}, "lo": {"$min": "$price"}, "hi": {"$max": "$price"},
                   "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
                   "ids": {"$push": "$_id"}, "c": {"$count": {}}}}])",
              kSales),
            canon_docs(docs_of(R"([
      {"_id": "a", "n": 2, "q": 5, "avg": 2.5, "lo": 10, "hi": 10, "first": 1, "last": 3,
       "ids": [1, 3], "c": 2},
      {"_id": "b", "n": 1, "q": 1, "avg": 1.0, "lo": 5.5, "hi": 5.5, "first": 2, "last": 2,
       "ids": [2], "c": 1},
      {"_id": null, "n": 2, "q": 8, "avg": 4.0, "lo": null, "hi": null, "first": 4, "last": 5,
       "ids": [4, 5], "c": 2}])")));
}

TEST(AggGroup, NullIdAndDocumentIds) {
  EXPECT_EQ(
      R(R"([{"$group": {"_id": null, "total": {"$sum": {"$multiply": ["$qty", 2]}}}}])", kSales),
      canon_docs(docs_of(R"([{"_id": null, "total": 28}])")));
  EXPECT_EQ(R(R"([{"$match": {"price": {"$exists": true}}},
                  {"$group": {"_id": {"i": "$item", "p": "$price"}, "n": {"$sum": 1}}}])",
              kSales),
            canon_docs(docs_of(R"([{"_id": {"i": "a", "p": 10}, "n": 2},
                                   {"_id": {"i": "b", "p": 5.5}, "n": 1}])")));
  // 1 and 1.0 are the same group.
  EXPECT_EQ(R(R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}])",
              R"([{"k": 1}, {"k": 1.0}, {"k": {"$numberLong": "1"}}])"),
            canon_docs(docs_of(R"([{"_id": 1, "n": 3}])")));
}

TEST(AggGroup, AddToSetAndTypes) {
  EXPECT_EQ(R(R"([{"$unwind": "$tags"}, {"$group": {"_id": null, "t": {"$addToSet": "$tags"}}}])",
              kSales),
            canon_docs(docs_of(R"([{"_id": null, "t": ["x", "y"]}])")));
  EXPECT_EQ(R(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}, "a": {"$avg": "$v"}}}])",
              R"([{"v": 1}, {"v": 2.5}, {"v": "str"}, {}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": 3.5, "a": 1.75}])")));
  EXPECT_EQ(R(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}, "a": {"$avg": "$v"}}}])",
              R"([{"v": "x"}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": 0, "a": null}])")));
  EXPECT_EQ(
      R(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}}}])", R"([{"v": 2147483647}, {"v": 1}])"),
      canon_docs(docs_of(R"([{"_id": null, "s": {"$numberLong": "2147483648"}}])")));
  EXPECT_EQ(R(R"([{"$group": {"_id": null, "s": {"$sum": "$v"}}}])",
              R"([{"v": {"$numberDecimal": "1.1"}}, {"v": 1}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": {"$numberDecimal": "2.1"}}])")));
}

// $sum as MongoDB's: integers are summed exactly, so only the final total decides between a
// long and a double; doubles are summed with compensation (1e100 + 1 - 1e100 is 1, not 0).
TEST(AggGroup, SumIsExactForIntegersAndCompensatedForDoubles) {
  const char* sum = R"([{"$group": {"_id": null, "s": {"$sum": "$v"}}}])";
  EXPECT_EQ(R(sum, R"([{"v": {"$numberLong": "9223372036854775807"}}, {"v": 1}, {"v": -1}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": {"$numberLong": "9223372036854775807"}}])")));
  EXPECT_EQ(R(sum, R"([{"v": {"$numberLong": "9223372036854775807"}}, {"v": 1}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": 9223372036854775808.0}])")));
  EXPECT_EQ(R(sum, R"([{"v": 1e100}, {"v": 1.0}, {"v": -1e100}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": 1.0}])")));
  EXPECT_EQ(R(sum, R"([{"v": {"$numberLong": "9007199254740993"}}, {"v": 0.5}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": 9007199254740994.0}])")));
  EXPECT_EQ(R(sum, R"([{"v": {"$numberDouble": "Infinity"}}, {"v": 1.0}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": {"$numberDouble": "Infinity"}}])")));
  EXPECT_EQ(R(sum, R"([{"v": {"$numberDouble": "Infinity"}},
                      {"v": {"$numberDouble": "-Infinity"}}])"),
            canon_docs(docs_of(R"([{"_id": null, "s": {"$numberDouble": "NaN"}}])")));
  EXPECT_EQ(
      R(sum, R"([{"v": {"$numberDecimal": "0.1"}}, {"v": 2}, {"v": 0.25}])"),
      canon_docs(docs_of(R"([{"_id": null, "s": {"$numberDecimal": "2.350000000000000"}}])")));
}

TEST(AggGroup, StandardDeviations) {
  EXPECT_EQ(R(R"([{"$group": {"_id": "$g", "pop": {"$stdDevPop": "$v"},
                               "samp": {"$stdDevSamp": "$v"}}}, {"$sort": {"_id": 1}}])",
              R"([{"g": 1, "v": 1}, {"g": 1, "v": 2}, {"g": 1, "v": 3}, {"g": 1, "v": "x"},
                  {"g": 2, "v": 5}, {"g": 3, "v": null}])"),
            canon_docs(docs_of(R"([{"_id": 1, "pop": 0.816496580927726, "samp": 1.0},
                                   {"_id": 2, "pop": 0.0, "samp": null},
                                   {"_id": 3, "pop": null, "samp": null}])")));
  // As expressions, over an array or a list, with mongod's emptiness rules.
  EXPECT_EQ(E(R"({"$stdDevPop": [1, 3]})"), V("1.0"));
  EXPECT_EQ(E(R"({"$stdDevPop": [[1, 3]]})"), V("1.0"));
  EXPECT_EQ(E(R"({"$stdDevSamp": [1, 2, 3, null]})"), V("1.0"));
  EXPECT_EQ(E(R"({"$stdDevPop": [1, 3, {"$numberDouble": "NaN"}]})"),
            V(R"({"$numberDouble": "NaN"})"));
  EXPECT_EQ(E(R"({"$stdDevPop": []})"), V("null"));
  EXPECT_EQ(E(R"({"$stdDevSamp": [5]})"), V("null"));
  EXPECT_EQ(E(R"({"$avg": []})"), V("null"));
  EXPECT_EQ(E(R"({"$sum": []})"), V("0"));
}

// The n-accumulators, with the game-scores example of MongoDB's documentation.
const char* kScores = R"([
  {"playerId": "PlayerA", "gameId": "G1", "score": 31},
  {"playerId": "PlayerB", "gameId": "G1", "score": 33},
  {"playerId": "PlayerC", "gameId": "G1", "score": 99},
  {"playerId": "PlayerD", "gameId": "G1", "score": 1},
  {"playerId": "PlayerA", "gameId": "G2", "score": 10},
  {"playerId": "PlayerB", "gameId": "G2", "score": 14},
  {"playerId": "PlayerC", "gameId": "G2", "score": 66},
  {"playerId": "PlayerD", "gameId": "G2", "score": 80}])";

TEST(AggGroup, TopAndBottomN) {
  EXPECT_EQ(R(R"([{"$group": {"_id": "$gameId",
                   "top": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1},
                                     "n": 3}},
                   "bottom": {"$bottomN": {"output": ["$playerId", "$score"],
                                           "sortBy": {"score": -1}, "n": 3}},
                   "best": {"$top": {"output": "$playerId", "sortBy": {"score": -1}}},
                   "worst": {"$bottom": {"output": "$playerId", "sortBy": {"score": -1}}}}},
                  {"$sort": {"_id": 1}}])",
              kScores),
            canon_docs(docs_of(R"([
              {"_id": "G1", "top": [["PlayerC", 99], ["PlayerB", 33], ["PlayerA", 31]],
               "bottom": [["PlayerB", 33], ["PlayerA", 31], ["PlayerD", 1]],
               "best": "PlayerC", "worst": "PlayerD"},
              {"_id": "G2", "top": [["PlayerD", 80], ["PlayerC", 66], ["PlayerB", 14]],
               "bottom": [["PlayerC", 66], ["PlayerB", 14], ["PlayerA", 10]],
               "best": "PlayerD", "worst": "PlayerA"}])")));
}

TEST(AggGroup, FirstLastMaxMinN) {
  EXPECT_EQ(R(R"([{"$group": {"_id": "$gameId",
                   "first": {"$firstN": {"input": "$score", "n": 3}},
                   "last": {"$lastN": {"input": "$score", "n": 3}},
                   "max": {"$maxN": {"input": "$score", "n": 2}},
                   "min": {"$minN": {"input": "$score", "n": 10}}}},
                  {"$sort": {"_id": 1}}])",
              kScores),
            canon_docs(docs_of(R"([
              {"_id": "G1", "first": [31, 33, 99], "last": [33, 99, 1], "max": [99, 33],
               "min": [1, 31, 33, 99]},
              {"_id": "G2", "first": [10, 14, 66], "last": [14, 66, 80], "max": [80, 66],
               "min": [10, 14, 66, 80]}])")));
  // $firstN keeps nulls (a missing value becomes null); $maxN/$minN skip them.
  EXPECT_EQ(R(R"([{"$group": {"_id": null, "f": {"$firstN": {"input": "$v", "n": 2}},
                               "m": {"$maxN": {"input": "$v", "n": 2}}}}])",
              R"([{"x": 1}, {"v": null}, {"v": 5}])"),
            canon_docs(docs_of(R"([{"_id": null, "f": [null, null], "m": [5]}])")));
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$firstN": {"input": "$v", "n": 0}}}}])"), 5787908);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$firstN": {"input": "$v", "n": 1.5}}}}])"),
            5787903);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$firstN": {"input": "$v", "n": "x"}}}}])"),
            5787902);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$firstN": {"input": "$v"}}}}])"), 5787906);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$maxN": {"n": 1}}}}])"), 5787907);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$maxN": 5}}}])"), 5787900);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$topN": {"output": 1, "n": 1}}}}])"), 5788005);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$top": {"output": 1, "sortBy": {"a": 1},
                                                       "n": 1}}}}])"),
            5788002);
  EXPECT_EQ(RE(R"([{"$group": {"_id": 1, "f": {"$firstN": {"input": "$v", "n": "$k"}}}}])"), 238);
}

TEST(AggGroup, Errors) {
  std::string msg;
  EXPECT_EQ(RE(R"([{"$group": {"n": {"$sum": 1}}}])", "[]", &msg), 15955);
  EXPECT_EQ(msg, "a group specification must include an _id");
  EXPECT_EQ(RE(R"([{"$group": {"_id": null, "n": {"$foo": 1}}}])", "[]", &msg), 15952);
  EXPECT_EQ(msg, "unknown group operator '$foo'");
  EXPECT_EQ(RE(R"([{"$group": {"_id": null, "n": 1}}])"), 40234);
  EXPECT_EQ(RE(R"([{"$group": {"_id": null, "n": {"$sum": 1, "$avg": 1}}}])"), 40238);
  EXPECT_EQ(RE(R"([{"$group": {"_id": null, "a.b": {"$sum": 1}}}])"), 40235);
}

TEST(AggGroup, SortByCount) {
  EXPECT_EQ(R(R"([{"$unwind": "$tags"}, {"$sortByCount": "$tags"}])", kSales),
            canon_docs(docs_of(R"([{"_id": "x", "count": 2}, {"_id": "y", "count": 1}])")));
  EXPECT_EQ(RE(R"([{"$sortByCount": "tags"}])"), 40148);
}

TEST(AggGroup, Bucket) {
  const char* docs = R"([{"p": 1}, {"p": 5}, {"p": 10}, {"p": 12}, {"p": "x"}, {}])";
  EXPECT_EQ(
      R(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 5, 10], "default": "other"}}])", docs),
      canon_docs(docs_of(R"([{"_id": 0, "count": 1}, {"_id": 5, "count": 1},
                                   {"_id": "other", "count": 4}])")));
  EXPECT_EQ(
      R(R"([{"$match": {"p": {"$lt": 10}}},
                  {"$bucket": {"groupBy": "$p", "boundaries": [0, 2, 20],
                               "output": {"vals": {"$push": "$p"}, "s": {"$sum": "$p"}}}}])",
        docs),
      canon_docs(docs_of(R"([{"_id": 0, "vals": [1], "s": 1}, {"_id": 2, "vals": [5], "s": 5}])")));
  EXPECT_EQ(RE(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 5]}}])", docs), 40066);
  EXPECT_EQ(RE(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0]}}])"), 40192);
  EXPECT_EQ(RE(R"([{"$bucket": {"groupBy": "$p", "boundaries": [5, 0]}}])"), 40194);
  EXPECT_EQ(RE(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, "a"]}}])"), 40193);
  EXPECT_EQ(RE(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 5], "default": 3}}])"), 40199);
  EXPECT_EQ(RE(R"([{"$bucket": {"boundaries": [0, 5]}}])"), 40198);
}

TEST(AggGroup, MemoryLimit) {
  std::vector<bson::Document> docs;
  for (int i = 0; i < 200; ++i) {
    docs.push_back(bson::make_document("_id", i, "pad", std::string(1000, 'x')));
  }
  AggregationContext ctx;
  ctx.memory_limit_bytes = 50 * 1000;
  for (const char* p :
       {R"([{"$sort": {"pad": 1}}])", R"([{"$group": {"_id": {"i": "$_id", "p": "$pad"}}}])",
        R"([{"$group": {"_id": null, "all": {"$push": "$pad"}}}])",
        R"([{"$facet": {"a": [{"$limit": 1}]}}])"}) {
    SCOPED_TRACE(p);
    try {
      drain(*P(p).run(make_vector_source(docs), ctx));
      ADD_FAILURE() << "expected the memory limit to be hit";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 292);
      EXPECT_NE(std::string(e.what()).find("allowDiskUse"), std::string::npos);
    }
    // allowDiskUse lifts the limit ($sort and $group spill, $facet keeps going in memory).
    ctx.allow_disk_use = true;
    EXPECT_NO_THROW(drain(*P(p).run(make_vector_source(docs), ctx)));
    ctx.allow_disk_use = false;
  }
  // Streaming stages do not count.
  EXPECT_EQ(
      drain(*P(R"([{"$match": {}}, {"$project": {"pad": 1}}])").run(make_vector_source(docs), ctx))
          .size(),
      200u);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
