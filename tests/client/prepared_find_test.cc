// PreparedFind (mongostore/client/prepared_find.h) on every backend: each run returns what
// the plain find returns at that moment, whatever changed since it was prepared (documents,
// indexes, the collection dropped and created again under another default collation); a run
// with another filter keeps the projection and options; invalid specs fail with find's code;
// runs from several threads at once are independent; for_each visits, in order, the documents
// find returns (or, where asked and the projection only selects fields, the stored documents
// on the embedded backends), and a visitor's exception ends the run and propagates.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/prepared_find.h"
#include "mongostore/error.h"
#include "support/backend.h"
#include "support/error_code.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using testing::Backend;
using testing::code_of;

class PreparedFindContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  Collection items() const { return client_->database("prep").collection("items"); }
  static std::vector<std::string> ids(std::unique_ptr<Cursor> cursor) {
    std::vector<std::string> out;
    for (const Document& d : cursor->to_vector()) out.push_back(d.to_json());
    return out;
  }

  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
};

TEST_P(PreparedFindContract, EachRunSeesTheCollectionAsItIsThen) {
  FindOptions options;
  options.projection = make_document("n", 1, "_id", 0);
  options.sort = make_document("n", 1);
  PreparedFind low = items().prepare_find(make_document("n", make_document("$lte", 2)), options);
  EXPECT_TRUE(ids(low.find()).empty());
  items().insert_one(make_document("_id", 1, "n", 2, "x", "a"));
  items().insert_one(make_document("_id", 2, "n", 1, "x", "b"));
  items().insert_one(make_document("_id", 3, "n", 3, "x", "c"));
  std::vector<std::string> expected = {R"({ "n" : 1 })", R"({ "n" : 2 })"};
  EXPECT_EQ(ids(low.find()), expected);
  EXPECT_EQ(ids(low.find()), ids(items().find(low.filter(), options)));
  // An index created after it was prepared: same results.
  items().create_index(make_document("n", 1));
  EXPECT_EQ(ids(low.find()), expected);
  items().delete_one(make_document("_id", 2));
  EXPECT_EQ(ids(low.find()), std::vector<std::string>{R"({ "n" : 2 })"});
}

TEST_P(PreparedFindContract, ARunWithAnotherFilterKeepsProjectionAndOptions) {
  for (int i = 1; i <= 5; ++i) items().insert_one(make_document("_id", i, "n", i, "x", "y"));
  FindOptions options;
  options.projection = make_document("n", 1);
  options.sort = make_document("n", -1);
  options.limit = 2;
  PreparedFind prepared =
      items().prepare_find(make_document("n", make_document("$lte", 0)), options);
  EXPECT_TRUE(ids(prepared.find()).empty());
  std::vector<std::string> expected = {R"({ "_id" : 4, "n" : 4 })", R"({ "_id" : 3, "n" : 3 })"};
  EXPECT_EQ(ids(prepared.find(make_document("n", make_document("$lte", 4)))), expected);
  // The prepared filter is still the prepared one.
  EXPECT_TRUE(ids(prepared.find()).empty());
}

TEST_P(PreparedFindContract, APositionalProjectionFollowsTheFilterOfTheRun) {
  items().insert_one(make_document("_id", 1, "a", make_array(1, 5, 9)));
  FindOptions options;
  options.projection = make_document("a.$", 1);
  PreparedFind prepared = items().prepare_find(make_document("a", 5), options);
  EXPECT_EQ(ids(prepared.find()), std::vector<std::string>{R"({ "_id" : 1, "a" : [ 5 ] })"});
  EXPECT_EQ(ids(prepared.find(make_document("a", 9))),
            std::vector<std::string>{R"({ "_id" : 1, "a" : [ 9 ] })"});
}

TEST_P(PreparedFindContract, ADefaultCollationGivenAfterPreparingApplies) {
  items().insert_one(make_document("_id", 1, "s", "abc"));
  PreparedFind prepared = items().prepare_find(make_document("s", "ABC"));
  EXPECT_TRUE(ids(prepared.find()).empty());
  // Dropped and created again, case-insensitive by default: the plain find now matches.
  items().drop();
  CollectionOptions create;
  create.collation = make_document("locale", "en", "strength", 2);
  client_->database("prep").create_collection("items", create);
  items().insert_one(make_document("_id", 1, "s", "abc"));
  EXPECT_EQ(ids(items().find(make_document("s", "ABC"))).size(), 1u);
  EXPECT_EQ(ids(prepared.find()).size(), 1u);
  EXPECT_EQ(ids(prepared.find(make_document("s", "aBc"))).size(), 1u);
}

// While its kept plan's collection is the one the name resolves to, the embedded backend takes
// the default collation from it instead of the catalog: after a drop the collection created
// again (under another default, then under none) must be the one whose collation applies.
TEST_P(PreparedFindContract, AKeptPlanFollowsTheDefaultCollationOfTheCollectionNow) {
  auto fill = [&] {
    items().create_index(make_document("s", 1));
    items().insert_one(make_document("_id", 1, "s", "abc"));
  };
  fill();
  PreparedFind prepared = items().prepare_find(make_document("s", "ABC"));
  EXPECT_TRUE(ids(prepared.find()).empty());
  EXPECT_TRUE(ids(prepared.find()).empty());  // the kept plan
  items().drop();
  CollectionOptions create;
  create.collation = make_document("locale", "en", "strength", 2);
  client_->database("prep").create_collection("items", create);
  fill();
  EXPECT_EQ(ids(prepared.find()).size(), 1u);
  EXPECT_EQ(ids(prepared.find()).size(), 1u);
  EXPECT_EQ(ids(prepared.find(make_document("s", "aBc"))).size(), 1u);
  items().drop();
  fill();
  EXPECT_TRUE(ids(prepared.find()).empty());
  EXPECT_TRUE(ids(prepared.find()).empty());  // kept again, on the new collection
  EXPECT_TRUE(ids(prepared.find(make_document("s", "aBc"))).empty());
  EXPECT_EQ(ids(prepared.find(make_document("s", "abc"))).size(), 1u);
}

// The embedded backend keeps the plan of the prepared filter between runs: it must not
// outlive what it was made from. An index that turns multikey after a run changes the bounds
// a range may use ({a: [0, 5]} matches {$gte: 1, $lte: 2} with no key in [1, 2]); a dropped
// index must not be read (QueryPlanKilled); a new one is used.
TEST_P(PreparedFindContract, AKeptPlanFollowsIndexChanges) {
  items().create_index(make_document("a", 1));
  items().insert_one(make_document("_id", 1, "a", 1.5));
  PreparedFind range =
      items().prepare_find(make_document("a", make_document("$gte", 1, "$lte", 2)));
  EXPECT_EQ(ids(range.find()).size(), 1u);
  EXPECT_EQ(ids(range.find()).size(), 1u);  // the kept plan
  items().insert_one(make_document("_id", 2, "a", make_array(0, 5)));
  EXPECT_EQ(ids(range.find()).size(), 2u);
  EXPECT_EQ(ids(range.find()), ids(items().find(range.filter())));
  items().drop_index(make_document("a", 1));
  EXPECT_EQ(ids(range.find()).size(), 2u);
  items().create_index(make_document("a", -1));
  EXPECT_EQ(ids(range.find()).size(), 2u);
  EXPECT_EQ(ids(range.find()).size(), 2u);
  // Dropped and created again: the kept plan's collection is gone.
  items().drop();
  items().insert_one(make_document("_id", 3, "a", 1));
  EXPECT_EQ(ids(range.find()), std::vector<std::string>{R"({ "_id" : 3, "a" : 1 })"});
}

TEST_P(PreparedFindContract, InvalidSpecsFailWithFindsCodes) {
  items().insert_one(make_document("_id", 1));
  auto run = [&](Document filter, FindOptions options) {
    return code_of([&] { items().prepare_find(filter, options).find()->to_vector(); });
  };
  FindOptions mixed;
  mixed.projection = make_document("a", 1, "b", 0);
  EXPECT_EQ(run(make_document(), mixed), 31254);
  EXPECT_EQ(run(make_document("a", make_document("$nope", 1)), FindOptions{}),
            static_cast<int32_t>(ErrorCode::kBadValue));
  FindOptions negative;
  negative.skip = -1;
  EXPECT_NE(run(make_document(), negative), 0);
}

TEST_P(PreparedFindContract, RunsFromSeveralThreadsAreIndependent) {
  for (int i = 0; i < 20; ++i) items().insert_one(make_document("_id", i, "n", i % 4));
  FindOptions options;
  options.projection = make_document("n", 1);
  options.batch_size = 3;  // several batches per run
  const PreparedFind prepared = items().prepare_find(make_document("n", 0), options);
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 25; ++run) {
        std::unique_ptr<Cursor> cursor =
            run % 2 == 0 ? prepared.find() : prepared.find(make_document("n", t));
        if (cursor->to_vector().size() != 5) ++bad[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(bad, std::vector<int>(4, 0));
}

// What for_each visits, as JSON, in order (each view read during its call only).
std::vector<std::string> visited(const PreparedFind& prepared, const Document* filter = nullptr) {
  std::vector<std::string> out;
  auto visit = [&](bson::DocumentView doc) { out.push_back(Document::copy_of(doc).to_json()); };
  if (filter != nullptr) {
    prepared.for_each(filter->view(), visit);
  } else {
    prepared.for_each(visit);
  }
  return out;
}

TEST_P(PreparedFindContract, ForEachVisitsWhatFindReturns) {
  for (int i = 0; i < 12; ++i) {
    items().insert_one(make_document("_id", i, "n", i % 5, "x", "v" + std::to_string(i)));
  }
  items().create_index(make_document("n", 1));
  struct Shape {
    Document filter;
    Document projection;
    Document sort;
    int64_t skip = 0;
    int64_t limit = 0;
    size_t batch_size = 101;
  };
  const std::vector<Shape> shapes = {
      {make_document(), {}, {}},
      {make_document("n", make_document("$lte", 2)), make_document("n", 1), {}},
      {make_document("n", make_document("$gte", 1)), make_document("x", 1, "_id", 0),
       make_document("x", -1), 1, 5},
      {make_document("x", make_document("$in", make_array("v1", "v7", "v9"))),
       {},
       make_document("_id", -1)},
      {make_document("n", 9), {}, {}},  // nothing
      {make_document(), make_document("x", 0), make_document("n", 1, "_id", 1), 0, 0,
       2},  // batches
      {make_document("n", make_document("$lt", 4)), {}, {}, 2, 3, 1},
  };
  for (const Shape& shape : shapes) {
    FindOptions options;
    options.projection = shape.projection;
    options.sort = shape.sort;
    options.skip = shape.skip;
    options.limit = shape.limit;
    options.batch_size = shape.batch_size;
    const PreparedFind prepared = items().prepare_find(shape.filter, options);
    const std::vector<std::string> expected = ids(items().find(shape.filter, options));
    EXPECT_EQ(visited(prepared), expected) << shape.filter.to_json();
    // With another filter in place of the prepared one: the same projection and options.
    const Document other = make_document("n", make_document("$lte", 3));
    EXPECT_EQ(visited(prepared, &other), ids(items().find(other, options)))
        << shape.filter.to_json();
  }
}

TEST_P(PreparedFindContract, StoredDocumentsAreVisitedOnlyWhereAskedAndTheProjectionSelects) {
  for (int i = 0; i < 6; ++i) {
    items().insert_one(make_document("_id", i, "n", i % 3, "x", "v" + std::to_string(i), "a",
                                     make_array(1, 2, 3)));
  }
  items().create_index(make_document("n", 1));
  const bool embedded = GetParam() != Backend::kRemote;
  const Document filter = make_document("n", make_document("$lte", 1));
  const Document other = make_document("n", 2);
  FindOptions sorted;
  sorted.sort = make_document("_id", 1);
  const std::vector<std::string> stored = ids(items().find(filter, sorted));
  const std::vector<std::string> stored_other = ids(items().find(other, sorted));
  struct Case {
    Document projection;
    bool selects;  // only keeps or drops fields
  };
  for (const Case& c : std::vector<Case>{
           {make_document("n", 1, "x", true), true},
           {make_document("x", 0, "_id", false), true},
           {make_document("n", 1, "a", make_document("$slice", 1)), false},
           {make_document("n", 1, "a", make_document("$elemMatch", make_document("$gt", 1))),
            false},
       }) {
    SCOPED_TRACE(c.projection.to_json());
    FindOptions options = sorted;
    options.projection = c.projection;
    const PreparedFind as_found = items().prepare_find(filter, options);
    const PreparedFind as_stored =
        items().prepare_find(filter, options, VisitedDocuments::kStoredWhenOnlySelecting);
    const std::vector<std::string> projected = ids(items().find(filter, options));
    const std::vector<std::string> projected_other = ids(items().find(other, options));
    ASSERT_EQ(projected.size(), 4u);
    ASSERT_NE(projected, stored);
    EXPECT_EQ(visited(as_found), projected);
    // find() returns what the plain find returns whatever the visitor was promised.
    EXPECT_EQ(ids(as_stored.find()), projected);
    EXPECT_EQ(ids(as_stored.find(other)), projected_other);
    const bool whole = embedded && c.selects;
    EXPECT_EQ(visited(as_stored), whole ? stored : projected);
    EXPECT_EQ(visited(as_stored, &other), whole ? stored_other : projected_other);
  }
}

TEST_P(PreparedFindContract, AVisitorsExceptionEndsTheRunAndPropagates) {
  for (int i = 0; i < 10; ++i) items().insert_one(make_document("_id", i));
  FindOptions options;
  options.batch_size = 3;  // thrown with batches still to read: the cursor is closed
  const PreparedFind prepared = items().prepare_find(make_document(), options);
  int calls = 0;
  EXPECT_THROW(prepared.for_each([&](bson::DocumentView doc) {
    ++calls;
    if (doc.get("_id").as_int32() == 4) throw std::runtime_error("visitor");
  }),
               std::runtime_error);
  EXPECT_EQ(calls, 5);
  // The client and the prepared find work on.
  EXPECT_EQ(visited(prepared).size(), 10u);
  items().insert_one(make_document("_id", 10));
  EXPECT_EQ(items().count_documents(make_document()), 11);
}

TEST_P(PreparedFindContract, ForEachFailsWithFindsErrors) {
  items().insert_one(make_document("_id", 1, "a", 1));
  // An error of the run itself (here the plain find's; on the remote backend also the
  // invalid spec, found at the first run): thrown from for_each, the visitor never called.
  FindOptions options;
  options.projection = make_document("a", 1);
  const PreparedFind prepared = items().prepare_find(make_document("a", 1), options);
  int calls = 0;
  EXPECT_EQ(code_of([&] {
              prepared.for_each(make_document("a", make_document("$nope", 1)),
                                [&](bson::DocumentView) { ++calls; });
            }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(calls, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, PreparedFindContract, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
