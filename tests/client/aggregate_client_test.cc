// Aggregation through the Client seam, on the engine's collections.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

TEST(AggregateClient, LoadForEventShapeKeepsTheArrayOnTheServer) {
  auto c = connect("embedded:memory");
  auto exes = c->database("harel").collection("executions");
  exes.insert_one(make_document("_id", "e1", "data", "{}", "processed", make_array("a", "b")));
  auto run = [&](const char* id, const char* event) {
    return exes
        .aggregate(
            {make_document("$match", make_document("_id", id)),
             make_document(
                 "$project",
                 make_document(
                     "data", 1, "hit",
                     make_document(
                         "$in",
                         make_array(event, make_document("$ifNull", make_array("$processed",
                                                                               make_array()))))))})
        ->to_vector();
  };
  auto hit = run("e1", "b");
  ASSERT_EQ(hit.size(), 1u);
  EXPECT_TRUE(hit[0].get("hit").as_bool());
  EXPECT_FALSE(hit[0].has("processed"));
  EXPECT_FALSE(run("e1", "zzz")[0].get("hit").as_bool());
  EXPECT_TRUE(run("missing", "b").empty());
}

TEST(AggregateClient, GroupLookupAndOut) {
  auto c = connect("embedded:memory");
  auto db = c->database("shop");
  auto orders = db.collection("orders");
  auto customers = db.collection("customers");
  customers.insert_many({make_document("_id", "ada", "city", "London"),
                         make_document("_id", "bob", "city", "Paris")});
  orders.insert_many({make_document("_id", 1, "customer", "ada", "total", 5),
                      make_document("_id", 2, "customer", "ada", "total", 7),
                      make_document("_id", 3, "customer", "bob", "total", 1)});
  auto totals =
      orders
          .aggregate({make_document("$group", make_document("_id", "$customer", "sum",
                                                            make_document("$sum", "$total"))),
                      make_document("$sort", make_document("_id", 1))})
          ->to_vector();
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0], make_document("_id", "ada", "sum", 12));
  auto joined =
      orders
          .aggregate(
              {make_document("$match", make_document("_id", 3)),
               make_document("$lookup", make_document("from", "customers", "localField", "customer",
                                                      "foreignField", "_id", "as", "who"))})
          ->to_vector();
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].get("who").as_array().get("0").as_document().get("city").as_string(),
            "Paris");
  auto out =
      orders.aggregate({make_document("$match", make_document("total", make_document("$gt", 4))),
                        make_document("$out", "big")});
  EXPECT_TRUE(out->exhausted());
  EXPECT_EQ(db.collection("big").count_documents(Document()), 2);
  EXPECT_THROW(orders.aggregate({make_document("$bogus", 1)}), Error);
}

}  // namespace
}  // namespace mongostore::client

namespace mongostore::client {
namespace {

// Issue 27: expressions compare strings under the collection's default collation, through
// the seam as in the engine.
TEST(AggregateClient, ExpressionsCompareUnderTheCollectionDefaultCollation) {
  auto c = connect("embedded:memory");
  auto db = c->database("db");
  CollectionOptions options;
  options.collation = make_document("locale", "en", "strength", 2);
  db.create_collection("names", options);
  auto names = db.collection("names");
  names.insert_one(make_document("_id", 1, "name", "Ada"));
  auto rows =
      names
          .aggregate({make_document(
              "$project", make_document("same", make_document("$eq", make_array("$name", "ADA"))))})
          ->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].get("same").as_bool());
  auto found = names
                   .find(make_document(
                       "$expr", make_document("$in", make_array("$name", make_array("ada")))))
                   ->to_vector();
  EXPECT_EQ(found.size(), 1u);
}

}  // namespace
}  // namespace mongostore::client
