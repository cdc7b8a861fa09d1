// Checks of the spec runner itself: its matching rules, and that it reports mismatches as
// failures (a runner that passes everything would be worse than none).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "mongostore/bson/document.h"
#include "spec/match.h"
#include "spec/runner.h"
#include "spec/serve_target.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace mongostore::spec {
namespace {

using bson::Document;

// Matches {"v": expected} against {"v": actual} (so either may be any value).
std::optional<std::string> match(const std::string& expected, const std::string& actual,
                                 bool root = true) {
  Document e = Document::from_json("{\"v\": " + expected + "}");
  Document a = Document::from_json(actual.empty() ? "{}" : "{\"v\": " + actual + "}");
  return match_value(e.get("v"), a.get("v"), root, "");
}

std::optional<std::string> exact(const std::string& expected, const std::string& actual) {
  Document e = Document::from_json("{\"v\": " + expected + "}");
  Document a = Document::from_json("{\"v\": " + actual + "}");
  return exact_match(e.get("v"), a.get("v"), "");
}

TEST(SpecMatch, RootDocumentsAllowExtraFieldsNestedOnesDoNot) {
  EXPECT_FALSE(match(R"({"x": 1})", R"({"x": 1, "y": 2})"));
  EXPECT_TRUE(match(R"({"x": 1, "y": 2})", R"({"x": 1})"));
  EXPECT_TRUE(match(R"({"a": {"x": 1}})", R"({"a": {"x": 1, "y": 2}})"));
  EXPECT_TRUE(match(R"({"x": 1})", R"({"x": 1, "y": 2})", /*root=*/false));
  // An array of root-level documents (a find's result): each element is root-level.
  EXPECT_FALSE(match(R"([{"x": 1}])", R"([{"x": 1, "y": 2}])"));
  EXPECT_TRUE(match(R"([{"x": 1}])", R"([{"x": 1, "y": 2}])", /*root=*/false));
}

TEST(SpecMatch, KeyOrderDoesNotMatterAndNumbersCompareByValue) {
  EXPECT_FALSE(match(R"({"x": 1, "y": 2})", R"({"y": 2, "x": 1})"));
  EXPECT_FALSE(match("1", "1.0"));
  EXPECT_FALSE(match("1", R"({"$numberLong": "1"})"));
  EXPECT_TRUE(match("1", "1.5"));
  EXPECT_TRUE(match("1", R"("1")"));
  EXPECT_TRUE(match("null", ""));
  EXPECT_FALSE(match("null", "null"));
}

TEST(SpecMatch, ArraysMatchElementWiseWithEqualLength) {
  EXPECT_FALSE(match("[1, 2, 3]", "[1, 2, 3]"));
  EXPECT_TRUE(match("[1, 2, 3]", "[1, 2, 3, 4]"));
  EXPECT_TRUE(match("[1, 2, 3]", "[1, 3, 2]"));
  EXPECT_TRUE(match("[1]", R"({"0": 1})"));
}

TEST(SpecMatch, SpecialOperators) {
  EXPECT_FALSE(match(R"({"x": {"$$exists": true}})", R"({"x": null})"));
  EXPECT_TRUE(match(R"({"x": {"$$exists": true}})", R"({"y": 1})"));
  EXPECT_FALSE(match(R"({"x": {"$$exists": false}})", R"({"y": 1})"));
  EXPECT_TRUE(match(R"({"x": {"$$exists": false}})", R"({"x": 1})"));
  EXPECT_FALSE(match(R"({"x": {"$$unsetOrMatches": 1}})", R"({})"));
  EXPECT_FALSE(match(R"({"x": {"$$unsetOrMatches": 1}})", R"({"x": 1})"));
  EXPECT_TRUE(match(R"({"x": {"$$unsetOrMatches": 1}})", R"({"x": 2})"));
  EXPECT_FALSE(match(R"({"$$unsetOrMatches": {"a": 1}})", ""));
  EXPECT_FALSE(match(R"({"$$type": "objectId"})", R"({"$oid": "0123456789abcdef01234567"})"));
  EXPECT_FALSE(match(R"({"$$type": ["int", "long"]})", R"({"$numberLong": "5"})"));
  EXPECT_TRUE(match(R"({"$$type": "string"})", "5"));
  EXPECT_TRUE(match(R"({"$$type": "string"})", ""));
  EXPECT_FALSE(match(R"({"$$lte": 5})", "5"));
  EXPECT_TRUE(match(R"({"$$lte": 5})", "6"));
  EXPECT_FALSE(match(R"({"a": {"$$matchAsRoot": {"x": 1}}})", R"({"a": {"x": 1, "y": 2}})"));
  EXPECT_FALSE(match(R"({"$$matchAsDocument": {"x": 1}})", R"("{\"x\": 1}")"));
  EXPECT_TRUE(match(R"({"$$matchAsDocument": {"x": 1}})", R"("{\"x\": 1, \"y\": 2}")"));
  EXPECT_THROW(match(R"({"$$matchesEntity": "e"})", "1"), SkipTest);
}

TEST(SpecMatch, OutcomeComparisonIsExactButIgnoresKeyOrder) {
  EXPECT_FALSE(exact(R"({"_id": 1, "x": {"a": [1, 2]}})", R"({"x": {"a": [1, 2]}, "_id": 1})"));
  EXPECT_TRUE(exact(R"({"_id": 1})", R"({"_id": 1, "x": 1})"));
  EXPECT_TRUE(exact(R"({"_id": 1, "x": 1})", R"({"_id": 1})"));
  EXPECT_TRUE(exact(R"({"_id": 1})", R"({"_id": {"$numberLong": "1"}})"));
  EXPECT_TRUE(exact("[1, 2]", "[1, 2, 3]"));
}

// A unified-format file written for these checks (not taken from the specifications).
constexpr const char* kSelfTestFile = R"({
  "description": "runner self test",
  "schemaVersion": "1.0",
  "createEntities": [
    {"client": {"id": "client0", "observeEvents": ["commandStartedEvent"]}},
    {"database": {"id": "db0", "client": "client0", "databaseName": "self-db"}},
    {"collection": {"id": "coll0", "database": "db0", "collectionName": "c"}}
  ],
  "initialData": [
    {"collectionName": "c", "databaseName": "self-db", "documents": [{"_id": 1, "v": 1}]}
  ],
  "tests": [
    {"description": "passes",
     "operations": [
       {"object": "coll0", "name": "insertOne", "arguments": {"document": {"_id": 2, "v": 2}},
        "expectResult": {"insertedId": 2}},
       {"object": "coll0", "name": "find", "arguments": {"filter": {}},
        "expectResult": [{"_id": 1}, {"_id": 2, "v": 2}]}],
     "expectEvents": [{"client": "client0", "events": []}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db",
                  "documents": [{"_id": 1, "v": 1}, {"_id": 2, "v": 2}]}]},
    {"description": "wrong result",
     "operations": [{"object": "coll0", "name": "countDocuments", "arguments": {"filter": {}},
                     "expectResult": 7}]},
    {"description": "wrong outcome",
     "operations": [{"object": "coll0", "name": "deleteOne", "arguments": {"filter": {"_id": 1}},
                     "expectResult": {"deletedCount": 1}}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db",
                  "documents": [{"_id": 1, "v": 1}]}]},
    {"description": "missing error",
     "operations": [{"object": "coll0", "name": "deleteOne", "arguments": {"filter": {}},
                     "expectError": {"isError": true}}]},
    {"description": "expected error",
     "operations": [{"object": "coll0", "name": "insertOne", "arguments": {"document": {"_id": 1}},
                     "expectError": {"errorCode": 11000, "errorCodeName": "DuplicateKey",
                                     "errorResponse": {"keyValue": {"_id": 1}}}}]},
    {"description": "wrong error code",
     "operations": [{"object": "coll0", "name": "insertOne", "arguments": {"document": {"_id": 1}},
                     "expectError": {"errorCode": 2}}]},
    {"description": "too new", "runOnRequirements": [{"minServerVersion": "99.0"}],
     "operations": []},
    {"description": "unsupported option", "operations": [
       {"object": "coll0", "name": "deleteOne",
        "arguments": {"filter": {}, "rawData": true}}]},
    {"description": "watch", "operations": [
       {"object": "coll0", "name": "watch", "arguments": {}}]}
  ]
})";

TEST(SpecRunner, ReportsPassesFailuresAndSkips) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::string path = dir.sub("self.json");
  std::ofstream(path) << kSelfTestFile;
  FileResult r = run_spec_file(path);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.tests.size(), 9u);
  auto status = [&](size_t i) { return r.tests[i].status; };
  EXPECT_EQ(status(0), Status::kPassed) << r.tests[0].detail;
  EXPECT_EQ(status(1), Status::kFailed);
  EXPECT_EQ(status(2), Status::kFailed);
  EXPECT_NE(r.tests[2].detail.find("outcome"), std::string::npos) << r.tests[2].detail;
  EXPECT_EQ(status(3), Status::kFailed);
  EXPECT_EQ(status(4), Status::kPassed) << r.tests[4].detail;
  EXPECT_EQ(status(5), Status::kFailed);
  EXPECT_EQ(status(6), Status::kSkipped);
  EXPECT_EQ(status(7), Status::kSkipped);
  EXPECT_EQ(r.tests[7].detail, "option rawData not supported");
  EXPECT_EQ(status(8), Status::kSkipped);
  EXPECT_EQ(r.tests[8].detail, "operation watch not supported yet");
}

// bulkWrite and unordered insertMany, which run through client::bulk_write.
constexpr const char* kBulkSelfTestFile = R"({
  "description": "runner bulk self test",
  "schemaVersion": "1.0",
  "createEntities": [
    {"client": {"id": "client0"}},
    {"database": {"id": "db0", "client": "client0", "databaseName": "self-db"}},
    {"collection": {"id": "coll0", "database": "db0", "collectionName": "c"}}
  ],
  "initialData": [
    {"collectionName": "c", "databaseName": "self-db", "documents": [{"_id": 1, "v": 1}]}
  ],
  "tests": [
    {"description": "bulk passes",
     "operations": [{"object": "coll0", "name": "bulkWrite", "arguments": {"requests": [
         {"insertOne": {"document": {"_id": 2}}},
         {"updateOne": {"filter": {"_id": 1}, "update": {"$inc": {"v": 1}}}},
         {"replaceOne": {"filter": {"_id": 3}, "replacement": {"v": 3}, "upsert": true}},
         {"deleteMany": {"filter": {"_id": 2}}}]},
       "expectResult": {"insertedCount": 1, "matchedCount": 1, "modifiedCount": 1,
                        "deletedCount": 1, "upsertedCount": 1, "upsertedIds": {"2": 3},
                        "insertedIds": {"$$unsetOrMatches": {"0": 2}}}}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db",
                  "documents": [{"_id": 1, "v": 2}, {"_id": 3, "v": 3}]}]},
    {"description": "bulk wrong counts",
     "operations": [{"object": "coll0", "name": "bulkWrite", "arguments": {"requests": [
         {"deleteOne": {"filter": {"_id": 1}}}]},
       "expectResult": {"deletedCount": 2}}]},
    {"description": "unordered partial result",
     "operations": [{"object": "coll0", "name": "insertMany",
       "arguments": {"documents": [{"_id": 1}, {"_id": 2}], "ordered": false},
       "expectError": {"errorCode": 11000,
                       "expectResult": {"insertedCount": 1, "upsertedIds": {}}}}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db",
                  "documents": [{"_id": 1, "v": 1}, {"_id": 2}]}]},
    {"description": "wrong partial result",
     "operations": [{"object": "coll0", "name": "bulkWrite",
       "arguments": {"requests": [{"insertOne": {"document": {"_id": 1}}},
                                  {"insertOne": {"document": {"_id": 2}}}]},
       "expectError": {"isError": true, "expectResult": {"insertedCount": 1}}}]},
    {"description": "bulk unsupported option",
     "operations": [{"object": "coll0", "name": "bulkWrite", "arguments": {"requests": [
         {"deleteOne": {"filter": {}, "rawData": true}}]}}]},
    {"description": "partial result of a non-bulk operation",
     "operations": [{"object": "coll0", "name": "insertOne",
       "arguments": {"document": {"_id": 1}},
       "expectError": {"isError": true, "expectResult": {}}}]}
  ]
})";

TEST(SpecRunner, RunsBulkWritesAndChecksPartialResults) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::string path = dir.sub("bulk.json");
  std::ofstream(path) << kBulkSelfTestFile;
  FileResult r = run_spec_file(path);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.tests.size(), 6u);
  auto status = [&](size_t i) { return r.tests[i].status; };
  EXPECT_EQ(status(0), Status::kPassed) << r.tests[0].detail;
  EXPECT_EQ(status(1), Status::kFailed);
  EXPECT_EQ(status(2), Status::kPassed) << r.tests[2].detail;
  EXPECT_EQ(status(3), Status::kFailed);  // ordered: stops at _id 1, inserts nothing
  EXPECT_NE(r.tests[3].detail.find("insertedCount"), std::string::npos) << r.tests[3].detail;
  EXPECT_EQ(status(4), Status::kSkipped);
  EXPECT_EQ(r.tests[4].detail, "option rawData not supported");
  EXPECT_EQ(status(5), Status::kSkipped);
}

TEST(SpecMatch, SessionLsidMatchesTheSessionsLsidExactly) {
  Document lsid = Document::from_json(
      R"({"id": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}})");
  MatchContext context;
  context.session_lsid = [&](std::string_view id) -> std::optional<Document> {
    if (id == "session0") return lsid;
    return std::nullopt;
  };
  Document expected = Document::from_json(R"({"v": {"lsid": {"$$sessionLsid": "session0"}}})");
  Document same = bson::make_document("v", bson::make_document("lsid", lsid));
  EXPECT_FALSE(match_value(expected.get("v"), same.get("v"), true, "", &context));
  Document other = Document::from_json(
      R"({"v": {"lsid": {"id": {"$binary": {"base64": "AQAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}}}})");
  EXPECT_TRUE(match_value(expected.get("v"), other.get("v"), true, "", &context));
  Document missing = Document::from_json(R"({"v": {}})");
  EXPECT_TRUE(match_value(expected.get("v"), missing.get("v"), true, "", &context));
  // An unknown session, or no context at all: the test cannot be checked, so it skips.
  Document unknown = Document::from_json(R"({"v": {"lsid": {"$$sessionLsid": "session9"}}})");
  EXPECT_THROW(match_value(unknown.get("v"), same.get("v"), true, "", &context), SkipTest);
  EXPECT_THROW(match_value(expected.get("v"), same.get("v"), true, ""), SkipTest);
}

// Sessions and transactions: embedded (topology "single", nothing observed) and through
// `mongostore serve` (topology "replicaset", commands observed, fail points).
constexpr const char* kTransactionSelfTestFile = R"({
  "description": "runner transaction self test",
  "schemaVersion": "1.3",
  "createEntities": [
    {"client": {"id": "client0", "observeEvents": ["commandStartedEvent"]}},
    {"database": {"id": "db0", "client": "client0", "databaseName": "self-db"}},
    {"collection": {"id": "coll0", "database": "db0", "collectionName": "c"}},
    {"session": {"id": "session0", "client": "client0"}},
    {"session": {"id": "session1", "client": "client0"}}
  ],
  "initialData": [{"collectionName": "c", "databaseName": "self-db", "documents": []}],
  "tests": [
    {"description": "commit",
     "operations": [
       {"object": "session0", "name": "startTransaction"},
       {"object": "testRunner", "name": "assertSessionTransactionState",
        "arguments": {"session": "session0", "state": "starting"}},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session0", "document": {"_id": 1}}},
       {"object": "testRunner", "name": "assertSessionTransactionState",
        "arguments": {"session": "session0", "state": "in_progress"}},
       {"object": "session0", "name": "commitTransaction"},
       {"object": "testRunner", "name": "assertSessionTransactionState",
        "arguments": {"session": "session0", "state": "committed"}}],
     "expectEvents": [{"client": "client0", "events": [
       {"commandStartedEvent": {"command": {"insert": "c", "lsid": {"$$sessionLsid": "session0"},
          "txnNumber": {"$numberLong": "1"}, "startTransaction": true, "autocommit": false,
          "readConcern": {"$$exists": false}}, "commandName": "insert", "databaseName": "self-db"}},
       {"commandStartedEvent": {"command": {"commitTransaction": 1,
          "lsid": {"$$sessionLsid": "session0"}, "writeConcern": {"$$exists": false}},
          "commandName": "commitTransaction", "databaseName": "admin"}}]}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db", "documents": [{"_id": 1}]}]},
    {"description": "abort leaves nothing, so this outcome is wrong",
     "operations": [
       {"object": "session0", "name": "startTransaction"},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session0", "document": {"_id": 1}}},
       {"object": "session0", "name": "abortTransaction"}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db", "documents": [{"_id": 1}]}]},
    {"description": "wrong session in the events",
     "operations": [
       {"object": "session0", "name": "startTransaction"},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session0", "document": {"_id": 1}}},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session1", "document": {"_id": 2}}},
       {"object": "session0", "name": "commitTransaction"}],
     "expectEvents": [{"client": "client0", "events": [
       {"commandStartedEvent": {"command": {"lsid": {"$$sessionLsid": "session1"}}}},
       {"commandStartedEvent": {"command": {"lsid": {"$$sessionLsid": "session1"}}}},
       {"commandStartedEvent": {"command": {"lsid": {"$$sessionLsid": "session0"}}}}]}]},
    {"description": "an event too few",
     "operations": [
       {"object": "coll0", "name": "insertOne", "arguments": {"document": {"_id": 1}}}],
     "expectEvents": [{"client": "client0", "events": []}]},
    {"description": "fail point and labels",
     "operations": [
       {"object": "testRunner", "name": "failPoint", "arguments": {"client": "client0",
        "failPoint": {"configureFailPoint": "failCommand", "mode": {"times": 1},
                      "data": {"failCommands": ["insert"], "errorCode": 112}}}},
       {"object": "session0", "name": "startTransaction"},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session0", "document": {"_id": 1}},
        "expectError": {"errorCodeName": "WriteConflict",
                        "errorLabelsContain": ["TransientTransactionError"],
                        "errorLabelsOmit": ["UnknownTransactionCommitResult"]}},
       {"object": "session0", "name": "abortTransaction"}],
     "outcome": [{"collectionName": "c", "databaseName": "self-db", "documents": []}]},
    {"description": "a label that is not there",
     "operations": [
       {"object": "testRunner", "name": "failPoint", "arguments": {"client": "client0",
        "failPoint": {"configureFailPoint": "failCommand", "mode": {"times": 1},
                      "data": {"failCommands": ["insert"], "errorCode": 112}}}},
       {"object": "session0", "name": "startTransaction"},
       {"object": "coll0", "name": "insertOne",
        "arguments": {"session": "session0", "document": {"_id": 1}},
        "expectError": {"errorLabelsOmit": ["TransientTransactionError"]}}]},
    {"description": "needs a replica set", "runOnRequirements": [{"topologies": ["replicaset"]}],
     "operations": []}
  ]
})";

FileResult run_transaction_self_test(const Target& target) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::string path = dir.sub("txn.json");
  std::ofstream(path) << kTransactionSelfTestFile;
  return run_spec_file(path, target);
}

TEST(SpecRunner, RunsSessionsAndTransactionsEmbeddedAsSingleTopology) {
  FileResult r = run_transaction_self_test(Target{});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.tests.size(), 7u);
  auto status = [&](size_t i) { return r.tests[i].status; };
  EXPECT_EQ(status(0), Status::kPassed) << r.tests[0].detail;  // events not observed here
  EXPECT_EQ(status(1), Status::kFailed);
  EXPECT_NE(r.tests[1].detail.find("outcome"), std::string::npos) << r.tests[1].detail;
  EXPECT_EQ(status(2), Status::kPassed) << r.tests[2].detail;
  EXPECT_EQ(status(3), Status::kPassed) << r.tests[3].detail;
  EXPECT_EQ(status(4), Status::kSkipped);
  EXPECT_EQ(r.tests[4].detail, "failpoints need a server (configureFailPoint)");
  EXPECT_EQ(status(6), Status::kSkipped);
  EXPECT_NE(r.tests[6].detail.find("this runs on single"), std::string::npos) << r.tests[6].detail;
}

TEST(SpecRunner, ChecksEventsLabelsAndFailPointsThroughServeAsAReplicaSet) {
  testing::ServerProcess server({"--memory", "--enableTestCommands"});
  FileResult r = run_transaction_self_test(serve_target(server));
  ASSERT_EQ(r.error, "");
  for (const auto& t : r.tests) std::cout << t.description << ": " << t.detail << "\n";
  ASSERT_EQ(r.tests.size(), 7u);
  auto status = [&](size_t i) { return r.tests[i].status; };
  EXPECT_EQ(status(0), Status::kPassed) << r.tests[0].detail;
  EXPECT_EQ(status(1), Status::kFailed);
  EXPECT_EQ(status(2), Status::kFailed);
  EXPECT_NE(r.tests[2].detail.find("lsid of session1"), std::string::npos) << r.tests[2].detail;
  EXPECT_EQ(status(3), Status::kFailed);
  EXPECT_NE(r.tests[3].detail.find("expected 0 events, got 1"), std::string::npos)
      << r.tests[3].detail;
  EXPECT_EQ(status(4), Status::kPassed) << r.tests[4].detail;
  EXPECT_EQ(status(5), Status::kFailed);
  EXPECT_NE(r.tests[5].detail.find("did not expect the error label TransientTransactionError"),
            std::string::npos)
      << r.tests[5].detail;
  EXPECT_EQ(status(6), Status::kPassed) << r.tests[6].detail;
}

}  // namespace
}  // namespace mongostore::spec
