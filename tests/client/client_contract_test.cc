// The Client seam's contract, written once and run per backend.
#include <gtest/gtest.h>

#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "support/backend.h"
#include "support/temp_dir.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

using testing::Backend;

class ClientContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
};

TEST_P(ClientContract, RoundTripThroughHandles) {
  auto coll = client_->database("shop").collection("orders");
  coll.insert_one(make_document("_id", 1, "total", 9.5));
  coll.insert_many({make_document("_id", 2), make_document("_id", 3)});
  EXPECT_EQ(coll.count_documents(Document()), 3);
  auto doc = coll.find_one(make_document("_id", 1));
  ASSERT_TRUE(doc);
  EXPECT_DOUBLE_EQ(doc->get("total").as_double(), 9.5);
  EXPECT_EQ(client_->list_database_names(), (std::vector<std::string>{"shop"}));
  EXPECT_EQ(client_->database("shop").list_collection_names(),
            (std::vector<std::string>{"orders"}));
  EXPECT_EQ(coll.replace_one(make_document("_id", 2), make_document("v", 1)).modified_count, 1);
  EXPECT_EQ(coll.delete_one(make_document("_id", 3)), 1);
  EXPECT_EQ(coll.count_documents(Document()), 2);
  EXPECT_TRUE(coll.drop());
  EXPECT_TRUE(client_->list_database_names().empty());
}

TEST_P(ClientContract, DuplicateKeyIsTyped) {
  auto coll = client_->database("db").collection("c");
  coll.insert_one(make_document("_id", "x"));
  EXPECT_THROW(coll.insert_one(make_document("_id", "x")), DuplicateKeyError);
}

TEST_P(ClientContract, InsertManyIsOrderedAndStopsAtTheFirstError) {
  auto coll = client_->database("db").collection("c");
  coll.insert_one(make_document("_id", 2));
  EXPECT_THROW(
      coll.insert_many({make_document("_id", 1), make_document("_id", 2), make_document("_id", 3)}),
      DuplicateKeyError);
  EXPECT_TRUE(coll.find_one(make_document("_id", 1)));
  EXPECT_FALSE(coll.find_one(make_document("_id", 3)));
}

TEST_P(ClientContract, UpsertByIdCreatesOnce) {
  auto coll = client_->database("db").collection("c");
  auto r = coll.replace_one(make_document("_id", "k"), make_document("n", 1), /*upsert=*/true);
  EXPECT_EQ(r.matched_count, 0);
  ASSERT_TRUE(r.upserted_id.has_value());
  EXPECT_EQ(r.upserted_id->view().as_string(), "k");
  r = coll.replace_one(make_document("_id", "k"), make_document("n", 2), true);
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_FALSE(r.upserted_id.has_value());
  EXPECT_EQ(coll.count_documents(Document()), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, ClientContract, testing::all_backends(),
                         testing::backend_test_name);

TEST(Connect, UrisAreDocumentedAndCheckedLoudly) {
  // Nothing listens on port 1: the first round trip fails with HostUnreachable once server
  // selection gives up, as a typed error rather than a hang or a crash.
  try {
    auto remote = connect("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200");
    EXPECT_EQ(remote->backend_name(), "remote");
    remote->ping();
    FAIL() << "ping of an unreachable server must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 6) << e.what();
  }
  EXPECT_THROW(connect("mongodb://127.0.0.1:notaport"), Error);
  EXPECT_THROW(connect("embedded:memory?bogus=1"), Error);
  EXPECT_THROW(connect("embedded:/tmp/x?durability=sometimes"), Error);
  EXPECT_THROW(connect(""), Error);
  auto memory = connect("embedded:memory");
  EXPECT_EQ(memory->backend_name(), "embedded");
  memory->ping();
}

TEST(Connect, JournaledDirectoryUri) {
  testing::TempDir dir;
  {
    auto c = connect("embedded:" + dir.sub("j") + "?durability=journaled");
    c->database("db").collection("c").insert_one(make_document("_id", 1));
  }
  auto c = connect(dir.sub("j"));  // a bare path means embedded:<path>
  EXPECT_EQ(c->database("db").collection("c").count_documents(Document()), 1);
}

}  // namespace
}  // namespace mongostore::client
