// Keyset paging (reference §9 "Keyset paging", §13 item 13) on every backend: pages forward
// and backward stop at the ends and agree with a sorted result set, rows inserted while
// paging neither repeat nor hide a pre-existing row, tokens are strict and bound to their
// query, and anchors on the document's own keys are real values.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "mongostore/records/searcher.h"
#include "records/page_token.h"
#include "records/search_types.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {
namespace {

class PagingContract : public StoreFixture {
 protected:
  PagingContract() : StoreFixture("paging_test") {}

  void fill(RecordStore& store, int n) {
    for (int i = 0; i < n; ++i) {
      Item it;
      it.name = "item" + std::to_string(i);
      if (i % 5 != 3) it.rank = (i * 7) % 6;  // duplicates and nulls
      if (i % 4 != 0) it.score = (i % 3) * 0.5;
      store.save(it);
    }
  }

  static Searcher query(RecordStore& store, SearchOptions options = {}) {
    Searcher s = store.searcher(options);
    Var v = s.variable<Item>();
    s.output(v.field("name"), "name");
    s.output(v.field("rank"), "rank");
    s.output(v.field("score"), "score");
    s.output(v.sid(), "sid");
    s.output(v.store_timestamp(), "ts");
    s.output(v.logical_id(), "lid");
    s.output(v.content_id(), "cid");
    return s;
  }

  static std::vector<std::string> names(const ResultSet& rows) {
    std::vector<std::string> out;
    for (const ResultRow& r : rows) out.push_back(r["name"].as<std::string>());
    return out;
  }

  // The JSON inside a token.
  static std::string token_json(const std::string& token) {
    std::string json;
    EXPECT_TRUE(base64url_decode(token, &json));
    return json;
  }
};

TEST_P(PagingContract, PagesForwardAndBackwardAgreeWithTheSortedResultsAndStopAtTheEnds) {
  RecordStore store = open();
  fill(store, 23);
  for (auto [descending, nulls] : {std::pair{false, Nulls::kLast}, std::pair{true, Nulls::kFirst},
                                   std::pair{true, Nulls::kLast}}) {
    Searcher sorted = query(store);
    Var v(0, schema_of<Item>());
    sorted.add_sort(v.field("rank"), descending, nulls);
    sorted.add_sort(v.field("score"), !descending, Nulls::kFirst);
    std::vector<std::string> expected = names(sorted.results());
    ASSERT_EQ(expected.size(), 23u);

    std::vector<PageOrder> order = {{"rank", descending, nulls},
                                    {"score", !descending, Nulls::kFirst}};
    Searcher pager = query(store);
    std::vector<std::string> forward;
    std::vector<std::optional<std::string>> previous_tokens;
    ResultPage page = pager.page(5, order, std::nullopt, true);
    EXPECT_EQ(page.total, 23);
    EXPECT_FALSE(page.previous);
    int pages = 1;
    for (;;) {
      for (const auto& n : names(page.rows)) forward.push_back(n);
      if (!page.next) break;
      page = pager.page(5, order, page.next);
      EXPECT_TRUE(page.previous);
      ++pages;
    }
    EXPECT_EQ(pages, 5);
    EXPECT_EQ(forward, expected);
    // Back from the last page: the same pages, in display order, until the first.
    std::vector<std::string> backward = names(page.rows);
    while (page.previous) {
      page = pager.page(5, order, page.previous);
      EXPECT_TRUE(page.next);
      std::vector<std::string> here = names(page.rows);
      backward.insert(backward.begin(), here.begin(), here.end());
    }
    EXPECT_EQ(backward, expected);
    EXPECT_EQ(names(page.rows), std::vector<std::string>(expected.begin(), expected.begin() + 5));
  }
}

TEST_P(PagingContract, RowsInsertedWhilePagingNeitherRepeatNorHideExistingRows) {
  RecordStore store = open();
  fill(store, 30);
  std::set<std::string> before;
  for (const auto& n : names(query(store).results())) before.insert(n);
  Searcher pager = query(store);
  std::vector<PageOrder> order = {{"rank", false, Nulls::kLast}};
  std::map<std::string, int> seen;
  ResultPage page = pager.page(4, order);
  int round = 0;
  for (;;) {
    for (const auto& n : names(page.rows)) ++seen[n];
    // Insert rows on both sides of the anchor.
    for (int64_t r : {int64_t{0}, int64_t{3}, int64_t{5}}) {
      Item it;
      it.name = "new" + std::to_string(round) + "_" + std::to_string(r);
      it.rank = r;
      store.save(it);
    }
    ++round;
    if (!page.next) break;
    page = pager.page(4, order, page.next);
  }
  for (const auto& n : before) EXPECT_EQ(seen[n], 1) << n;
  for (const auto& [n, c] : seen) EXPECT_EQ(c, 1) << n;
}

TEST_P(PagingContract, TokensAreStrictAndBoundToTheirQuery) {
  RecordStore store = open();
  fill(store, 12);
  std::vector<PageOrder> order = {{"rank"}};
  Searcher pager = query(store);
  ResultPage first = pager.page(3, order);
  ASSERT_TRUE(first.next);
  const std::string token = *first.next;
  EXPECT_NO_THROW(pager.page(3, order, token));

  // Another query (a condition, another order, other outputs, another page option) refuses it.
  Searcher other = query(store);
  Var v(0, schema_of<Item>());
  other.add(v.field("rank") >= 0);
  EXPECT_THROW(other.page(3, order, token), PaginationCursorError);
  EXPECT_THROW(pager.page(3, {{"rank", true}}, token), PaginationCursorError);
  EXPECT_THROW(pager.page(3, {{"rank", false, Nulls::kFirst}}, token), PaginationCursorError);
  Searcher latest = query(store, {.only_latest = true});
  EXPECT_THROW(latest.page(3, order, token), PaginationCursorError);

  // Tampering: any changed character, garbage, padding, oversize.
  for (size_t i = 0; i < token.size(); i += 7) {
    std::string t = token;
    t[i] = t[i] == 'A' ? 'B' : 'A';
    EXPECT_THROW(pager.page(3, order, t), PaginationCursorError) << i;
  }
  EXPECT_THROW(pager.page(3, order, std::string("")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, std::string("!!!!")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, token + "="), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, std::string(20000, 'A')), PaginationCursorError);

  // A well-formed token with the right fingerprint but a mistyped or forged anchor.
  std::string json = token_json(token);
  auto forged = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    size_t at = j.find(from);
    EXPECT_NE(at, std::string::npos) << j;
    j.replace(at, from.size(), to);
    return base64url_encode(j);
  };
  EXPECT_THROW(pager.page(3, order, forged("\"type\":\"int\"", "\"type\":\"str\"")),
               PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("\"v\":2", "\"v\":3")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("\"d\":\"forward\"", "\"d\":\"sideways\"")),
               PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("\"s\":", "\"s\":-")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("{\"a\"", "{ \"a\"")), PaginationCursorError);
  // Re-encoding the same JSON gives the same token (one text per token).
  EXPECT_EQ(base64url_encode(json), token);
}

TEST_P(PagingContract, AnchorsOnTheDocumentsOwnKeysAreRealValues) {
  RecordStore store = open();
  fill(store, 6);
  for (const char* key : {"ts", "lid", "sid"}) {  // Item dedups by none: no content_id
    Searcher pager = query(store);
    std::vector<PageOrder> order = {{key, true}};
    ResultPage page = pager.page(2, order);
    ASSERT_TRUE(page.next) << key;
    std::string json = token_json(*page.next);
    EXPECT_EQ(json.find("\"type\":\"null\""), std::string::npos) << key << " " << json;
    std::vector<std::string> all;
    for (;;) {
      for (const auto& n : names(page.rows)) all.push_back(n);
      if (!page.next) break;
      page = pager.page(2, order, page.next);
    }
    EXPECT_EQ(all.size(), 6u) << key;
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 6u) << key;
  }
  for (const char* name : {"Ada", "Bob", "Cy"}) store.save(Author{name, std::nullopt});
  Searcher authors = store.searcher();
  Var a = authors.variable<Author>();
  authors.output(a.content_id(), "cid");
  ResultPage page = authors.page(1, {{"cid"}});
  ASSERT_TRUE(page.next);
  std::string json = token_json(*page.next);
  EXPECT_NE(
      json.find("\"type\":\"str\",\"value\":\"" + page.rows[0]["cid"].as<std::string>() + "\""),
      std::string::npos)
      << json;
  page = authors.page(1, {{"cid"}}, page.next);
  page = authors.page(1, {{"cid"}}, page.next);
  EXPECT_FALSE(page.next);
  EXPECT_TRUE(page.previous);
}

TEST_P(PagingContract, PagingHonoursOnlyLatestAndRefusesWhatItCannotPage) {
  RecordStore store = open();
  auto v1 = std::make_shared<const Item>(Item{"v1", 1, {}, {}, {}, nullptr, {}, {}});
  store.save(v1);
  store.replace(*v1, Item{"v2", 2, {}, {}, {}, nullptr, {}, {}});
  store.save(Item{"solo", 3, {}, {}, {}, nullptr, {}, {}});
  Searcher latest = query(store, {.only_latest = true});
  ResultPage page = latest.page(10, {{"rank"}}, std::nullopt, true);
  EXPECT_EQ(names(page.rows), std::vector<std::string>({"v2", "solo"}));
  EXPECT_EQ(page.total, 2);

  Searcher q = query(store);
  EXPECT_THROW(q.page(0, {{"rank"}}), Error);
  EXPECT_THROW(q.page(10'001, {{"rank"}}), Error);
  EXPECT_THROW(q.page(10, {}), UnsupportedQueryError);
  EXPECT_THROW(q.page(10, {{"rank"}, {"rank"}}), UnsupportedQueryError);
  EXPECT_THROW(q.page(10, {{"nope"}}), UnsupportedQueryError);
  std::vector<PageOrder> many;
  for (int i = 0; i < 33; ++i) many.push_back({"k" + std::to_string(i)});
  EXPECT_THROW(q.page(10, many), UnsupportedQueryError);
  Searcher with_record = store.searcher();
  Var r = with_record.variable<Item>();
  with_record.output(r, "item");
  with_record.output(r.field("tags"), "tags");
  EXPECT_THROW(with_record.page(10, {{"item"}}), UnsupportedQueryError);
  EXPECT_THROW(with_record.page(10, {{"tags"}}), UnsupportedQueryError);
  Searcher sorted = query(store);
  sorted.add_sort(Var(0, schema_of<Item>()).field("rank"));
  EXPECT_THROW(sorted.page(10, {{"rank"}}), UnsupportedQueryError);
  Searcher limited = query(store);
  limited.set_limit(3);
  EXPECT_THROW(limited.page(10, {{"rank"}}), UnsupportedQueryError);
  Searcher offset = query(store);
  offset.add_offset(1);
  EXPECT_THROW(offset.page(10, {{"rank"}}), UnsupportedQueryError);
  Searcher joined = store.searcher();
  Var i = joined.variable<Item>();
  Var a = joined.variable<Author>();
  joined.add(i.field("owner") == a);
  joined.output(i.field("rank"), "rank");
  EXPECT_THROW(joined.page(10, {{"rank"}}), UnsupportedQueryError);
}

INSTANTIATE_TEST_SUITE_P(Backends, PagingContract, store_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
