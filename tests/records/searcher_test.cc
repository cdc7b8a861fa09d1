// The searcher's contract (reference §9, §13 items 11 and 12) on every backend: the query
// vocabulary, three-valued logic, joins, sorting, offsets and limits, result sets, and the
// store-time options (as_of, only_latest, only_main_alt).
#include <gtest/gtest.h>

#include <set>

#include "mongostore/records/searcher.h"
#include "records/search_types.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {
namespace {

class SearcherContract : public StoreFixture {
 protected:
  SearcherContract() : StoreFixture("searcher_test") {}

  Item item(std::string name, std::optional<int64_t> rank, std::vector<std::string> tags = {},
            std::optional<double> score = std::nullopt) {
    Item i;
    i.name = std::move(name);
    i.rank = rank;
    i.tags = std::move(tags);
    i.score = score;
    return i;
  }

  // The names of the items matching `condition`, in sid order.
  std::vector<std::string> names(RecordStore& store, const std::function<Condition(Var&)>& cond,
                                 SearchOptions options = {}) {
    Searcher search = store.searcher(options);
    Var v = search.variable<Item>();
    search.add(cond(v));
    search.output(v.field("name"), "name");
    std::vector<std::string> out;
    for (const Value& n : search.results().column("name")) out.push_back(n.as<std::string>());
    EXPECT_EQ(search.count(), static_cast<int64_t>(out.size()));
    return out;
  }
};

using Names = std::vector<std::string>;

TEST_P(SearcherContract, ComparisonsUseThreeValuedLogic) {
  RecordStore store = open();
  store.save(item("one", 1));
  store.save(item("two", 2));
  store.save(item("three", 3));
  store.save(item("none", std::nullopt));
  auto rank = [](Var& v) { return v.field("rank"); };
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) == 2; }), Names({"two"}));
  // A null is neither equal nor unequal: ~(x == v) and x != v exclude it.
  EXPECT_EQ(names(store, [&](Var& v) { return ~(rank(v) == 2); }), Names({"one", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) != 2; }), Names({"one", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~(rank(v) != 2); }), Names({"two"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) < 3; }), Names({"one", "two"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~(rank(v) < 3); }), Names({"three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) >= 2; }), Names({"two", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) <= 2.5; }), Names({"one", "two"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) > 1; }), Names({"two", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) == kNull; }), Names({"none"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) != kNull; }), Names({"one", "two", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~(rank(v) == kNull); }),
            Names({"one", "two", "three"}));
  // Ordering against null is never true; its negation holds for every known value.
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v) < kNull; }), Names{});
  EXPECT_EQ(names(store, [&](Var& v) { return ~(rank(v) < kNull); }),
            Names({"one", "two", "three"}));
  // is_in sees nulls only when null is listed.
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v).is_in({2, 3}); }), Names({"two", "three"}));
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return rank(v).is_in({2, kNull});
                  }),
            Names({"two", "none"}));
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return ~rank(v).is_in({2, kNull});
                  }),
            Names({"one", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~rank(v).is_in({2}); }), Names({"one", "three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return rank(v).is_in({}); }), Names{});
  // AND / OR with unknowns: (null < 3) | true is true; ~((null < 3) & true) is unknown.
  EXPECT_EQ(names(store, [&](Var& v) { return (rank(v) < 3) | (v.field("name") == "none"); }),
            Names({"one", "two", "none"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~((rank(v) < 3) & (v.field("name") != "x")); }),
            Names({"three"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~((rank(v) < 2) | (rank(v) > 2)); }), Names({"two"}));
  EXPECT_EQ(names(store, [&](Var&) { return always_true(); }).size(), 4u);
  EXPECT_EQ(names(store, [&](Var&) { return always_false(); }), Names{});
  EXPECT_EQ(names(store, [&](Var&) { return ~always_false(); }).size(), 4u);
}

TEST_P(SearcherContract, FieldsCompareWithFields) {
  RecordStore store = open();
  Item a = item("a", 5);
  a.limit = 3;
  Item b = item("b", 2);
  b.limit = 3;
  Item c = item("c", std::nullopt);
  c.limit = 3;
  Item d = item("d", 4);  // no limit
  for (const Item& i : {a, b, c, d}) store.save(i);
  EXPECT_EQ(names(store, [](Var& v) { return v.field("rank") > v.field("limit"); }), Names({"a"}));
  EXPECT_EQ(names(store, [](Var& v) { return ~(v.field("rank") > v.field("limit")); }),
            Names({"b"}));
  EXPECT_THROW(names(store, [](Var& v) { return v.field("rank") == v.field("name"); }),
               SchemaError);
}

TEST_P(SearcherContract, StringMatchingIsLiteralCaseSensitiveAndAnchoredAtTheTrueEnd) {
  RecordStore store = open();
  for (std::string n : {"a%b", "a_b", "Abc", "abc\n", "x.y*z", "ends c"}) store.save(item(n, 1));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").contains("%"); }), Names({"a%b"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").contains("_"); }), Names({"a_b"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").contains(".y*"); }), Names({"x.y*z"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").starts_with("a"); }),
            Names({"a%b", "a_b", "abc\n"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").starts_with("A"); }), Names({"Abc"}));
  // "abc\n" does not end with "c" ($ would match before the trailing newline).
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").ends_with("c"); }),
            Names({"Abc", "ends c"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("name").ends_with("c\n"); }),
            Names({"abc\n"}));
  EXPECT_EQ(names(store, [](Var& v) { return ~v.field("name").starts_with("a"); }),
            Names({"Abc", "x.y*z", "ends c"}));
  EXPECT_THROW(names(store, [](Var& v) { return v.field("rank").contains("1"); }), SchemaError);
}

TEST_P(SearcherContract, ChildrenAreExistentialWithUniversalNegation) {
  RecordStore store = open();
  store.save(item("ab", 1, {"a", "b"}));
  store.save(item("b", 1, {"b"}));
  store.save(item("empty", 1, {}));
  Item sized = item("sized", 1, {"c"});
  sized.sizes = {1, 10};
  store.save(sized);
  auto tags = [](Var& v) { return v.field("tags"); };
  EXPECT_EQ(names(store, [&](Var& v) { return tags(v).has("a"); }), Names({"ab"}));
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return tags(v).has_any({"a", "c"});
                  }),
            Names({"ab", "sized"}));
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return ~tags(v).has_any({"a", "c"});
                  }),
            Names({"b", "empty"}));
  // has_only is vacuously true on an empty list.
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return tags(v).has_only({"a", "b"});
                  }),
            Names({"ab", "b", "empty"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~tags(v).has_only({"a", "b"}); }), Names({"sized"}));
  EXPECT_EQ(names(store, [&](Var& v) { return tags(v).has_only({}); }), Names({"empty"}));
  EXPECT_EQ(names(store, [&](Var& v) { return tags(v).has_any({}); }), Names{});
  // A comparison is existential; its negation universal.
  EXPECT_EQ(names(store, [&](Var& v) { return v.field("sizes") > 5; }), Names({"sized"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~(v.field("sizes") > 5); }),
            Names({"ab", "b", "empty"}));
  EXPECT_EQ(names(store, [&](Var& v) { return tags(v) != "b"; }), Names({"ab", "sized"}));
  EXPECT_THROW(tags(*std::make_unique<Var>(0, schema_of<Item>())).has(kNull), Error);
  EXPECT_THROW(names(store, [](Var& v) { return v.field("rank").has(1); }), SchemaError);
}

TEST_P(SearcherContract, ReferencesChainJoinAndCompareWithStoredRecords) {
  RecordStore store = open();
  Item i1 = item("ada's", 1);
  i1.owner = std::make_shared<const Author>(Author{"Ada", std::nullopt});
  Item i2 = item("bob's", 2);
  i2.owner = std::make_shared<const Author>(Author{"Bob", std::nullopt});
  Item i3 = item("nobody's", 3);
  store.save(i1);
  store.save(i2);
  store.save(i3);
  int64_t ada = *store.sid_of(*i1.owner);
  EXPECT_EQ(names(store, [](Var& v) { return v.field("owner").field("name") == "Ada"; }),
            Names({"ada's"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("owner").field(&Author::name) != "Ada"; }),
            Names({"bob's"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("owner") == kNull; }), Names({"nobody's"}));
  EXPECT_EQ(names(store, [&](Var& v) { return v.field("owner") == stored(ada); }),
            Names({"ada's"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ~(v.field("owner") == stored(ada)); }),
            Names({"bob's"}));
  Value ada_record(store.fetch(schema_of<Author>(), ada));  // a stored record as the literal
  EXPECT_EQ(names(store, [&](Var& v) { return v.field("owner") == ada_record; }), Names({"ada's"}));
  Value unsaved(std::make_shared<const DynamicRecord>(schema_of<Author>(),
                                                      std::vector<Value>{Value("Zed"), Value()}));
  EXPECT_THROW(names(store, [&](Var& v) { return v.field("owner") == unsaved; }), Error);

  // A list of records: its elements are sids.
  Structure st = make_structure("TiO2", 2, "Cy");
  store.save(st);
  Searcher by_site = store.searcher();
  Var sv = by_site.variable<Structure>();
  Searcher all_sites = store.searcher();
  Var site = all_sites.variable<Site>();
  all_sites.output(site.sid(), "sid");
  all_sites.add(site.field("element") == "Ti");
  int64_t ti = all_sites.results().one()["sid"].as<int64_t>();
  by_site.add(sv.field("sites").has(ti));
  EXPECT_EQ(by_site.count(), 1);
  Searcher no_site = store.searcher();
  Var nv = no_site.variable<Structure>();
  no_site.add(nv.field("sites").has(ti + 1000));
  EXPECT_EQ(no_site.count(), 0);

  // A join: items whose owner's name starts with "B", with the owner as an output.
  Searcher search = store.searcher();
  Var i = search.variable<Item>();
  Var a = search.variable<Author>();
  search.add(i.field("owner") == a);
  search.add(a.field("name").starts_with("B"));
  search.output(i, "item");
  search.output(a, "author");
  search.output(a.field("name"), "author_name");
  ResultSet rows = search.results();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["author_name"].as<std::string>(), "Bob");
  EXPECT_EQ(rows[0].record<Item>(store, "item")->name, "bob's");
  EXPECT_EQ(rows[0].record<Author>(store, "author")->name, "Bob");
  EXPECT_EQ(search.count(), 1);

  // A cross-variable scalar == joins too.
  Searcher by_name = store.searcher();
  Var x = by_name.variable<Item>();
  Var y = by_name.variable<Author>();
  by_name.add(x.field("owner") == y.sid());
  by_name.output(y.field("name"), "n");
  by_name.add_sort(y.field("name"));
  EXPECT_EQ(by_name.results().column("n"), std::vector<Value>({Value("Ada"), Value("Bob")}));
}

TEST_P(SearcherContract, DisconnectedVariablesAreRefused) {
  RecordStore store = open();
  store.save(item("x", 1));
  {
    Searcher search = store.searcher();
    Var i = search.variable<Item>();
    Var a = search.variable<Author>();
    search.add(i.field("rank") == 1);
    search.add(a.field("name") == "Ada");
    try {
      search.results();
      FAIL();
    } catch (const UnsupportedQueryError& e) {
      EXPECT_NE(std::string(e.what()).find("disconnected cartesian"), std::string::npos);
    }
  }
  {  // A join under OR or NOT does not bind.
    Searcher search = store.searcher();
    Var i = search.variable<Item>();
    Var a = search.variable<Author>();
    search.add((i.field("owner") == a) | (i.field("rank") == 1));
    EXPECT_THROW(search.count(), UnsupportedQueryError);
  }
  {
    Searcher search = store.searcher();
    Var i = search.variable<Item>();
    Var a = search.variable<Author>();
    search.add(~(i.field("owner") != a));
    EXPECT_THROW(search.results(), UnsupportedQueryError);
  }
}

TEST_P(SearcherContract, MemberPointersNameFields) {
  RecordStore store = open();
  Structure s = make_structure("TiO2", 2);
  store.save(s);
  Structure t = make_structure("SrTiO3", 2);
  t.spacegroup = 221;
  store.save(t);
  Searcher search = store.searcher();
  Var v = search.variable<Structure>();
  search.add(v.field(&Structure::spacegroup) == 225);
  search.output(v.field(&Structure::formula), "formula");
  search.output(v.field(&Structure::energy), "energy");
  search.output(v.field(&Structure::charges), "charges");
  search.output(v.field(&Structure::created), "created");
  search.output(v.field(&Structure::cell), "cell");
  ResultSet rows = search.results();
  const ResultRow& row = rows.one();
  EXPECT_EQ(row["formula"].as<std::string>(), "TiO2");
  EXPECT_EQ(row["energy"].as<double>(), -12.5);
  EXPECT_EQ(row["charges"].as<Value::List>().size(), 2u);
  EXPECT_EQ(row["created"].as<DateTime>(), s.created);
  EXPECT_EQ(row["cell"].as<RationalMatrix>().cells[0], R(1, 3));
  // Encoded fields compare through their query column; a fixed matrix cannot be queried.
  Searcher by_time = store.searcher();
  Var w = by_time.variable<Structure>();
  by_time.add(w.field(&Structure::created) == s.created);
  by_time.add(w.field(&Structure::published) < Date{2027, 1, 1});
  EXPECT_EQ(by_time.count(), 2);
  Searcher bad = store.searcher();
  Var b = bad.variable<Structure>();
  EXPECT_THROW(bad.add(b.field(&Structure::cell) == 1), SchemaError);  // refused at add()
  EXPECT_THROW(b.field(&Item::name), SchemaError);
  EXPECT_THROW(b.field("scratch"), SchemaError);  // skip: not stored
  EXPECT_THROW(b.field("nope"), SchemaError);
}

TEST_P(SearcherContract, RationalsCompareByTheirNearestDouble) {
  RecordStore store = open();
  Item third = item("third", 1);
  third.ratio = R(1, 3);
  Item half = item("half", 2);
  half.ratio = R(1, 2);
  store.save(third);
  store.save(half);
  store.save(item("none", 3));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("ratio") == R(1, 3); }), Names({"third"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("ratio") < 0.4; }), Names({"third"}));
  EXPECT_EQ(names(store, [](Var& v) { return v.field("ratio") >= 0; }), Names({"third", "half"}));
  EXPECT_THROW(names(store, [](Var& v) { return v.field("ratio") == "x"; }), SchemaError);
}

TEST_P(SearcherContract, ExactComparisonsArePrefilteredByTheNearestDoubleAndVerified) {
  RecordStore store = open();
  const R third(1, 3);
  // Within half an ulp of 1/3: the same nearest double, a different value.
  const R near_third =  // 1/3 + 10^-30
      R::parse("1000000000000000000000000000003/3000000000000000000000000000000");
  ASSERT_EQ(near_third.nearest_double(), third.nearest_double());
  auto with = [&](std::string name, std::optional<R> ratio, std::optional<double> score) {
    Item i = item(std::move(name), 1);
    i.ratio = std::move(ratio);
    i.score = score;
    store.save(i);
  };
  with("third", third, 0.1);
  with("near", near_third, 0.5);
  with("half", R(1, 2), std::nullopt);
  with("none", std::nullopt, 2.0);
  auto ratio = [](Var& v) { return v.field("ratio"); };
  // The plain comparison sees doubles; the exact one sees values.
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v) == third; }), Names({"third", "near"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kEq, third); }),
            Names({"third"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kGt, third); }),
            Names({"near", "half"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kLt, near_third); }),
            Names({"third"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kLe, near_third); }),
            Names({"third", "near"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kNe, third); }),
            Names({"near", "half"}));
  EXPECT_EQ(names(store, [&](Var& v) { return ratio(v).exact(CompareOp::kGe, R(0)); }),
            Names({"third", "near", "half"}));
  // A float field's exact value is its double: 0.1 is not 1/10.
  EXPECT_EQ(names(store, [&](Var& v) { return v.field("score") == 0.1; }), Names({"third"}));
  EXPECT_EQ(names(store, [&](Var& v) { return v.field("score").exact(CompareOp::kEq, R(1, 10)); }),
            Names{});
  EXPECT_EQ(names(store,
                  [&](Var& v) {
                    return v.field("score").exact(CompareOp::kEq, R::from_double(0.1)) &
                           (v.field("rank") == 1);
                  }),
            Names({"third"}));
  // Offset, limit and count apply after verification.
  Searcher search = store.searcher();
  Var v = search.variable<Item>();
  search.add(v.field("ratio").exact(CompareOp::kGe, third));
  search.output(v.field("name"), "name");
  search.add_sort(v.field("ratio"), true);  // by the double: third and near tie, sid order
  search.add_offset(1);
  search.set_limit(1);
  EXPECT_EQ(search.results().column("name"), std::vector<Value>({Value("third")}));
  EXPECT_EQ(search.count(), 3);
  // Only as a positive conjunct; rational or float fields only; pageable, the page applied
  // after verification (the row named "third" only, though "near" shares its double).
  Searcher bad = store.searcher();
  Var b = bad.variable<Item>();
  EXPECT_THROW(bad.add(~b.field("ratio").exact(CompareOp::kEq, third)), UnsupportedQueryError);
  EXPECT_THROW(bad.add(b.field("ratio").exact(CompareOp::kEq, third) | always_true()),
               UnsupportedQueryError);
  EXPECT_THROW(b.field("rank").exact(CompareOp::kEq, R(1)), SchemaError);
  bad.add(b.field("ratio").exact(CompareOp::kEq, third));
  bad.output(b.field("rank"), "rank");
  bad.output(b.field("name"), "name");
  ResultPage page = bad.page(10, {{"rank"}}, std::nullopt, true);
  EXPECT_EQ(page.rows.column("name"), std::vector<Value>({Value("third")}));
  EXPECT_EQ(page.total, 1);
}

TEST_P(SearcherContract, SortsHonourNullsAndDirectionWithTheSidTieBreak) {
  RecordStore store = open();
  store.save(item("a", 2));
  store.save(item("b", std::nullopt));
  store.save(item("c", 1));
  store.save(item("d", 2));
  store.save(item("e", std::nullopt));
  auto sorted = [&](bool descending, Nulls nulls, int64_t offset = 0,
                    std::optional<int64_t> limit = std::nullopt) {
    Searcher search = store.searcher();
    Var v = search.variable<Item>();
    search.add_sort(v.field("rank"), descending, nulls);
    search.output(v.field("name"), "name");
    search.add_offset(offset);
    if (limit) search.set_limit(*limit);
    Names out;
    for (const Value& n : search.results().scalars()) out.push_back(n.as<std::string>());
    EXPECT_EQ(search.count(), 5);  // ignores offset and limit
    return out;
  };
  EXPECT_EQ(sorted(false, Nulls::kLast), Names({"c", "a", "d", "b", "e"}));
  EXPECT_EQ(sorted(false, Nulls::kFirst), Names({"b", "e", "c", "a", "d"}));
  EXPECT_EQ(sorted(true, Nulls::kLast), Names({"a", "d", "c", "b", "e"}));
  EXPECT_EQ(sorted(true, Nulls::kFirst), Names({"b", "e", "a", "d", "c"}));
  EXPECT_EQ(sorted(false, Nulls::kLast, 1, 2), Names({"a", "d"}));
  EXPECT_EQ(sorted(false, Nulls::kLast, 4, 10), Names({"e"}));
  EXPECT_EQ(sorted(false, Nulls::kLast, 0, 0), Names{});
  Searcher search = store.searcher();
  EXPECT_THROW(search.set_limit(-1), Error);
  EXPECT_THROW(search.add_offset(-1), Error);
}

// Field outputs of several owners, interleaved: each is decoded from its own owner's
// fields (rows() finds each owner once per row and shares it between its outputs); a row
// whose reference is null has null outputs through it.
TEST_P(SearcherContract, InterleavedOutputsOfTwoOwnersDecodeFromTheirOwn) {
  RecordStore store = open();
  Item owned = item("owned", 1, {}, 0.5);
  owned.owner = std::make_shared<const Author>(Author{"Ada", "ada@example.org"});
  int64_t owned_sid = store.save(owned);
  int64_t orphan_sid = store.save(item("orphan", 2));
  Searcher search = store.searcher();
  Var v = search.variable<Item>();
  search.output(v.field("name"), "name");
  search.output(v.field("owner").field("name"), "owner_name");
  search.output(v.field("score"), "score");
  search.output(v.sid(), "sid");
  search.output(v.field("owner").field("email"), "owner_email");
  search.output(v.field("rank"), "rank");
  search.output(v.field("owner"), "owner");
  ResultSet rows = search.results();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["name"].as<std::string>(), "owned");
  EXPECT_EQ(rows[0]["owner_name"].as<std::string>(), "Ada");
  EXPECT_EQ(rows[0]["score"].as<double>(), 0.5);
  EXPECT_EQ(rows[0]["sid"].as<int64_t>(), owned_sid);
  EXPECT_EQ(rows[0]["owner_email"].as<std::string>(), "ada@example.org");
  EXPECT_EQ(rows[0]["rank"].as<int64_t>(), 1);
  EXPECT_EQ(rows[0]["owner"].as<Value::RecordPtr>()->get("name").as<std::string>(), "Ada");
  EXPECT_EQ(rows[1]["name"].as<std::string>(), "orphan");
  EXPECT_TRUE(rows[1]["owner_name"].is_null());
  EXPECT_TRUE(rows[1]["score"].is_null());
  EXPECT_EQ(rows[1]["sid"].as<int64_t>(), orphan_sid);
  EXPECT_TRUE(rows[1]["owner_email"].is_null());
  EXPECT_EQ(rows[1]["rank"].as<int64_t>(), 2);
  EXPECT_TRUE(rows[1]["owner"].is_null());
}

TEST_P(SearcherContract, ResultSetsGiveRowsByIndexAndName) {
  RecordStore store = open();
  int64_t sid = store.save(item("only", 7));
  store.save(item("other", 8));
  Searcher search = store.searcher();
  Var v = search.variable<Item>();
  search.add(v.field("rank") == 7);
  search.output(v, "item");
  search.output(v.field("rank"), "rank");
  search.output(v.sid(), "sid");
  search.output(v.logical_id(), "lid");
  search.output(v.store_timestamp(), "ts");
  ResultSet rows = search.results();
  ASSERT_EQ(rows.size(), 1u);
  const ResultRow& row = rows.one();
  EXPECT_EQ(row[1].as<int64_t>(), 7);
  EXPECT_EQ(row["rank"].as<int64_t>(), 7);
  EXPECT_EQ(row["sid"].as<int64_t>(), sid);
  EXPECT_EQ(row["lid"].as<int64_t>(), sid);
  EXPECT_GT(row["ts"].as<int64_t>(), 1'600'000'000'000'000'000);  // nanoseconds
  EXPECT_EQ(row["item"].as<Value::RecordPtr>()->get("name").as<std::string>(), "only");
  EXPECT_EQ(row.record<Item>(store, "item"), store.fetch<Item>(sid));  // the cached object
  EXPECT_EQ(rows.first()->values().size(), 5u);
  EXPECT_EQ(rows.column("rank"), std::vector<Value>({Value(7)}));
  EXPECT_EQ(rows.scalars().size(), 1u);
  EXPECT_THROW(rows.column("item"), Error);  // a record output
  EXPECT_THROW(rows.column("nope"), Error);
  EXPECT_THROW(row["nope"], Error);
  EXPECT_THROW(row[9], Error);
  EXPECT_THROW(rows[1], Error);
  int n = 0;
  for (const ResultRow& r : rows) n += static_cast<int>(r.size());
  EXPECT_EQ(n, 5);

  Searcher none = store.searcher();
  Var w = none.variable<Item>();
  none.add(w.field("rank") == 100);
  EXPECT_FALSE(none.results().first());
  EXPECT_THROW(none.results().one(), NoResultError);
  Searcher many = store.searcher();
  many.variable<Item>();
  ResultSet all = many.results();  // no output: the root's record as "record"
  EXPECT_EQ(all.names(), std::vector<std::string>({"record"}));
  EXPECT_THROW(all.one(), MultipleResultsError);
  EXPECT_THROW(search.output(v, "item"), Error);  // a repeated name
}

TEST_P(SearcherContract, OnlyLatestAsOfAndOnlyMainAltApplyToEveryVariable) {
  RecordStore store = open();
  auto v1 = std::make_shared<const Item>(item("v1", 1));
  int64_t s1 = store.save(v1);
  Searcher ts = store.searcher();
  Var tv = ts.variable<Item>();
  ts.output(tv.store_timestamp(), "ts");
  int64_t first_ns = ts.results().one()["ts"].as<int64_t>();
  Item v2 = item("v2", 2);
  store.replace(v1, v2);
  store.save(item("solo", 3));
  int64_t alt = store.save_alternative(item("alt", 4), s1, "conventional");
  (void)alt;

  EXPECT_EQ(names(store, [](Var&) { return always_true(); }), Names({"v1", "v2", "solo"}));
  EXPECT_EQ(names(store, [](Var&) { return always_true(); }, {.only_latest = true}),
            Names({"v2", "solo"}));
  EXPECT_EQ(names(store, [](Var&) { return always_true(); }, {.only_main_alt = false}),
            Names({"v1", "v2", "solo", "alt"}));
  EXPECT_EQ(names(store, [](Var&) { return always_true(); }, {.as_of = first_ns}), Names({"v1"}));
  EXPECT_EQ(
      names(store, [](Var&) { return always_true(); }, {.as_of = first_ns, .only_latest = true}),
      Names({"v1"}));
  EXPECT_EQ(names(store, [&](Var& v) { return v.store_timestamp() <= first_ns; }), Names({"v1"}));
  EXPECT_EQ(names(store, [&](Var& v) { return v.store_timestamp() > first_ns; }),
            Names({"v2", "solo"}));
  // Operands: RFC 3339 text and aware datetimes; naive is refused.
  EXPECT_EQ(
      names(store, [&](Var& v) { return v.store_timestamp() > "2000-01-01T00:00:00Z"; }).size(),
      3u);
  EXPECT_EQ(
      names(store, [&](Var& v) { return v.store_timestamp() < DateTime::from_fields(2000, 1, 1); })
          .size(),
      0u);
  EXPECT_THROW(names(store,
                     [&](Var& v) {
                       return v.store_timestamp() <
                              DateTime::from_fields(2000, 1, 1, 0, 0, 0, 0, std::nullopt);
                     }),
               Error);
  EXPECT_THROW(names(store, [](Var&) { return always_true(); },
                     {.as_of = std::string("2000-01-01T00:00:00")}),
               Error);
  EXPECT_THROW(names(store, [](Var&) { return always_true(); },
                     {.as_of = DateTime::from_fields(2000, 1, 1, 0, 0, 0, 0, std::nullopt)}),
               Error);

  // A joined variable is filtered too: only the latest author of each lineage joins.
  Author ada{"Ada", std::nullopt};
  Item owned = item("owned", 9);
  owned.owner = std::make_shared<const Author>(ada);
  store.save(owned);
  store.replace(ada, Author{"Ada Lovelace", std::nullopt});
  Searcher search = store.searcher({.only_latest = true});
  Var i = search.variable<Item>();
  Var a = search.variable<Author>();
  search.add(i.field("owner") == a);
  EXPECT_EQ(search.count(), 0);  // the owner is not its lineage's latest
  Searcher pinned = store.searcher({.only_latest = true});
  Var p = pinned.variable<Item>();
  pinned.add(p.field("owner").field("name") == "Ada");  // references are pinned
  EXPECT_EQ(pinned.count(), 1);
}

TEST_P(SearcherContract, EverythingRunsAsOneAggregation) {
  RecordStore store = open();
  store.save(item("x", 1));
  Searcher search = store.searcher({.only_latest = true});
  Var i = search.variable<Item>();
  search.add(i.field("owner").field("name") == "Ada");
  search.add(i.field("rank") == 1);
  auto pipeline = search.pipeline();
  ASSERT_FALSE(pipeline.empty());
  // The root's own conditions come first, where its indexes serve them.
  EXPECT_NE(pipeline[0].view().to_json().find("f.rank"), std::string::npos);
  EXPECT_EQ(search.collection(), "item");
}

// Joins and reference hops are equality $lookups (localField/foreignField), the form the
// engine serves with one point read per row; a `let`/`$expr` pipeline cost the join 3-4x
// (docs/benchmarks.md, issue 24). The as_of cutoff rides along as the combined form's
// pipeline. What they join is asserted by the contract above and the differential suites.
TEST_P(SearcherContract, JoinsAreEqualityLookups) {
  RecordStore store = open();
  store.save(item("x", 1));
  auto lookups = [](Searcher& search) {
    std::vector<bson::Document> out;
    for (const bson::Document& stage : search.pipeline()) {
      bson::Value l = stage.view().get("$lookup");
      if (l.is_document() && l.as_document().get("from").as_string() != "item") {
        out.push_back(bson::Document::copy_of(l.as_document()));
      }
    }
    return out;
  };
  auto expect_equality = [](const bson::Document& lookup, std::string_view local,
                            std::string_view foreign) {
    bson::DocumentView l = lookup.view();
    EXPECT_TRUE(l.get("let").is_missing()) << l.to_json();
    ASSERT_TRUE(l.get("localField").is_string()) << l.to_json();
    EXPECT_EQ(l.get("localField").as_string(), local);
    EXPECT_EQ(l.get("foreignField").as_string(), foreign);
  };
  {
    Searcher search = store.searcher();
    Var i = search.variable<Item>();
    search.add(i.field("owner").field("name") == "Ada");
    auto l = lookups(search);
    ASSERT_EQ(l.size(), 1u);
    expect_equality(l[0], "f.owner_sid", "_id");
    EXPECT_TRUE(l[0].view().get("pipeline").is_missing());
  }
  {
    Searcher search = store.searcher({.as_of = int64_t{1'000'000'000}});
    Var i = search.variable<Item>();
    search.add(i.field("owner").field("name") == "Ada");
    auto l = lookups(search);
    ASSERT_EQ(l.size(), 1u);
    expect_equality(l[0], "f.owner_sid", "_id");
    EXPECT_NE(l[0].view().get("pipeline").to_json().find("store_timestamp"), std::string::npos);
  }
  {
    Searcher search = store.searcher();
    Var i = search.variable<Item>();
    Var a = search.variable<Author>();
    search.add(i.field("owner") == a);
    auto l = lookups(search);
    ASSERT_EQ(l.size(), 1u);
    expect_equality(l[0], "f.owner_sid", "_id");
  }
}

// The examples of docs/record-store.md ("Searching"), as written there.
TEST_P(SearcherContract, DocumentationExamplesWork) {
  RecordStore store = open();
  Structure tio2 = make_structure("TiO2", 2);
  tio2.energy = -3.0;
  store.save(tio2);
  Structure bob = make_structure("SrO", 2, "Bob");
  store.save(bob);
  {
    Searcher search = store.searcher();    // SearchOptions{as_of, only_latest, only_main_alt}
    Var s = search.variable<Structure>();  // the first variable is the root
    search.add((s.field(&Structure::spacegroup) == 225) &           // by member pointer
               (s.field("energy") < -1.0) &                         // or by name
               s.field("tags").has_any({"cubic", "perovskite"}) &   // a child (list) field
               s.field("author").field("name").starts_with("Ad"));  // a chained reference
    search.output(s, "structure");                                  // a record output
    search.output(s.field("energy"), "energy");                     // a scalar output
    search.add_sort(s.field("energy"), /*descending=*/false, Nulls::kLast);
    search.set_limit(10);
    std::vector<double> energies;
    for (const ResultRow& row : search.results()) {
      std::shared_ptr<const Structure> st = row.record<Structure>(store, "structure");
      energies.push_back(row["energy"].as<double>());  // or row[1]
      EXPECT_EQ(st->author->name, "Ada");
    }
    EXPECT_EQ(energies, std::vector<double>({-3.0}));
    EXPECT_EQ(search.count(), 1);
  }
  {
    Searcher search = store.searcher();
    Var st = search.variable<Structure>();
    Var au = search.variable<Author>();
    search.add(st.field("author") == au);  // joins `au`
    search.add(au.field("name") == "Ada");
    search.output(st, "structure");
    search.output(au.field("email"), "email");
    EXPECT_EQ(search.results().one()["email"].as<std::string>(), "ada@example.org");
  }
  {
    Searcher search = store.searcher({.only_latest = true});
    Var s = search.variable<Structure>();
    search.output(s.field("formula"), "formula");
    search.output(s.field("energy"), "energy");
    ResultPage page = search.page(1, {{"energy", false, Nulls::kLast}, {"formula"}}, std::nullopt,
                                  /*include_total=*/true);
    EXPECT_EQ(page.total, 2);
    int pages = 1;
    while (page.next) {
      page = search.page(1, {{"energy", false, Nulls::kLast}, {"formula"}}, page.next);
      ++pages;
    }
    EXPECT_EQ(pages, 2);
  }
  {  // "Exact comparisons"
    Searcher search = store.searcher();
    Var s = search.variable<Structure>();
    search.add(s.field("energy").exact(CompareOp::kLe, Rational(-25, 2)));  // energy <= -12.5
    EXPECT_EQ(search.count(), 1);                                           // SrO's -12.5, exactly
    Searcher scaled = store.searcher();
    Var t = scaled.variable<Structure>();
    scaled.add(t.field("energy").scaled(Rational(2), CompareOp::kEq, Rational(-6)));
    EXPECT_EQ(scaled.count(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SearcherContract, store_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
