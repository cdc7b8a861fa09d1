// Keyset paging (reference §9 "Keyset paging", §13 item 13) on every backend: pages forward
// and backward stop at the ends and agree with a sorted result set, rows inserted while
// paging neither repeat nor hide a pre-existing row, tokens are strict and bound to their
// query, and anchors on the document's own keys are real values.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/records/searcher.h"
#include "records/page_token.h"
#include "records/search_types.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {
namespace {

struct Event {
  std::string name;
  std::optional<DateTime> at;
  std::optional<Date> day;
};
inline auto declare_record(Tag<Event>) {
  return record<Event>("mongostore.tests.Event", field("name", &Event::name),
                       field("at", &Event::at), field("day", &Event::day))
      .dedup(Dedup::kNone);
}

// A record that declares its page order: the store creates the page index with the
// collection.
struct Reading {
  std::string name;
  std::optional<int64_t> level;
};
inline auto declare_record(Tag<Reading>) {
  return record<Reading>("mongostore.tests.Reading", field("name", &Reading::name),
                         field("level", &Reading::level))
      .dedup(Dedup::kNone)
      .page_index({{"level"}, {"name", true}});
}

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

// Every direction and null placement of two keys, read as index ranges (the page index,
// where the second key's nulls are where the index puts them) or sorted: the pages forward
// and backward are the sorted results.
TEST_P(PagingContract, EveryOrderPagesLikeTheSortedResultsWithAndWithoutThePageIndex) {
  RecordStore store = open();
  fill(store, 41);
  Var v(0, schema_of<Item>());
  for (bool indexed : {false, true}) {
    for (int combo = 0; combo < 16; ++combo) {
      std::vector<PageOrder> order = {
          {"rank", (combo & 1) != 0, (combo & 2) != 0 ? Nulls::kFirst : Nulls::kLast},
          {"score", (combo & 4) != 0, (combo & 8) != 0 ? Nulls::kFirst : Nulls::kLast}};
      SCOPED_TRACE(::testing::Message() << "indexed " << indexed << " combo " << combo);
      Searcher sorted = query(store);
      sorted.add(~(v.field("name") == "item5"));
      for (const PageOrder& o : order) sorted.add_sort(v.field(o.name), o.descending, o.nulls);
      std::vector<std::string> expected = names(sorted.results());
      ASSERT_EQ(expected.size(), 40u);

      Searcher pager = query(store);
      pager.add(~(v.field("name") == "item5"));
      if (indexed) pager.ensure_page_index(order);
      std::vector<std::string> forward;
      ResultPage page = pager.page(7, order);
      for (;;) {
        for (const auto& n : names(page.rows)) forward.push_back(n);
        if (!page.next) break;
        page = pager.page(7, order, page.next);
      }
      EXPECT_EQ(forward, expected);
      std::vector<std::string> backward = names(page.rows);
      while (page.previous) {
        page = pager.page(7, order, page.previous);
        std::vector<std::string> here = names(page.rows);
        backward.insert(backward.begin(), here.begin(), here.end());
      }
      EXPECT_EQ(backward, expected);
    }
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
  EXPECT_THROW(pager.page(3, order, forged("\"v\":3", "\"v\":2")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("\"d\":\"forward\"", "\"d\":\"sideways\"")),
               PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("\"s\":", "\"s\":-")), PaginationCursorError);
  EXPECT_THROW(pager.page(3, order, forged("{\"a\"", "{ \"a\"")), PaginationCursorError);
  // Re-encoding the same JSON gives the same token (one text per token).
  EXPECT_EQ(base64url_encode(json), token);
}

// Tokens are signed with the store's key (kept in its metadata collection): an anchor edited
// by hand, or a token of another store for the very same query, is refused; the key outlives
// the store object, so a reopened store accepts its earlier tokens.
TEST_P(PagingContract, ForgedAndForeignTokensAreRefused) {
  RecordStore store = open();
  fill(store, 12);
  std::vector<PageOrder> order = {{"name"}};
  Searcher pager = query(store);
  ResultPage first = pager.page(3, order);
  ASSERT_TRUE(first.next);
  std::string json = token_json(*first.next);
  ASSERT_NE(json.find("\"value\":\"item10\""), std::string::npos) << json;
  std::string edited = json;
  edited.replace(edited.find("item10"), 6, "item11");
  EXPECT_THROW(pager.page(3, order, base64url_encode(edited)), PaginationCursorError);
  std::string unsigned_v2 = json;  // httk's shape: no signature
  unsigned_v2.erase(unsigned_v2.find(",\"m\":\""), 6 + 64 + 1);
  EXPECT_EQ(unsigned_v2.find("\"m\""), std::string::npos) << unsigned_v2;
  unsigned_v2.replace(unsigned_v2.find("\"v\":3"), 5, "\"v\":2");
  EXPECT_THROW(pager.page(3, order, base64url_encode(unsigned_v2)), PaginationCursorError);

  // The same store reopened, and another searcher: the same key.
  RecordStore again = open();
  Searcher later = query(again);
  EXPECT_EQ(names(later.page(3, order, first.next).rows),
            std::vector<std::string>({"item11", "item2", "item3"}));

  // Another store (another database) with the same records and query: another key.
  RecordStoreOptions other_options = options();
  other_options.database = database_ + "_other";
  RecordStore other = open(other_options);
  fill(other, 12);
  Searcher foreign = query(other);
  EXPECT_THROW(foreign.page(3, order, first.next), PaginationCursorError);
  EXPECT_NO_THROW(foreign.page(3, order, foreign.page(3, order).next));
  client_->database(database_ + "_other").drop();
}

// Anchors on datetime and date fields are typed as such in the token, in the canonical ISO
// text their column stores, and pages over them are the sorted results.
TEST_P(PagingContract, DatetimeAndDateAnchorsAreTyped) {
  RecordStore store = open();
  for (int i = 0; i < 9; ++i) {
    Event e;
    e.name = "e" + std::to_string(i);
    if (i % 4 != 1) e.at = DateTime::from_fields(2026, 1, 1 + (i * 5) % 7, 3, 4, 5, i * 10);
    if (i % 3 != 0) e.day = Date{2025, 12, 1 + i % 2};
    store.save(e);
  }
  for (const char* key : {"at", "day"}) {
    Searcher s = store.searcher();
    Var v = s.variable<Event>();
    s.output(v.field("name"), "name");
    s.output(v.field(key), key);
    Searcher sorted = store.searcher();
    Var w = sorted.variable<Event>();
    sorted.output(w.field("name"), "name");
    sorted.add_sort(w.field(key), true, Nulls::kFirst);
    std::vector<std::string> expected = names(sorted.results());
    std::vector<PageOrder> order = {{key, true, Nulls::kFirst}};
    std::vector<std::string> all;
    bool typed = false;
    for (ResultPage page = s.page(2, order);;) {
      for (const auto& n : names(page.rows)) all.push_back(n);
      if (!page.next) break;
      std::string json = token_json(*page.next);
      EXPECT_EQ(json.find("\"type\":\"str\""), std::string::npos) << json;
      typed = typed || json.find(std::string("\"type\":\"") +
                                 (key[0] == 'a' ? "datetime" : "date") + "\"") != std::string::npos;
      page = s.page(2, order, page.next);
    }
    EXPECT_TRUE(typed) << key;
    EXPECT_EQ(all, expected) << key;
  }
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

// Under only_latest a page is still index ranges (with the page index): the latest-only
// lookup runs on the candidates and the client drops superseded versions, reading further
// ranges when a batch falls short. Pages agree with the sorted latest-only results, forward
// and backward, and no find the page reads sorts in memory.
TEST_P(PagingContract, OnlyLatestPagesAreIndexRangesThatDropSupersededRows) {
  RecordStore store = open();
  for (int i = 0; i < 24; ++i) {
    Item it;
    it.name = "l" + std::to_string(i);
    if (i % 5 != 2) it.rank = i % 4;
    auto first = std::make_shared<const Item>(it);
    store.save(first);
    if (i % 3 == 0) {  // two newer versions: the older two are superseded
      Item second = it;
      second.name += "b";
      std::shared_ptr<const Item> next = store.fetch<Item>(store.replace(*first, second));
      Item third = second;
      third.name = it.name + "c";
      if (i % 2 == 0) third.rank = std::nullopt;
      store.replace(*next, third);
    }
  }
  Searcher sorted = query(store, {.only_latest = true});
  sorted.add_sort(Var(0, schema_of<Item>()).field("rank"), false, Nulls::kLast);
  std::vector<std::string> want = names(sorted.results());
  ASSERT_EQ(want.size(), 24u);

  Searcher pager = query(store, {.only_latest = true});
  pager.ensure_page_index({{"rank"}});
  std::vector<std::vector<std::string>> pages;
  std::vector<std::optional<std::string>> previous;
  std::optional<std::string> cursor;
  for (int guard = 0; guard < 50; ++guard) {
    ResultPage page = pager.page(5, {{"rank"}}, cursor, true);
    EXPECT_EQ(page.total, 24);
    pages.push_back(names(page.rows));
    previous.push_back(page.previous);
    if (!page.next) break;
    cursor = page.next;
  }
  std::vector<std::string> got;
  for (const auto& p : pages) got.insert(got.end(), p.begin(), p.end());
  EXPECT_EQ(got, want);
  for (size_t k = 1; k < pages.size(); ++k) {
    ASSERT_TRUE(previous[k]);
    EXPECT_EQ(names(pager.page(5, {{"rank"}}, previous[k]).rows), pages[k - 1]) << k;
  }
  for (const bson::Document& e :
       pager.explain_page(5, {{"rank"}}, pages.size() > 1 ? previous[1] : std::nullopt)) {
    bson::DocumentView plan =
        e.view().get("queryPlanner").as_document().get("winningPlan").as_document();
    EXPECT_NE(plan.get("stage").as_string(), "SORT") << e.view().to_json();
  }
}

// A page order named in the record declaration: its index exists once the collection does,
// ensure_page_index finds it (same name, no new index), and pages of that order read index
// ranges without sorting.
TEST_P(PagingContract, DeclaredPageOrdersGetTheirIndexWithTheCollection) {
  RecordStore store = open();
  for (int i = 0; i < 12; ++i) {
    Reading r{"r" + std::to_string(i % 7), std::nullopt};
    if (i % 4 != 1) r.level = i % 3;
    store.save(r);
  }
  client::Collection c = coll(schema_of<Reading>()->storage_name());
  auto names_of = [&] {
    std::set<std::string> out;
    for (const bson::Document& ix : c.list_indexes()) {
      out.insert(std::string(ix.view().get("name").as_string()));
    }
    return out;
  };
  std::set<std::string> before = names_of();
  Searcher s = store.searcher();
  Var v = s.variable<Reading>();
  s.output(v.field("level"), "level");
  s.output(v.field("name"), "name");
  std::vector<PageOrder> order = {{"level", false, Nulls::kFirst}, {"name", true, Nulls::kLast}};
  std::string name = s.ensure_page_index(order);
  EXPECT_TRUE(before.count(name)) << name;
  EXPECT_EQ(names_of(), before);
  for (const bson::Document& e : s.explain_page(5, order)) {
    bson::DocumentView plan =
        e.view().get("queryPlanner").as_document().get("winningPlan").as_document();
    EXPECT_NE(plan.get("stage").as_string(), "SORT") << e.view().to_json();
  }
  EXPECT_THROW(RecordSchema("x.Bad", "bad", Dedup::kNone, {}, {}, {{{"nope"}}}), SchemaError);
}

// The token codec alone: a datetime or date anchor round-trips typed, must be the canonical
// ISO text its column stores, and a token verifies only under the key that signed it.
TEST(PageToken, DatetimeAnchorsAreCanonicalAndTokensVerifyOnlyUnderTheirKey) {
  const std::string key(32, 'k');
  auto token = [&](const char* value, AnchorKind kind) {
    PageToken t;
    t.fingerprint = "fp";
    t.sid = 5;
    t.anchors = bson::make_document("0", value);
    return encode_page_token(t, {kind}, key);
  };
  std::string at = token("2026-01-02T03:04:05+00:00", AnchorKind::kDateTime);
  std::string json;
  ASSERT_TRUE(base64url_decode(at, &json));
  EXPECT_NE(json.find("\"type\":\"datetime\",\"value\":\"2026-01-02T03:04:05+00:00\""),
            std::string::npos)
      << json;
  PageToken back = decode_page_token(at, "fp", {AnchorKind::kDateTime}, key);
  EXPECT_EQ(back.anchors.view().get("0").as_string(), "2026-01-02T03:04:05+00:00");
  EXPECT_EQ(back.sid, 5);
  EXPECT_THROW(decode_page_token(at, "fp", {AnchorKind::kDateTime}, std::string(32, 'x')),
               PaginationCursorError);
  EXPECT_THROW(decode_page_token(at, "fp", {AnchorKind::kString}, key), PaginationCursorError);
  EXPECT_THROW(decode_page_token(at, "other", {AnchorKind::kDateTime}, key), PaginationCursorError);
  for (const char* bad : {"2026-01-02T03:04:05Z", "2026-01-02T03:04:05.000000+00:00",
                          "2026-01-02 03:04:05", "2026-13-02T03:04:05+00:00", "not a time"}) {
    EXPECT_THROW(
        decode_page_token(token(bad, AnchorKind::kDateTime), "fp", {AnchorKind::kDateTime}, key),
        PaginationCursorError)
        << bad;
  }
  EXPECT_NO_THROW(
      decode_page_token(token("2025-12-01", AnchorKind::kDate), "fp", {AnchorKind::kDate}, key));
  EXPECT_THROW(
      decode_page_token(token("2025-12-1", AnchorKind::kDate), "fp", {AnchorKind::kDate}, key),
      PaginationCursorError);
}

// Token bytes are pinned: a token issued before the decoder changed (the text below was
// made independently, by Python's json.dumps(sort_keys=True, separators=(",", ":")) and
// hmac) encodes to the same text and still decodes to the same anchors; and the decoder
// stays strict about everything but that one canonical text.
TEST(PageToken, IssuedTokensKeepTheirBytesAndStillDecode) {
  const std::string key(32, 'k');
  const std::string golden =
      "eyJhIjpbeyJ0eXBlIjoiZmxvYXQiLCJ2YWx1ZSI6Ii0weDEuOXArMyJ9LHsidHlwZSI6Im51bGwifSx7InR5cGUiOi"
      "JzdHIiLCJ2YWx1ZSI6ImNhZlx1MDBlOSBcInFcIiJ9LHsidHlwZSI6ImludCIsInZhbHVlIjoiNDIifSx7InR5cGUi"
      "OiJieXRlcyIsInZhbHVlIjoiQVFJIn0seyJ0eXBlIjoiYm9vbCIsInZhbHVlIjp0cnVlfV0sImQiOiJiYWNrd2FyZC"
      "IsImYiOiJmcCIsIm0iOiIxODFlNjY1ZTZmOTg3OWM2YTk2MDZkYmYzYzlkMWQxZGU5YTY0Yzk5ODFlNTQ0YTQ1ZGM4"
      "YTI4NGNhNGJmMTAxIiwicyI6NywidiI6M30";
  const std::vector<AnchorKind> kinds = {AnchorKind::kFloat,  AnchorKind::kInt,
                                         AnchorKind::kString, AnchorKind::kInt,
                                         AnchorKind::kBytes,  AnchorKind::kBool};
  const uint8_t raw[] = {1, 2};
  bson::DocumentBuilder a;
  a.append("0", -12.5)
      .append("1", bson::Null{})
      .append("2", "caf\xc3\xa9 \"q\"")
      .append("3", int64_t{42})
      .append("4", bson::BinaryView{0, std::span<const uint8_t>(raw, 2)})
      .append("5", true);
  PageToken t;
  t.forward = false;
  t.fingerprint = "fp";
  t.sid = 7;
  t.anchors = a.finish();
  EXPECT_EQ(encode_page_token(t, kinds, key), golden);
  PageToken back = decode_page_token(golden, "fp", kinds, key);
  EXPECT_FALSE(back.forward);
  EXPECT_EQ(back.sid, 7);
  bson::DocumentView got = back.anchors.view();
  EXPECT_EQ(got.get("0").as_double(), -12.5);
  EXPECT_TRUE(got.get("1").is_null());
  EXPECT_EQ(got.get("2").as_string(), "caf\xc3\xa9 \"q\"");
  EXPECT_EQ(got.get("3").as_int64(), 42);
  EXPECT_EQ(got.get("4").as_binary().bytes.size(), 2u);
  EXPECT_TRUE(got.get("5").as_bool());

  // The same signed token with a space, an extended-JSON wrapper, a repeated key or a double
  // sid: not the canonical text, refused.
  const std::vector<AnchorKind> one = {AnchorKind::kInt};
  EXPECT_NO_THROW(decode_page_token(
      "eyJhIjpbeyJ0eXBlIjoiaW50IiwidmFsdWUiOiI0MiJ9XSwiZCI6ImZvcndhcmQiLCJmIjoiZnAiLCJtIjoiNTE5Zj"
      "djNWY5NjdjYWEwODVlOGFmMjA4Y2MxNTc5N2I3YzFkZjVkNzFmYjc1YjYzZDZjZmIxMGRkYTQ1N2VhNiIsInMiOjcs"
      "InYiOjN9",
      "fp", one, key));
  for (
      const char* variant : {
          "eyJhIjpbeyJ0eXBlIjoiaW50IiwidmFsdWUiOiI0MiJ9XSwiZCI6ICJmb3J3YXJkIiwiZiI6ImZwIiwibSI6IjUx"
          "OWY3YzVmOTY3Y2FhMDg1ZThhZjIwOGNjMTU3OTdiN2MxZGY1ZDcxZmI3NWI2M2Q2Y2ZiMTBkZGE0NTdlYTYiLCJz"
          "Ijo3LCJ2IjozfQ",
          "eyJhIjpbeyJ0eXBlIjoiaW50IiwidmFsdWUiOiI0MiJ9XSwiZCI6ImZvcndhcmQiLCJmIjoiZnAiLCJtIjoiNTE5"
          "ZjdjNWY5NjdjYWEwODVlOGFmMjA4Y2MxNTc5N2I3YzFkZjVkNzFmYjc1YjYzZDZjZmIxMGRkYTQ1N2VhNiIsInMi"
          "OnsiJG51bWJlckxvbmciOiI3In0sInYiOjN9",
          "eyJhIjpbeyJ0eXBlIjoiaW50IiwidmFsdWUiOiI0MiJ9XSwiZCI6ImZvcndhcmQiLCJmIjoiZnAiLCJtIjoiNTE5"
          "ZjdjNWY5NjdjYWEwODVlOGFmMjA4Y2MxNTc5N2I3YzFkZjVkNzFmYjc1YjYzZDZjZmIxMGRkYTQ1N2VhNiIsInMi"
          "OjcsInMiOjgsInYiOjN9",
          "eyJhIjpbeyJ0eXBlIjoiaW50IiwidmFsdWUiOiI0MiJ9XSwiZCI6ImZvcndhcmQiLCJmIjoiZnAiLCJtIjoiNTE5"
          "ZjdjNWY5NjdjYWEwODVlOGFmMjA4Y2MxNTc5N2I3YzFkZjVkNzFmYjc1YjYzZDZjZmIxMGRkYTQ1N2VhNiIsInMi"
          "OjcuMCwidiI6M30",
      }) {
    EXPECT_THROW(decode_page_token(variant, "fp", one, key), PaginationCursorError) << variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PagingContract, store_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
