// The limits the engine puts on untrusted input (docs/compatibility.md, "Limits"), through the
// embedded Client: nesting far past the limits fails with MongoDB's code instead of
// overflowing the stack, long pipelines and wide keys are refused, expressions cannot build
// unbounded values, results over 16 MB are errors, and the big inputs that used to be
// quadratic finish.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/utf8.h"
#include "mongostore/client/client.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"
#include "support/error_code.h"
#include "support/json.h"
#include "support/nested_bson.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;
using testing::code_of;
using testing::nested_document;
using testing::NestLevel;

using mongostore::testing::J;
using Stages = std::vector<Document>;

constexpr int kOverflow = 15;
constexpr size_t kHuge = 100000;  // levels: far past any stack a recursive walk could use

class InputLimits : public ::testing::Test {
 protected:
  void SetUp() override { coll_.insert_one(J(R"({"_id": 1, "s": "ab"})").view()); }
  std::shared_ptr<Client> client_ = connect("embedded:memory");
  Collection coll_ = client_->database("db").collection("c");
};

TEST_F(InputLimits, StoredDocumentsNestAtMostOneHundredLevels) {
  Document ok = nested_document({}, {{"a"}}, engine::kMaxStoredDocumentDepth);
  Document over = nested_document({}, {{"a"}}, engine::kMaxStoredDocumentDepth + 1);
  Document arrays = nested_document({}, {{"a", true}, {"0", true}}, 101);
  EXPECT_EQ(code_of([&] { coll_.insert_one(ok.view()); }), 0);
  EXPECT_EQ(code_of([&] { coll_.insert_one(over.view()); }), kOverflow);
  EXPECT_EQ(code_of([&] { coll_.insert_one(arrays.view()); }), kOverflow);
  Document huge = nested_document({}, {{"a"}}, kHuge);
  EXPECT_EQ(code_of([&] { coll_.insert_one(huge.view()); }), kOverflow);
  EXPECT_EQ(code_of([&] { coll_.replace_one(J(R"({"_id": 1})").view(), over.view()); }), kOverflow);
  EXPECT_EQ(code_of([&] { coll_.replace_one(J(R"({"_id": 7})").view(), over.view(), true); }),
            kOverflow);
  EXPECT_EQ(coll_.count_documents(J("{}").view()), 2);
}

TEST_F(InputLimits, AnUpdateCannotNestTheDocumentPastTheLimit) {
  // {$set: {a: ...}}: the value of `a` brings the stored document to the level count given.
  auto set_to_depth = [](size_t stored_levels) {
    return nested_document({{"$set"}}, {{"a"}}, stored_levels + 1);
  };
  EXPECT_EQ(code_of([&] { coll_.update_one(J(R"({"_id": 1})").view(), set_to_depth(100).view()); }),
            0);
  EXPECT_EQ(code_of([&] { coll_.update_one(J(R"({"_id": 1})").view(), set_to_depth(101).view()); }),
            kOverflow);
  EXPECT_EQ(
      code_of([&] { coll_.update_one(J(R"({"_id": 1})").view(), set_to_depth(kHuge).view()); }),
      kOverflow);
}

TEST_F(InputLimits, DeepFiltersFailWithOverflow) {
  Document deep_and = nested_document({}, {{"$and", true}, {"0"}}, kHuge);
  Document deep_elem = nested_document({}, {{"a"}, {"$elemMatch"}}, kHuge);
  Document deep_not = nested_document({}, {{"a"}, {"$not"}}, kHuge);
  for (const Document* f : {&deep_and, &deep_elem, &deep_not}) {
    EXPECT_EQ(code_of([&] { coll_.find(f->view())->to_vector(); }), kOverflow);
    EXPECT_EQ(code_of([&] { coll_.count_documents(f->view()); }), kOverflow);
    EXPECT_EQ(code_of([&] { coll_.delete_many(f->view()); }), kOverflow);
  }
  Document tree_40 = nested_document({}, {{"$and", true}, {"0"}}, 2 * 40);
  EXPECT_EQ(code_of([&] { coll_.find(tree_40.view())->to_vector(); }), 0);
}

TEST_F(InputLimits, DeepExpressionsAndStagesFailWithOverflow) {
  for (std::string op : {"$add", "$and", "$max", "$concatArrays"}) {
    Document project =
        nested_document({{"$project"}, {"r"}}, {{op, true}, {"0"}}, kHuge, "$literal");
    EXPECT_EQ(code_of([&] { coll_.aggregate(Stages{project})->to_vector(); }), kOverflow) << op;
    Document match = nested_document({{"$match"}, {"$expr"}}, {{op, true}, {"0"}}, kHuge);
    EXPECT_EQ(code_of([&] { coll_.find(match.get("$match").as_document())->to_vector(); }),
              kOverflow)
        << op;
    EXPECT_EQ(code_of([&] { coll_.update_one(J(R"({"_id": 1})").view(), Stages{project}); }),
              kOverflow)
        << op;
  }
  Document deep_match = nested_document({{"$match"}}, {{"$or", true}, {"0"}}, kHuge);
  EXPECT_EQ(code_of([&] { coll_.aggregate(Stages{deep_match})->to_vector(); }), kOverflow);
  // A nesting the limit allows still works.
  Document shallow =
      nested_document({{"$project"}, {"r"}}, {{"$add", true}, {"0"}}, 2 * 50, "$literal");
  auto out = coll_.aggregate(Stages{shallow})->to_vector();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get("r").number_as_double(), 1);
}

Stages add_fields_stages(size_t n) {
  return Stages(n, J(R"({"$addFields": {"n": 1}})"));
}

TEST_F(InputLimits, PipelinesHoldAtMostOneThousandStages) {
  EXPECT_EQ(coll_.aggregate(add_fields_stages(engine::kMaxPipelineLength))->to_vector().size(), 1u);
  EXPECT_EQ(code_of([&] {
              coll_.aggregate(add_fields_stages(engine::kMaxPipelineLength + 1))->to_vector();
            }),
            7749501);
  EXPECT_EQ(code_of([&] { coll_.aggregate(add_fields_stages(40000))->to_vector(); }), 7749501);
  // In a sub-pipeline too.
  bson::DocumentBuilder b;
  b.open_document("$facet");
  b.open_array("f");
  for (size_t i = 0; i <= engine::kMaxPipelineLength; ++i) b.push(J(R"({"$unwind": "$a"})"));
  b.close();
  b.close();
  Document facet = b.finish();
  EXPECT_EQ(code_of([&] { coll_.aggregate(Stages{facet})->to_vector(); }), 7749501);
}

// A $lookup whose pipeline is a $lookup ... `levels` deep; each pipeline also holds
// `padding` $addFields stages.
Document nested_lookups(int levels, size_t padding = 0) {
  Document inner = J(R"({"$limit": 1})");
  for (int i = 0; i < levels; ++i) {
    bson::DocumentBuilder b;
    b.open_document("$lookup");
    b.append("from", "c");
    b.open_array("pipeline");
    for (size_t k = 0; k < padding; ++k) b.push(J(R"({"$addFields": {"n": 1}})").view());
    b.push(inner.view());
    b.close();
    b.append("as", "x");
    b.close();
    inner = b.finish();
  }
  return inner;
}

TEST_F(InputLimits, SubPipelinesNestAtMostTwentyDeep) {
  EXPECT_EQ(
      coll_.aggregate(Stages{nested_lookups(engine::kMaxSubPipelineDepth)})->to_vector().size(),
      1u);
  EXPECT_EQ(
      code_of([&] {
        coll_.aggregate(Stages{nested_lookups(engine::kMaxSubPipelineDepth + 1)})->to_vector();
      }),
      232);
}

TEST_F(InputLimits, TheLongestPipelinesNestedTheDeepestRun) {
  // Twenty levels of pipelines of a thousand stages: the longest chain of stage sources the
  // limits allow, run on this thread's stack.
  auto out =
      coll_.aggregate(Stages{nested_lookups(engine::kMaxSubPipelineDepth, 999)})->to_vector();
  ASSERT_EQ(out.size(), 1u);
}

Document wide_key(size_t fields) {
  bson::DocumentBuilder b;
  for (size_t i = 0; i < fields; ++i) b.append("f" + std::to_string(i), 1);
  return b.finish();
}

TEST_F(InputLimits, IndexKeysAndSortsHoldAtMostThirtyTwoFields) {
  EXPECT_EQ(code_of([&] { coll_.create_index(wide_key(32).view()); }), 0);
  EXPECT_EQ(code_of([&] { coll_.create_index(wide_key(33).view()); }), 13103);
  EXPECT_EQ(code_of([&] { coll_.create_index(wide_key(kHuge).view()); }), 13103);
  Document sort = make_document("$sort", wide_key(33));
  EXPECT_EQ(code_of([&] { coll_.aggregate(Stages{sort})->to_vector(); }), 13103);
  FindOptions options;
  options.sort = wide_key(33);
  EXPECT_EQ(code_of([&] { coll_.find(J("{}").view(), options)->to_vector(); }), 13103);
}

int aggregate_code(Collection& coll, std::string_view stage) {
  return code_of([&] { coll.aggregate(Stages{J(stage)})->to_vector(); });
}

constexpr int kExceededMemoryLimit = 146;

TEST_F(InputLimits, RangeIsSizedBeforeItIsBuilt) {
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$range": [0, 100000000]}}})"),
            kExceededMemoryLimit);
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$range": [0, 2147483647]}}})"),
            kExceededMemoryLimit);
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$range": [0, 100000]}}})"), 0);
}

TEST_F(InputLimits, ReduceCannotGrowItsValuePastTheLimit) {
  coll_.insert_one(make_document("_id", 2, "big", std::string(1 << 20, 'x')).view());
  auto code_on_big = [&](std::string_view stage) {
    return code_of([&] {
      coll_.aggregate(Stages{J(R"({"$match": {"_id": 2}})"), J(stage)})->to_vector();
    });
  };
  // A string doubled 30 times (2 GB from "ab"; here from 1 MB, so the limit comes sooner).
  EXPECT_EQ(code_on_big(R"({"$project": {"r": {"$reduce": {
              "input": {"$range": [0, 30]}, "initialValue": "$big",
              "in": {"$concat": ["$$value", "$$value"]}}}}})"),
            kExceededMemoryLimit);
  // An array appended to itself.
  EXPECT_EQ(code_on_big(R"({"$project": {"r": {"$reduce": {
              "input": {"$range": [0, 40]}, "initialValue": ["$big"],
              "in": {"$concatArrays": ["$$value", "$$value"]}}}}})"),
            kExceededMemoryLimit);
  // A value nested one level deeper per step: past 200 levels, Overflow.
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$reduce": {
              "input": {"$range": [0, 5000]}, "initialValue": [], "in": ["$$value"]}}}})"),
            kOverflow);
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$reduce": {
              "input": {"$range": [0, 150]}, "initialValue": [], "in": ["$$value"]}}}})"),
            0);
}

TEST_F(InputLimits, StringOperatorsCannotBuildStringsPastTheLimit) {
  // One $concat of many large strings, and a $replaceAll that multiplies its input.
  std::string big(1 << 20, 'x');
  coll_.insert_one(make_document("_id", 2, "big", big).view());
  bson::DocumentBuilder b;
  b.open_document("$project");
  b.open_document("r");
  b.open_array("$concat");
  for (int i = 0; i < 200; ++i) b.push("$big");
  b.close();
  b.close();
  b.close();
  Document concat = b.finish();
  EXPECT_EQ(code_of([&] { coll_.aggregate(Stages{concat})->to_vector(); }), kExceededMemoryLimit);
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$replaceAll": {
              "input": "$big", "find": "x", "replacement": "$big"}}}})"),
            kExceededMemoryLimit);
}

TEST_F(InputLimits, AResultOverSixteenMegabytesIsAnError) {
  // 2,000,000 integers: within $range's memory limit, but a 26 MB document.
  EXPECT_EQ(aggregate_code(coll_, R"({"$project": {"r": {"$range": [0, 2000000]}}})"), 10334);
}

TEST_F(InputLimits, DistinctValuesMustFitInOneReply) {
  for (int i = 0; i < 20; ++i) {
    coll_.insert_one(make_document("_id", 10 + i, "big", std::string(1 << 20, 'a' + i)).view());
  }
  EXPECT_EQ(code_of([&] { coll_.distinct("big"); }), 17217);
  EXPECT_EQ(coll_.distinct("big", J(R"({"_id": {"$lt": 20}})").view()).size(), 10u);
}

TEST_F(InputLimits, AddToSetWithAHundredThousandValuesFinishes) {
  // Quadratic, this took minutes (10,000 values took 18.8 s); with a set it is immediate.
  bson::DocumentBuilder b;
  b.open_document("$addToSet");
  b.open_document("v");
  b.open_array("$each");
  for (int i = 0; i < 100000; ++i) b.push(int32_t{i % 50000});
  b.push("s");
  b.push(int64_t{7});  // equal to the int32 7 already there: not added
  b.push(7.0);
  b.close();
  b.close();
  b.close();
  Document update = b.finish();
  coll_.update_one(J(R"({"_id": 1})").view(), J(R"({"$set": {"v": [1, 2, "s"]}})").view());
  coll_.update_one(J(R"({"_id": 1})").view(), update.view());
  auto doc = coll_.find_one(J(R"({"_id": 1})").view());
  ASSERT_TRUE(doc);
  bson::DocumentView v = doc->get("v").as_array();
  EXPECT_EQ(v.count(), 50001u);  // 1, 2, "s", then 0 and 3..49999 in order of first occurrence
  auto it = v.begin();
  EXPECT_EQ(it->value.number_as_double(), 1);
  ++it;
  ++it;
  ++it;
  EXPECT_EQ(it->value.number_as_double(), 0);
}

TEST_F(InputLimits, PullAllOfAHundredThousandValuesFinishes) {
  bson::DocumentBuilder set;
  set.open_document("$set").open_array("v");
  for (int i = 0; i < 100000; ++i) set.push(int32_t{i});
  set.close().close();
  coll_.update_one(J(R"({"_id": 1})").view(), set.finish().view());
  bson::DocumentBuilder pull;
  pull.open_document("$pullAll").open_array("v");
  for (int i = 0; i < 100000; i += 2) pull.push(static_cast<double>(i));  // 2.0 equals 2
  pull.close().close();
  coll_.update_one(J(R"({"_id": 1})").view(), pull.finish().view());
  auto doc = coll_.find_one(J(R"({"_id": 1})").view());
  ASSERT_TRUE(doc);
  bson::DocumentView v = doc->get("v").as_array();
  EXPECT_EQ(v.count(), 50000u);
  EXPECT_EQ(v.begin()->value.number_as_double(), 1);
}

TEST_F(InputLimits, InWithAHundredThousandValuesFinishes) {
  bson::DocumentBuilder b;
  b.open_document("k").open_array("$in");
  for (int i = 100000; i-- > 0;) b.push(int32_t{i});
  b.close().close();
  Document filter = b.finish();
  for (int i = 0; i < 100; ++i) coll_.insert_one(make_document("_id", 10 + i, "k", i * 3).view());
  EXPECT_EQ(coll_.count_documents(filter.view()), 100);  // a collection scan
  coll_.create_index(J(R"({"k": 1})").view());
  EXPECT_EQ(coll_.find(filter.view())->to_vector().size(), 100u);  // index bounds per value
}

TEST_F(InputLimits, GroupWithAHundredThousandAccumulatorsParses) {
  bson::DocumentBuilder b;
  b.open_document("$group");
  b.append("_id", bson::Null{});
  for (int i = 0; i < 100000; ++i) {
    b.open_document("f" + std::to_string(i));
    b.append("$sum", 1);
    b.close();
  }
  b.close();
  Document group = b.finish();
  auto out = coll_.aggregate(Stages{group})->to_vector();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get("f99999").number_as_double(), 1);
}

TEST_F(InputLimits, RegexFlagErrorsNameTheWholeCharacter) {
  // "é" is two bytes; echoing only the first made the message invalid UTF-8.
  Document filter = make_document("s", make_document("$regex", "a", "$options", "\xC3\xA9"));
  try {
    coll_.find(filter.view())->to_vector();
    FAIL() << "expected BadValue";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 2);
    std::string what = e.what();
    EXPECT_EQ(bson::to_valid_utf8(what), what);
    EXPECT_NE(what.find("\xC3\xA9"), std::string::npos) << what;
  }
  try {
    coll_
        .aggregate(Stages{J(R"({"$project": {"r": {"$regexMatch": {
                      "input": "$s", "regex": "a", "options": "\u00e9"}}}})")})
        ->to_vector();
    FAIL() << "expected 51108";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 51108);
    std::string what = e.what();
    EXPECT_EQ(bson::to_valid_utf8(what), what);
    EXPECT_NE(what.find("\xC3\xA9"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace mongostore::client
