// FindCursor::next_batch_into (the batch PreparedFind::for_each visits): batch after batch,
// the same documents in the same order as next_batch() on a cursor of the same find, for index
// reads (exact and re-checked bounds, a multikey index deduplicated, an OR plan, `_id` bounds)
// with every kind of projection, skip, limit and batch sizes, and for the reads that make
// their own documents (collection scan, blocking sort). The batch's memory is reused across
// batches and a reused batch holds only the last batch.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/query/find_cursor.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/client/prepared_find.h"
#include "mongostore/engine/document_batch.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using mongostore::testing::J;

std::vector<std::string> json_of(const DocumentBatch& batch) {
  std::vector<std::string> out;
  batch.for_each([&](bson::DocumentView doc) { out.push_back(Document::copy_of(doc).to_json()); });
  return out;
}

std::vector<std::string> json_of(const std::vector<Document>& docs) {
  std::vector<std::string> out;
  for (const Document& d : docs) out.push_back(d.to_json());
  return out;
}

class FindBatchInto : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = client::connect("embedded:memory");
    for (int i = 0; i < 40; ++i) {
      bson::DocumentBuilder b;
      b.append("_id", "id" + std::to_string(100 + i))
          .append("n", i % 7)
          .append("f", i * 0.5)
          .append("tags", make_array(i % 3, i % 5, i % 3))  // repeated: deduplicated
          .append("sub", make_document("x", i, "y", std::string(static_cast<size_t>(i), 'y')))
          .append("pad", std::string(static_cast<size_t>(50 + i * 20), 'p'));
      items().insert_one(b.finish());
    }
    items().create_index(make_document("n", 1));
    items().create_index(make_document("f", 1));
    items().create_index(make_document("tags", 1));
  }
  client::Collection items() const { return client_->database("b").collection("items"); }

  // Reads the find with next_batch() and, on a second cursor, with next_batch_into() into
  // one reused batch; every batch must be the same.
  void expect_same_batches(const Document& filter, const client::FindOptions& options) {
    std::unique_ptr<Cursor> plain = items().find(filter, options);
    std::unique_ptr<Cursor> into = items().find(filter, options);
    auto* find = dynamic_cast<FindCursor*>(into.get());
    ASSERT_NE(find, nullptr);
    DocumentBatch batch;
    size_t batches = 0, documents = 0;
    while (!plain->exhausted()) {
      ASSERT_FALSE(find->exhausted()) << filter.to_json();
      const std::vector<std::string> expected = json_of(plain->next_batch());
      find->next_batch_into(batch);
      EXPECT_EQ(json_of(batch), expected) << filter.to_json() << " batch " << batches;
      EXPECT_EQ(batch.size(), expected.size());
      documents += expected.size();
      ++batches;
    }
    EXPECT_TRUE(find->exhausted()) << filter.to_json();
    find->next_batch_into(batch);  // past the end: empty
    EXPECT_TRUE(batch.empty());
    // Through PreparedFind::for_each, which reads with next_batch_into.
    std::vector<std::string> visited;
    items().prepare_find(filter, options).for_each([&](bson::DocumentView doc) {
      visited.push_back(Document::copy_of(doc).to_json());
    });
    EXPECT_EQ(visited, json_of(items().find(filter, options)->to_vector())) << filter.to_json();
    (void)documents;
  }

  std::shared_ptr<client::Client> client_;
};

TEST_F(FindBatchInto, SameBatchesAsNextBatch) {
  const std::vector<Document> filters = {
      J(R"({"n": {"$lte": 3}})"),                             // exact bounds
      J(R"({"n": {"$gte": 2, "$lt": 5}, "f": {"$gt": 3}})"),  // re-checked
      J(R"({"f": {"$lte": 12}})"),
      J(R"({"tags": {"$gte": 1}})"),                       // multikey, deduplicated
      J(R"({"tags": {"$gt": 0, "$lt": 4}})"),              // multikey, re-checked
      J(R"({"$or": [{"n": 1}, {"f": {"$gt": 15}}]})"),     // OR plan
      J(R"({"_id": {"$gte": "id110", "$lt": "id130"}})"),  // `_id` bounds
      J(R"({"_id": "id105"})"),                            // one `_id`
      J(R"({"sub.y": {"$exists": true}})"),                // collection scan
      J(R"({"n": 99})"),                                   // nothing
  };
  const std::vector<Document> projections = {
      Document(),                                 // identity
      J(R"({"n": 1, "pad": 1})"),                 // flat
      J(R"({"tags": 1, "_id": 0})"),              // flat without `_id`
      J(R"({"sub.x": 1})"),                       // tree
      J(R"({"pad": 0, "sub": 0})"),               // exclusion
      J(R"({"tags": {"$slice": 1}, "pad": 0})"),  // operator
  };
  struct Paging {
    int64_t skip, limit;
    int32_t batch_size;
  };
  const std::vector<Paging> pagings = {{0, 0, 0}, {0, 0, 1}, {3, 0, 4}, {2, 7, 3}, {0, 5, 101}};
  for (const Document& filter : filters) {
    for (const Document& projection : projections) {
      for (const Paging& paging : pagings) {
        client::FindOptions options;
        options.projection = projection;
        options.skip = paging.skip;
        options.limit = paging.limit;
        options.batch_size = paging.batch_size;
        SCOPED_TRACE(projection.to_json() + " skip " + std::to_string(paging.skip) + " limit " +
                     std::to_string(paging.limit) + " batch " + std::to_string(paging.batch_size));
        expect_same_batches(filter, options);
      }
    }
  }
}

// Sorted through the index, and a blocking sort (the whole result read on the first batch).
TEST_F(FindBatchInto, SortedFindsToo) {
  for (const char* sort : {R"({"n": -1})", R"({"pad": 1})"}) {
    client::FindOptions options;
    options.sort = J(sort);
    options.batch_size = 6;
    options.projection = J(R"({"n": 1, "f": 1})");
    SCOPED_TRACE(sort);
    expect_same_batches(J(R"({"n": {"$gte": 1}})"), options);
  }
}

// A batch reused for a smaller one holds only the smaller one.
TEST(DocumentBatch, ClearKeepsNothingButMemory) {
  DocumentBatch batch;
  const Document a = J(R"({"a": 1})"), b = J(R"({"b": "two"})");
  batch.append_copy(a.view());
  batch.append_copy(b.view());
  EXPECT_EQ(json_of(batch), (std::vector<std::string>{a.to_json(), b.to_json()}));
  batch.clear();
  EXPECT_TRUE(batch.empty());
  batch.append(Document::copy_of(b.view()));
  EXPECT_EQ(json_of(batch), (std::vector<std::string>{b.to_json()}));
}

// reserve() makes room for documents the size of those so far, but never guesses a large
// buffer: a batch whose first document is big grows by doubling.
TEST(DocumentBatch, ReservesOnlyForSmallDocuments) {
  DocumentBatch small;
  const Document a = J(R"({"a": "0123456789"})");
  small.append_copy(a.view());
  small.reserve(16);
  EXPECT_GE(small.capacity_bytes(), 16 * a.size());
  DocumentBatch large;
  bson::DocumentBuilder b;
  b.append("big", std::string(DocumentBatch::kReservedBytes, 'x'));
  const Document big = b.finish();
  large.append_copy(big.view());
  large.reserve(16);
  EXPECT_LT(large.capacity_bytes(), 4 * big.size());
  large.append_copy(big.view());
  EXPECT_EQ(large.size(), 2u);
}

}  // namespace
}  // namespace mongostore::engine
