// What a keyset page costs (issue 24): with the index ensure_page_index creates, page 1 and
// page 1,000 of 100,000 records are index range scans that examine about the same number of
// keys and documents, and without it a page examines every matching record (asserted on
// explain's examined counts, never on time); and a query whose predicates are all on the
// server transfers only the page (Searcher::stats).
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/records/searcher.h"
#include "records/search_types.h"
#include "records/store_fixture.h"
#include "support/raw_records.h"

namespace mongostore::records::testing {
namespace {

#ifdef __SANITIZE_ADDRESS__
// Under ASan + UBSan (5-10x slower) the same shape with fewer pages, so CI stays in budget:
// page 1 against page 200 of 20,000.
constexpr int kRecords = 20'000;
#else
constexpr int kRecords = 100'000;  // page 1 against page 1,000
#endif
constexpr int64_t kPage = 100;
// The last page's offset, in pages.
constexpr int64_t kLastPage = kRecords / kPage - 1;

class PageCostContract : public StoreFixture {
 protected:
  PageCostContract() : StoreFixture("page_cost_test") {}

  // kRecords items, written as raw documents shaped like a saved one (saving 100,000 records
  // one by one would take most of a minute): rank = i % 1000 (100 ties each), null for one
  // record in ten.
  void fill(RecordStore& store) {
    Item first;
    first.name = "template";
    first.rank = 0;
    store.save(first);
    client::Collection items = coll(schema_of<Item>()->storage_name());
    bson::Document none;
    bson::Document model = *items.find_one(none.view());
    bson::DocumentView f = model.view().get("f").as_document();
    items.delete_many(none.view());
    mongostore::testing::insert_raw_records(items, model, kRecords, 1000,
                                            [&](int i, bson::DocumentBuilder& d) {
                                              for (const bson::Element& c : f) {
                                                if (c.key != "name" && c.key != "rank")
                                                  d.append(c.key, c.value);
                                              }
                                              d.append("name", "item" + std::to_string(i));
                                              if (i % 10 != 3)
                                                d.append("rank", static_cast<int64_t>(i % 1000));
                                            });
  }

  static Searcher query(RecordStore& store) {
    Searcher s = store.searcher();
    Var v = s.variable<Item>();
    s.output(v.field("name"), "name");
    s.output(v.field("rank"), "rank");
    return s;
  }

  struct Examined {
    int64_t keys = 0, docs = 0, finds = 0;
    bool sorted = false;  // some find sorted in memory
    std::vector<std::string> indexes;
  };
  static Examined examined(const std::vector<bson::Document>& explains) {
    Examined out;
    for (const bson::Document& e : explains) {
      bson::DocumentView stats = e.view().get("executionStats").as_document();
      int64_t n = 0;
      stats.get("totalKeysExamined").number_as_exact_int64(&n);
      out.keys += n;
      stats.get("totalDocsExamined").number_as_exact_int64(&n);
      out.docs += n;
      ++out.finds;
      bson::DocumentView plan =
          e.view().get("queryPlanner").as_document().get("winningPlan").as_document();
      if (plan.get("stage").as_string() == "SORT") out.sorted = true;
      bson::Value input = plan.get("inputStage");
      if (input.is_document() && !input.as_document().get("indexName").is_missing()) {
        out.indexes.emplace_back(input.as_document().get("indexName").as_string());
      }
    }
    return out;
  }

  // The token after the first `rows` rows, reached with the largest pages (a token does not
  // depend on the size of the page that made it).
  static std::string token_after(Searcher& s, const std::vector<PageOrder>& order, int64_t rows) {
    std::optional<std::string> token;
    while (rows > 0) {
      int64_t n = std::min<int64_t>(rows, 10'000);
      ResultPage p = s.page(n, order, token);
      EXPECT_EQ(static_cast<int64_t>(p.rows.size()), n);
      token = p.next;
      rows -= n;
    }
    return *token;
  }
};

TEST_P(PageCostContract, PageOneAndPageOneThousandExamineTheSameWithThePageIndex) {
  RecordStore store = open();
  fill(store);
  for (std::vector<PageOrder> order :
       {std::vector<PageOrder>{{"rank", false, Nulls::kLast}},
        std::vector<PageOrder>{{"rank", true, Nulls::kFirst}, {"name", false, Nulls::kFirst}}}) {
    SCOPED_TRACE(order.size());
    Searcher s = query(store);
    // Without the page index: the declared single-key index on rank cannot give the sid
    // tie-break, so the first page sorts every record of its first null group (90,000
    // known ranks, or 10,000 nulls first).
    Examined unindexed = examined(s.explain_page(kPage, order));
    EXPECT_TRUE(unindexed.sorted);
    EXPECT_GE(unindexed.docs, kRecords / 10);
    std::string index = s.ensure_page_index(order);
    EXPECT_EQ(index, s.ensure_page_index(order));  // idempotent
    std::string at_1000 = token_after(s, order, kPage * kLastPage);
    Examined first = examined(s.explain_page(kPage, order));
    Examined later = examined(s.explain_page(kPage, order, at_1000));
    for (const Examined* e : {&first, &later}) {
      EXPECT_FALSE(e->sorted);
      for (const std::string& name : e->indexes) EXPECT_EQ(name, index);
      EXPECT_EQ(e->indexes.size(), static_cast<size_t>(e->finds));
      // A page reads its size + 1 rows, and at most a key per range beyond them.
      EXPECT_LE(e->docs, kPage + 1);
      EXPECT_LE(e->keys, kPage + 1 + e->finds);
    }
    EXPECT_GE(later.docs, kPage);
    EXPECT_LE(std::abs(later.keys - first.keys), 2 * static_cast<int64_t>(order.size() + 2));

    // The pages read with the index are the pages read without it, in the same order.
    ResultPage page = s.page(kPage, order, at_1000);
    Searcher sorted = query(store);
    Var v(0, schema_of<Item>());
    for (const PageOrder& o : order) sorted.add_sort(v.field(o.name), o.descending, o.nulls);
    sorted.add_offset(kPage * kLastPage);
    sorted.set_limit(kPage);
    ResultSet expected = sorted.results();
    ASSERT_EQ(page.rows.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(page.rows[i]["name"].as<std::string>(), expected[i]["name"].as<std::string>()) << i;
    }
  }
}

TEST_P(PageCostContract, AServerSideQueryTransfersOnlyThePage) {
  RecordStore store = open();
  for (int i = 0; i < 50; ++i) {
    Item it;
    it.name = "item" + std::to_string(i);
    if (i % 7 != 0) it.rank = i % 5;
    it.ratio = Rational(i, 3);
    store.save(it);
  }
  Searcher s = query(store);
  Var v(0, schema_of<Item>());
  s.add(v.field("rank") >= 1);
  std::vector<PageOrder> order = {{"rank"}};
  s.ensure_page_index(order);
  ResultPage page = s.page(10, order);
  EXPECT_EQ(page.rows.size(), 10u);
  EXPECT_EQ(s.stats().rows_transferred, 11);  // the page and the row that says there is more
  EXPECT_GE(s.stats().queries, 1);
  page = s.page(10, order, page.next, /*include_total=*/true);
  EXPECT_EQ(s.stats().rows_transferred, 12);  // and the total's one row
  // Without the index the page is sorted on the server: still only the page is transferred.
  Searcher unnatural = query(store);
  unnatural.add(v.field("rank") >= 1);
  std::vector<PageOrder> two = {{"rank"}, {"name", false, Nulls::kLast}};
  unnatural.page(10, two);
  EXPECT_EQ(unnatural.stats().rows_transferred, 11);
  EXPECT_EQ(unnatural.stats().queries, 1);

  s.set_limit(5);
  EXPECT_EQ(s.results().size(), 5u);
  EXPECT_EQ(s.stats().rows_transferred, 5);
  EXPECT_EQ(s.count(), 34);  // 42 known ranks, 8 of them 0
  EXPECT_EQ(s.stats().rows_transferred, 1);

  // An exact comparison is verified on the client: its candidates are transferred.
  Searcher exact = query(store);
  exact.add(v.field("ratio").exact(CompareOp::kEq, Rational(2, 1)));
  ResultSet rows = exact.results();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GE(exact.stats().rows_transferred, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, PageCostContract, backend_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
