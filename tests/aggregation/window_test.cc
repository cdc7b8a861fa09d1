// $setWindowFields: partitions in sortBy order, accumulators over document and range windows
// (the cake-sales examples of MongoDB's documentation give the expected figures), rank
// functions, $shift, the memory limit, and the errors for bad specifications.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

const char* kCakes = R"([
  {"_id": 0, "type": "chocolate", "orderDate": {"$date": "2020-05-18T14:10:30Z"}, "state": "CA",
   "price": 13, "quantity": 120},
  {"_id": 1, "type": "chocolate", "orderDate": {"$date": "2021-03-20T11:30:05Z"}, "state": "WA",
   "price": 14, "quantity": 140},
  {"_id": 2, "type": "vanilla", "orderDate": {"$date": "2021-01-11T06:31:15Z"}, "state": "CA",
   "price": 12, "quantity": 145},
  {"_id": 3, "type": "vanilla", "orderDate": {"$date": "2020-02-08T13:13:23Z"}, "state": "WA",
   "price": 13, "quantity": 104},
  {"_id": 4, "type": "strawberry", "orderDate": {"$date": "2019-05-18T16:09:01Z"}, "state": "CA",
   "price": 41, "quantity": 162},
  {"_id": 5, "type": "strawberry", "orderDate": {"$date": "2019-01-08T06:12:03Z"}, "state": "WA",
   "price": 43, "quantity": 134}])";

TEST(AggWindow, RunningTotalPerPartition) {
  EXPECT_EQ(R(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
                   "output": {"total": {"$sum": "$quantity",
                                        "window": {"documents": ["unbounded", "current"]}}}}},
                  {"$project": {"state": 1, "total": 1}}])",
              kCakes),
            canon_docs(docs_of(R"([{"_id": 4, "state": "CA", "total": 162},
                                   {"_id": 0, "state": "CA", "total": 282},
                                   {"_id": 2, "state": "CA", "total": 427},
                                   {"_id": 5, "state": "WA", "total": 134},
                                   {"_id": 3, "state": "WA", "total": 238},
                                   {"_id": 1, "state": "WA", "total": 378}])")));
}

TEST(AggWindow, SlidingAndWholePartitionWindows) {
  EXPECT_EQ(R(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
                   "output": {"avg": {"$avg": "$quantity", "window": {"documents": [-1, 0]}},
                              "all": {"$max": "$quantity"},
                              "next": {"$push": "$_id", "window": {"documents": [1, 5]}}}}},
                  {"$project": {"avg": 1, "all": 1, "next": 1}}])",
              kCakes),
            canon_docs(docs_of(R"([{"_id": 4, "avg": 162.0, "all": 162, "next": [0, 2]},
                                   {"_id": 0, "avg": 141.0, "all": 162, "next": [2]},
                                   {"_id": 2, "avg": 132.5, "all": 162, "next": []},
                                   {"_id": 5, "avg": 134.0, "all": 140, "next": [3, 1]},
                                   {"_id": 3, "avg": 119.0, "all": 140, "next": [1]},
                                   {"_id": 1, "avg": 122.0, "all": 140, "next": []}])")));
}

TEST(AggWindow, RangeWindowsByValueAndByTime) {
  EXPECT_EQ(R(R"([{"$setWindowFields": {"sortBy": {"price": 1}, "output": {
                   "similar": {"$sum": "$quantity", "window": {"range": [-10, 10]}}}}},
                  {"$project": {"price": 1, "similar": 1}}])",
              kCakes),
            canon_docs(docs_of(R"([{"_id": 2, "price": 12, "similar": 509},
                                   {"_id": 0, "price": 13, "similar": 509},
                                   {"_id": 3, "price": 13, "similar": 509},
                                   {"_id": 1, "price": 14, "similar": 509},
                                   {"_id": 4, "price": 41, "similar": 296},
                                   {"_id": 5, "price": 43, "similar": 296}])")));
  EXPECT_EQ(R(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
                   "output": {"recent": {"$push": "$_id",
                                         "window": {"range": [-400, 0], "unit": "day"}}}}},
                  {"$project": {"recent": 1}}])",
              kCakes),
            canon_docs(docs_of(R"([{"_id": 4, "recent": [4]}, {"_id": 0, "recent": [4, 0]},
                                   {"_id": 2, "recent": [0, 2]}, {"_id": 5, "recent": [5]},
                                   {"_id": 3, "recent": [5, 3]}, {"_id": 1, "recent": [1]}])")));
  // Descending order: the window is still the values within the range.
  EXPECT_EQ(R(R"([{"$setWindowFields": {"sortBy": {"price": -1}, "output": {
                   "n": {"$count": {}, "window": {"range": [0, 1]}}}}},
                  {"$project": {"price": 1, "n": 1}}])",
              kCakes),
            canon_docs(docs_of(R"([{"_id": 5, "price": 43, "n": 1}, {"_id": 4, "price": 41, "n": 1},
                                   {"_id": 1, "price": 14, "n": 1}, {"_id": 0, "price": 13, "n": 3},
                                   {"_id": 3, "price": 13, "n": 3}, {"_id": 2, "price": 12, "n": 3}])")));
}

TEST(AggWindow, RanksAndShift) {
  EXPECT_EQ(R(R"([{"$setWindowFields": {"sortBy": {"price": 1}, "output": {
                   "rank": {"$rank": {}}, "dense": {"$denseRank": {}},
                   "number": {"$documentNumber": {}},
                   "previous": {"$shift": {"output": "$_id", "by": -1, "default": "none"}}}}},
                  {"$project": {"price": 1, "rank": 1, "dense": 1, "number": 1, "previous": 1}},
                  {"$limit": 4}])",
              kCakes),
            canon_docs(docs_of(R"([
              {"_id": 2, "price": 12, "rank": 1, "dense": 1, "number": 1, "previous": "none"},
              {"_id": 0, "price": 13, "rank": 2, "dense": 2, "number": 2, "previous": 2},
              {"_id": 3, "price": 13, "rank": 2, "dense": 2, "number": 3, "previous": 0},
              {"_id": 1, "price": 14, "rank": 4, "dense": 3, "number": 4, "previous": 3}])")));
}

TEST(AggWindow, MissingPartitionKeysGoWithNull) {
  EXPECT_EQ(R(R"([{"$setWindowFields": {"partitionBy": "$p", "output": {"n": {"$count": {}}}}},
                  {"$project": {"n": 1}}])",
              R"([{"_id": 1, "p": null}, {"_id": 2}, {"_id": 3, "p": 1}])"),
            canon_docs(docs_of(R"([{"_id": 1, "n": 2}, {"_id": 2, "n": 2}, {"_id": 3, "n": 1}])")));
}

TEST(AggWindow, MemoryLimit) {
  AggregationContext ctx;
  ctx.memory_limit_bytes = 1000;
  std::string docs = "[";
  for (int i = 0; i < 50; ++i)
    docs += std::string(i ? "," : "") + "{\"_id\": " + std::to_string(i) + "}";
  docs += "]";
  const char* p = R"([{"$setWindowFields": {"output": {"n": {"$count": {}}}}}])";
  EXPECT_EQ(RE(p, docs, nullptr, ctx), 292);
  ctx.allow_disk_use = true;  // it does not spill: a clear error instead of a silent overrun
  EXPECT_EQ(RE(p, docs, nullptr, ctx), 5414201);
}

TEST(AggWindow, Errors) {
  std::string msg;
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"output": {"x": {"$bogus": 1}}}}])", "[]", &msg), 9);
  EXPECT_EQ(msg, "Unrecognized window function, $bogus");
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"output": {"x": {"$rank": {}}}}}])"), 5371602);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1},
                   "output": {"x": {"$derivative": {"input": "$a"}}}}}])"),
            238);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"partitionBy": "$a"}}])"), 40414);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"output": {}, "bogus": 1}}])"), 40415);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1},
                   "output": {"x": {"$sum": 1, "window": {"documents": [1, 0]}}}}}])"),
            5339900);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {
                   "output": {"x": {"$sum": 1, "window": {"documents": [-1, 0]}}}}}])"),
            5339901);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1, "b": 1},
                   "output": {"x": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])"),
            5339902);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1},
                   "output": {"x": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])",
               R"([{"a": "text"}])"),
            5429414);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1},
                   "output": {"x": {"$rank": {}, "window": {"documents": [-1, 0]}}}}}])"),
            5371601);
  EXPECT_EQ(RE(R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": 1,
                   "window": {"range": [-1, 0], "unit": "month"}}}}}])"),
            238);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
