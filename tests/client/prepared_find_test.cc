// PreparedFind (mongostore/client/prepared_find.h) on every backend: each run returns what
// the plain find returns at that moment, whatever changed since it was prepared (documents,
// indexes, the collection dropped and created again under another default collation); a run
// with another filter keeps the projection and options; invalid specs fail with find's code;
// runs from several threads at once are independent.
#include <gtest/gtest.h>

#include <functional>
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

INSTANTIATE_TEST_SUITE_P(Backends, PreparedFindContract, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
