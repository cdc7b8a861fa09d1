// PreparedFind::for_each on the embedded engine reads into a batch buffer the thread keeps
// between runs: a run inside another's visitor (the same prepared find or another), a run
// after a visitor's exception and a run whose batch outgrew what is kept each visit exactly
// what find returns.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/client/prepared_find.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

class PreparedFindNested : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = connect("embedded:memory");
    for (int i = 0; i < 30; ++i) {
      items().insert_one(make_document("_id", i, "n", i % 4, "big",
                                       std::string(static_cast<size_t>(i) * 4000, 'b')));
    }
    items().create_index(make_document("n", 1));
  }
  Collection items() const { return client_->database("nest").collection("items"); }
  std::vector<std::string> found(const Document& filter, const FindOptions& options) const {
    std::vector<std::string> out;
    for (const Document& d : items().find(filter, options)->to_vector()) out.push_back(d.to_json());
    return out;
  }
  static std::vector<std::string> visited(const PreparedFind& p, const Document& filter) {
    std::vector<std::string> out;
    p.for_each(filter.view(),
               [&](bson::DocumentView d) { out.push_back(Document::copy_of(d).to_json()); });
    return out;
  }

  std::shared_ptr<Client> client_;
};

TEST_F(PreparedFindNested, RunsInsideAVisitorSeeTheirOwnDocuments) {
  FindOptions small;
  small.projection = make_document("n", 1);
  small.batch_size = 3;
  const PreparedFind outer =
      items().prepare_find(make_document("n", make_document("$lte", 1)), small);
  const PreparedFind inner = items().prepare_find(make_document("n", 2), small);
  const std::vector<std::string> inner_expected = found(make_document("n", 2), small);
  std::vector<std::string> outer_seen;
  outer.for_each([&](bson::DocumentView d) {
    outer_seen.push_back(Document::copy_of(d).to_json());
    EXPECT_EQ(visited(inner, make_document("n", 2)), inner_expected);
    // The same prepared find, run again inside its own visitor.
    EXPECT_EQ(visited(outer, make_document("n", 3)), found(make_document("n", 3), small));
  });
  EXPECT_EQ(outer_seen, found(make_document("n", make_document("$lte", 1)), small));
}

TEST_F(PreparedFindNested, LargeBatchesAndExceptionsLeaveLaterRunsRight) {
  FindOptions whole;  // no projection: documents up to ~116 KB, batches far past what is kept
  const PreparedFind all =
      items().prepare_find(make_document("n", make_document("$gte", 0)), whole);
  const Document any = make_document("n", make_document("$gte", 0));
  EXPECT_EQ(visited(all, any), found(any, whole));
  int calls = 0;
  EXPECT_THROW(all.for_each([&](bson::DocumentView) {
    if (++calls == 5) throw std::runtime_error("visitor");
  }),
               std::runtime_error);
  FindOptions small;
  small.projection = make_document("n", 1);
  const PreparedFind few = items().prepare_find(make_document("n", 1), small);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(visited(few, make_document("n", 1)), found(make_document("n", 1), small));
    EXPECT_EQ(visited(all, any), found(any, whole));
  }
}

}  // namespace
}  // namespace mongostore::client
