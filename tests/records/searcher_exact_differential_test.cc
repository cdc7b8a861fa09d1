// The differential test of exact and scaled comparisons: seeded random conjunctions of
// `exact`, `scaled` (against a literal and against another field) over records whose rational
// and float values crowd around shared nearest doubles (1/3, 1/3 + 10^-30, the double nearest
// 1/3), the subnormals and the largest doubles, with factors that push products past the
// doubles' range or below the smallest normal. The store (server window, client verification)
// and an in-memory evaluator in exact arithmetic must give the same rows, order, offsets,
// limits, counts, and keyset pages forward and backward with their totals. Factors are
// literals or fields (rational, float, and an int field with values beyond 2^53), so a side
// can be a product of two stored values, one subnormal and one huge. Seeded: a failure names
// its seed and query.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

#include "mongostore/records/searcher.h"
#include "records/record_types.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {

struct ExactSample {
  std::optional<Rational> p, q;
  std::optional<double> x;
  std::optional<int64_t> n;  // only ever a factor
};
inline auto declare_record(Tag<ExactSample>) {
  return record<ExactSample>("mongostore.tests.ExactSample", field("p", &ExactSample::p),
                             field("q", &ExactSample::q), field("x", &ExactSample::x),
                             field("n", &ExactSample::n))
      .dedup(Dedup::kNone);
}

// A record referring to an ExactSample, for factors reached through a reference.
struct ExactHolder {
  std::shared_ptr<const ExactSample> base;
  std::optional<Rational> y;
};
inline auto declare_record(Tag<ExactHolder>) {
  return record<ExactHolder>("mongostore.tests.ExactHolder",
                             field("base", &ExactHolder::base, nullable),
                             field("y", &ExactHolder::y))
      .dedup(Dedup::kNone);
}

namespace {

enum class Tri { kTrue, kFalse, kUnknown };

bool holds(CompareOp op, const Rational& a, const Rational& b) {
  switch (op) {
    case CompareOp::kEq:
      return a == b;
    case CompareOp::kNe:
      return !(a == b);
    case CompareOp::kLt:
      return a < b;
    case CompareOp::kLe:
      return a <= b;
    case CompareOp::kGt:
      return a > b;
    case CompareOp::kGe:
      return a >= b;
  }
  return false;
}

const char* op_name(CompareOp op) {
  static const char* names[] = {"==", "!=", "<", "<=", ">", ">="};
  return names[static_cast<int>(op)];
}

Rational pow10(int e) {
  std::string digits = "1" + std::string(static_cast<size_t>(e < 0 ? -e : e), '0');
  return e < 0 ? Rational::parse("1/" + digits) : Rational::parse(digits);
}

// Values that share nearest doubles, straddle them, and reach the ends of the doubles.
const std::vector<Rational>& values() {
  static const std::vector<Rational> v = [] {
    Rational third(1, 3);
    std::vector<Rational> out = {
        Rational(0),
        Rational(1),
        Rational(-1),
        Rational(3),
        third,
        Rational(-1, 3),
        Rational::parse("1000000000000000000000000000003/3000000000000000000000000000000"),
        Rational::from_double(1.0 / 3.0),
        Rational(2, 3),
        Rational(1, 2),
        Rational(1, 10),
        Rational::from_double(0.1),
        pow10(-310),  // a subnormal double
        pow10(-310) * Rational(3),
        pow10(300),
        pow10(300) * Rational(3),
        Rational(7, 2),
    };
    return out;
  }();
  return v;
}

const std::vector<double>& floats() {
  static const std::vector<double> f = {0.1, 1.0 / 3.0, 0.5, -2.0, 1e-310, 3e300, 1.0, 0.0, 3.5};
  return f;
}

// Factors: plain, negative, fractional, zero, and ones whose products overflow the doubles
// or whose normalised ratio falls below the smallest normal double.
const std::vector<Rational>& factors() {
  static const std::vector<Rational> f = {
      Rational(1), Rational(3), Rational(-3), Rational(1, 3), Rational(2),
      Rational(0), pow10(-400), pow10(300),   Rational(7, 2), Rational(-1),
  };
  return f;
}

struct Cond {
  Condition store;
  std::function<Tri(const ExactSample&)> eval;
  std::string text;
};

std::optional<Rational> operand(const ExactSample& s, int which) {
  if (which == 0) return s.p;
  if (which == 1) return s.q;
  if (which == 3) return s.n ? std::optional<Rational>(Rational(*s.n)) : std::nullopt;
  if (!s.x) return std::nullopt;
  return Rational::from_double(*s.x);
}

const char* field_name(int which) {
  static const char* names[] = {"p", "q", "x", "n"};
  return names[which];
}

const std::vector<int64_t>& ints() {
  static const std::vector<int64_t> n = {0, 1, -3, 7, (int64_t(1) << 53) + 1, -(int64_t(1) << 62)};
  return n;
}

// A factor of a scaled comparison: a literal, or (-1 for none) the field `which`.
struct Factor {
  Rational literal;
  int which = -1;
  ScaleFactor on(const Var& v) const {
    return which < 0 ? ScaleFactor(literal) : ScaleFactor(v.field(field_name(which)));
  }
  std::optional<Rational> of(const ExactSample& s) const {
    return which < 0 ? std::optional<Rational>(literal) : operand(s, which);
  }
  std::string text() const { return which < 0 ? literal.to_string() : field_name(which); }
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  template <class T>
  const T& any(const std::vector<T>& v) {
    return v[static_cast<size_t>(pick(static_cast<int>(v.size())))];
  }

  ExactSample sample() {
    ExactSample s;
    if (pick(5)) s.p = any(values());
    if (pick(5)) s.q = any(values());
    if (pick(4)) s.x = any(floats());
    if (pick(4)) s.n = any(ints());
    return s;
  }

  // A literal factor two times in three, else one of the four fields.
  Factor factor() {
    if (pick(3)) return Factor{any(factors()), -1};
    return Factor{Rational(1), pick(4)};
  }

  Cond condition(const Var& v) {
    CompareOp op = static_cast<CompareOp>(pick(6));
    int lhs = pick(3);
    std::string l = field_name(lhs);
    switch (pick(3)) {
      case 0: {
        Rational c = any(values());
        return {v.field(l).exact(op, c),
                [=](const ExactSample& s) {
                  auto a = operand(s, lhs);
                  if (!a) return Tri::kUnknown;
                  return holds(op, *a, c) ? Tri::kTrue : Tri::kFalse;
                },
                l + op_name(op) + c.to_string()};
      }
      case 1: {
        Factor k = factor();
        Rational c = any(values());
        return {v.field(l).scaled(k.on(v), op, c),
                [=](const ExactSample& s) {
                  auto a = operand(s, lhs), f = k.of(s);
                  if (!a || !f) return Tri::kUnknown;
                  return holds(op, *f * *a, c) ? Tri::kTrue : Tri::kFalse;
                },
                k.text() + "*" + l + op_name(op) + c.to_string()};
      }
      default: {
        int rhs = pick(3);
        Factor k = factor(), m = factor();
        std::string r = field_name(rhs);
        return {v.field(l).scaled(k.on(v), op, v.field(r), m.on(v)),
                [=](const ExactSample& s) {
                  auto a = operand(s, lhs), b = operand(s, rhs), f = k.of(s), g = m.of(s);
                  if (!a || !b || !f || !g) return Tri::kUnknown;
                  return holds(op, *f * *a, *g * *b) ? Tri::kTrue : Tri::kFalse;
                },
                k.text() + "*" + l + op_name(op) + m.text() + "*" + r};
      }
    }
  }

 private:
  std::mt19937 rng_;
};

class ExactDifferential : public StoreFixture {
 protected:
  ExactDifferential() : StoreFixture("searcher_exact_differential") {}
};

// The page order key's column is the stored nearest double: rows tie on it and then on sid.
std::optional<double> key_of(const ExactSample& s, int which) {
  if (which == 0) return s.p ? std::optional<double>(s.p->nearest_double()) : std::nullopt;
  if (which == 1) return s.q ? std::optional<double>(s.q->nearest_double()) : std::nullopt;
  return s.x;
}

TEST_P(ExactDifferential, ExactAndScaledComparisonsAgreeWithExactArithmetic) {
  RecordStore store = open();
  const uint32_t seed = 20261205;
  Generator gen(seed);
  std::vector<std::pair<int64_t, ExactSample>> samples;
  for (int i = 0; i < 80; ++i) {
    ExactSample s = gen.sample();
    samples.emplace_back(store.save(s), s);
  }
  int64_t transferred = 0, selected = 0;
  for (int q = 0; q < 160; ++q) {
    std::vector<Cond> conds;
    int n = 1 + gen.pick(2);
    bool sorted = gen.pick(3) != 0;
    int sort_key = gen.pick(3);
    bool descending = gen.pick(2);
    Nulls nulls = gen.pick(2) ? Nulls::kFirst : Nulls::kLast;
    int64_t offset = gen.pick(3) == 0 ? gen.pick(5) : 0;
    std::optional<int64_t> limit;
    if (gen.pick(3) == 0) limit = gen.pick(8);
    bool paged = gen.pick(3) == 0;
    int64_t page_size = 1 + gen.pick(6);

    auto build = [&](Searcher& search, bool fresh) {
      Var v = search.variable<ExactSample>();
      if (fresh) {
        for (int i = 0; i < n; ++i) conds.push_back(gen.condition(v));
      }
      for (const Cond& c : conds) search.add(c.store);
      search.output(v.sid(), "sid");
      search.output(v.field(field_name(sort_key)), "key");
      return v;
    };
    Searcher search = store.searcher();
    Var v = build(search, true);
    if (sorted) search.add_sort(v.field(field_name(sort_key)), descending, nulls);
    if (offset) search.add_offset(offset);
    if (limit) search.set_limit(*limit);

    std::vector<std::pair<int64_t, const ExactSample*>> expected;
    for (const auto& [sid, s] : samples) {
      bool all = std::all_of(conds.begin(), conds.end(),
                             [&](const Cond& c) { return c.eval(s) == Tri::kTrue; });
      if (all) expected.emplace_back(sid, &s);
    }
    auto order = [&](bool desc, Nulls nl) {
      std::stable_sort(expected.begin(), expected.end(), [&](const auto& l, const auto& r) {
        auto kl = key_of(*l.second, sort_key), kr = key_of(*r.second, sort_key);
        int rl = kl ? 1 : 0, rr = kr ? 1 : 0;
        if (nl == Nulls::kLast) rl = 1 - rl, rr = 1 - rr;
        if (rl != rr) return rl < rr;
        if (kl && kr && *kl != *kr) return desc ? *kl > *kr : *kl < *kr;
        return l.first < r.first;
      });
    };
    if (sorted) order(descending, nulls);
    std::vector<int64_t> want;
    for (size_t i = static_cast<size_t>(offset); i < expected.size(); ++i) {
      if (limit && static_cast<int64_t>(want.size()) >= *limit) break;
      want.push_back(expected[i].first);
    }
    std::ostringstream what;
    what << "seed " << seed << " query " << q << ":";
    for (const Cond& c : conds) what << " [" << c.text << "]";
    what << (sorted ? " sorted" : "") << " offset " << offset << " limit "
         << (limit ? std::to_string(*limit) : "-");

    std::vector<int64_t> got;
    for (const Value& s : search.results().column("sid")) got.push_back(s.as<int64_t>());
    ASSERT_EQ(got, want) << what.str();
    ASSERT_EQ(search.count(), static_cast<int64_t>(expected.size())) << what.str();
    transferred += search.stats().rows_transferred;
    selected += static_cast<int64_t>(expected.size());

    if (!paged) continue;
    // Keyset pages of the same conditions: forward to the end, then each page's previous
    // token gives the page before it. One query in three pages under a small candidate
    // budget: pages are then short, but concatenated still give every row once.
    SearchOptions paging;
    bool budgeted = gen.pick(3) == 0;
    if (budgeted) paging.page_candidate_budget = 1 + gen.pick(12);
    Searcher pager = store.searcher(paging);
    build(pager, false);
    order(descending, nulls);
    std::vector<int64_t> all;
    for (const auto& e : expected) all.push_back(e.first);
    std::vector<PageOrder> by = {{"key", descending, nulls}};
    std::vector<std::vector<int64_t>> pages;
    std::vector<std::optional<std::string>> previous;
    std::optional<std::string> cursor;
    for (int guard = 0; guard < 200; ++guard) {
      ResultPage page = pager.page(page_size, by, cursor, true);
      ASSERT_EQ(page.total, static_cast<int64_t>(all.size())) << what.str();
      std::vector<int64_t> rows;
      for (const Value& s : page.rows.column("sid")) rows.push_back(s.as<int64_t>());
      pages.push_back(rows);
      previous.push_back(page.previous);
      if (!page.next) break;
      cursor = page.next;
    }
    std::vector<int64_t> concatenated;
    for (const auto& p : pages) concatenated.insert(concatenated.end(), p.begin(), p.end());
    ASSERT_EQ(concatenated, all) << what.str() << " page size " << page_size;
    if (budgeted) continue;  // a short page's previous page need not be the one before it
    for (size_t k = 1; k < pages.size(); ++k) {
      ASSERT_TRUE(previous[k]) << what.str();
      std::vector<int64_t> back;
      for (const Value& s : pager.page(page_size, by, previous[k]).rows.column("sid")) {
        back.push_back(s.as<int64_t>());
      }
      ASSERT_EQ(back, pages[k - 1]) << what.str() << " back from page " << k;
    }
  }
  // The window is a real prefilter: far fewer candidates than rows scanned per query.
  EXPECT_LT(transferred, 160 * 80 / 2) << "selected " << selected;
}

TEST_P(ExactDifferential, ScaledComparisonsAreConjunctsOnlyAndNeedExactFields) {
  RecordStore store = open();
  Searcher search = store.searcher();
  Var v = search.variable<ExactSample>();
  Condition c = v.field("p").scaled(Rational(3), CompareOp::kEq, v.field("q"), Rational(1));
  EXPECT_THROW(search.add(~c), UnsupportedQueryError);
  EXPECT_THROW(search.add(c | always_false()), UnsupportedQueryError);
  EXPECT_NO_THROW(search.add(c & always_true()));
  EXPECT_THROW(v.field("p").scaled(Rational(1), CompareOp::kEq, v.sid(), Rational(1)), SchemaError);
}

// 3·(1/3) == 1 exactly, though 3 · double(1/3) is not 1 in every rounding; 3 · (the double
// nearest 1/3) is not 1; the window keeps the first and the client drops the second.
TEST_P(ExactDifferential, ScaledEqualityIsExactWhereDoublesAreNot) {
  RecordStore store = open();
  int64_t third = store.save(ExactSample{Rational(1, 3), Rational(1), std::nullopt, std::nullopt});
  store.save(
      ExactSample{Rational::from_double(1.0 / 3.0), Rational(1), std::nullopt, std::nullopt});
  int64_t big =
      store.save(ExactSample{pow10(300), pow10(300) * Rational(3), std::nullopt, std::nullopt});
  Searcher search = store.searcher();
  Var v = search.variable<ExactSample>();
  search.add(v.field("p").scaled(Rational(3), CompareOp::kEq, v.field("q"), Rational(1)));
  search.output(v.sid(), "sid");
  std::vector<int64_t> got;
  for (const Value& s : search.results().column("sid")) got.push_back(s.as<int64_t>());
  EXPECT_EQ(got, std::vector<int64_t>({third, big}));
  // Both 1/3-ish rows are candidates; the huge pair's product overflows and is kept too.
  EXPECT_EQ(search.stats().rows_transferred, 3);
}

// Where the exact products are equal but the server's rounded ones are not: 1 · 3/10 and
// 3 · 1/10 (normalised: double(1/3) · double(3/10) is 2^-56 below double(1/10)). The window's
// tolerance keeps the row for ==, <= and >=; a window without it would drop it for == and >=.
TEST_P(ExactDifferential, TheWindowKeepsMatchesWhoseRoundedProductsDiffer) {
  RecordStore store = open();
  int64_t sid =
      store.save(ExactSample{Rational(3, 10), Rational(1, 10), std::nullopt, std::nullopt});
  store.save(ExactSample{Rational(3, 10), Rational(1, 9), std::nullopt, std::nullopt});
  for (CompareOp op : {CompareOp::kEq, CompareOp::kLe, CompareOp::kGe}) {
    Searcher search = store.searcher();
    Var v = search.variable<ExactSample>();
    search.add(v.field("p").scaled(Rational(1), op, v.field("q"), Rational(3)));
    search.output(v.sid(), "sid");
    std::vector<int64_t> got;
    for (const Value& s : search.results().column("sid")) got.push_back(s.as<int64_t>());
    if (op == CompareOp::kLe) {
      EXPECT_EQ(got.size(), 2u) << op_name(op);  // 3/10 <= 3/9 too
    } else {
      EXPECT_EQ(got, std::vector<int64_t>({sid})) << op_name(op);
    }
  }
}

std::vector<int64_t> sids_of(Searcher& search) {
  std::vector<int64_t> got;
  for (const Value& s : search.results().column("sid")) got.push_back(s.as<int64_t>());
  return got;
}

// A field factor times a field, where one of them is subnormal as a double: 10^-312 ·
// 10^302 is exactly 10^-10, but the double of 10^-312 is off by a relative 10^-12, far more
// than rounding's 2^-53, so the server's product misses 10^-10 by about 1.5·10^-22, beyond
// S·2^-48 (7·10^-25). The window's M term (the magnitudes of a two-field side's columns
// times 2^-1060) keeps the row; a window of S·2^-48 alone drops it. A second
// row whose factor differs from 10^-312 by a relative 10^-30 has the same doubles: the
// window keeps it too and the client drops it.
TEST_P(ExactDifferential, FieldFactorWindowCoversASubnormalFactor) {
  RecordStore store = open();
  int64_t product = store.save(ExactSample{pow10(302), pow10(-312), 1.0, std::nullopt});
  store.save(ExactSample{
      pow10(302),
      pow10(-312) * Rational::parse("1" + std::string(29, '0') + "1/1" + std::string(30, '0')), 1.0,
      std::nullopt});
  for (CompareOp op : {CompareOp::kEq, CompareOp::kGe, CompareOp::kLe}) {
    Searcher search = store.searcher();
    Var v = search.variable<ExactSample>();
    search.add(v.field("p").scaled(v.field("q"), op, pow10(-10)));  // q · p op 10^-10
    search.output(v.sid(), "sid");
    std::vector<int64_t> got = sids_of(search);
    if (op == CompareOp::kGe) {
      EXPECT_EQ(got.size(), 2u) << op_name(op);  // the decoy's product is larger
    } else {
      EXPECT_EQ(got, std::vector<int64_t>({product})) << op_name(op);
    }
    EXPECT_EQ(search.stats().rows_transferred, 2) << op_name(op);  // both are candidates
  }
  // The same product against another field: q · p == 10^-10 · x, with x = 1.0.
  Searcher search = store.searcher();
  Var v = search.variable<ExactSample>();
  search.add(v.field("p").scaled(v.field("q"), CompareOp::kEq, v.field("x"), pow10(-10)));
  search.output(v.sid(), "sid");
  EXPECT_EQ(sids_of(search), std::vector<int64_t>({product}));
  EXPECT_EQ(search.stats().rows_transferred, 2);
}

// httk's scaled_exact_equal with an int factor: nsites · energy_per_atom == energy, each row
// its own factor; a null factor makes the comparison unknown (the row is never returned).
TEST_P(ExactDifferential, IntFieldFactorsAndNullFactors) {
  RecordStore store = open();
  int64_t a = store.save(ExactSample{Rational(-7, 3), Rational(-14), std::nullopt, 6});
  store.save(ExactSample{Rational(-7, 3), Rational(-14), std::nullopt, 5});
  store.save(ExactSample{Rational(-7, 3), Rational(-14), std::nullopt, std::nullopt});
  int64_t big = store.save(ExactSample{Rational(1, 3), Rational((int64_t(1) << 53) + 1, 3),
                                       std::nullopt, (int64_t(1) << 53) + 1});
  Searcher search = store.searcher();
  Var v = search.variable<ExactSample>();
  search.add(v.field("p").scaled(v.field("n"), CompareOp::kEq, v.field("q"), Rational(1)));
  search.output(v.sid(), "sid");
  EXPECT_EQ(sids_of(search), std::vector<int64_t>({a, big}));
  EXPECT_EQ(search.count(), 2);
  // The null factor's row is not even a candidate; the 5 · -7/3 row is outside the window.
  EXPECT_EQ(search.stats().rows_transferred, 2);
}

// A factor through a reference: base.n · y == 6 and y == base.p · base.n (the factor and the
// operand on another record, the filter after the $lookup); a null reference is unknown.
TEST_P(ExactDifferential, FieldFactorsThroughAReference) {
  RecordStore store = open();
  auto base = [](std::optional<Rational> p, std::optional<int64_t> n) {
    return std::make_shared<const ExactSample>(ExactSample{p, std::nullopt, std::nullopt, n});
  };
  int64_t a = store.save(ExactHolder{base(Rational(1, 3), 3), Rational(2)});
  store.save(ExactHolder{base(Rational(1, 3), 4), Rational(2)});
  int64_t c = store.save(ExactHolder{base(Rational(2, 3), 9), Rational(6)});
  store.save(ExactHolder{nullptr, Rational(2)});
  store.save(ExactHolder{base(Rational(1, 3), std::nullopt), Rational(2)});
  {
    Searcher search = store.searcher();
    Var h = search.variable<ExactHolder>();
    search.add(h.field("y").scaled(h.field("base").field("n"), CompareOp::kEq, Rational(6)));
    search.output(h.sid(), "sid");
    EXPECT_EQ(sids_of(search), std::vector<int64_t>({a}));
  }
  {
    Searcher search = store.searcher();
    Var h = search.variable<ExactHolder>();
    search.add(h.field("y").scaled(Rational(1), CompareOp::kEq, h.field("base").field("p"),
                                   h.field("base").field("n")));
    search.output(h.sid(), "sid");
    EXPECT_EQ(sids_of(search), std::vector<int64_t>({c}));
    EXPECT_EQ(search.count(), 1);
  }
}

TEST_P(ExactDifferential, FieldFactorsMustBeNumberFields) {
  RecordStore store = open();
  Searcher search = store.searcher();
  Var v = search.variable<ExactSample>();
  EXPECT_THROW(v.field("p").scaled(v.sid(), CompareOp::kEq, Rational(1)), SchemaError);
  EXPECT_THROW(v.field("n").scaled(v.field("p"), CompareOp::kEq, Rational(1)), SchemaError);
  Condition c = v.field("p").scaled(v.field("n"), CompareOp::kLt, v.field("q"), v.field("x"));
  EXPECT_THROW(search.add(~c), UnsupportedQueryError);
  EXPECT_NO_THROW(search.add(c));
}

// A selective exact predicate over many candidates: the window keeps every row (they share
// one nearest double) and one in 37 verifies. With a budget of 25 candidates a call, no page
// reads more than 25 rows, and paging to the end, forward and then backward from the last
// page, gives exactly the verified rows in order, each once.
TEST_P(ExactDifferential, PagesReadAtMostTheCandidateBudget) {
  RecordStore store = open();
  std::vector<int64_t> verified;
  for (int i = 0; i < 300; ++i) {
    Rational p = i % 37 == 5 ? Rational(1, 3) : Rational::from_double(1.0 / 3.0);
    int64_t sid = store.save(ExactSample{p, std::nullopt, std::nullopt, std::nullopt});
    if (i % 37 == 5) verified.push_back(sid);
  }
  SearchOptions options;
  options.page_candidate_budget = 25;
  Searcher pager = store.searcher(options);
  Var v = pager.variable<ExactSample>();
  pager.add(v.field("p").exact(CompareOp::kEq, Rational(1, 3)));
  pager.output(v.sid(), "sid");
  const std::vector<PageOrder> by = {{"sid"}};
  auto sids = [](const ResultPage& page) {
    std::vector<int64_t> out;
    for (const Value& s : page.rows.column("sid")) out.push_back(s.as<int64_t>());
    return out;
  };

  std::vector<int64_t> forward;
  std::optional<std::string> cursor;
  // The last page with rows, and its previous token.
  std::optional<std::string> back;
  int64_t back_from = 0;
  int calls = 0;
  for (; calls < 100; ++calls) {
    ResultPage page = pager.page(3, by, cursor);
    EXPECT_LE(pager.stats().rows_transferred, 25) << "call " << calls;
    std::vector<int64_t> rows = sids(page);
    forward.insert(forward.end(), rows.begin(), rows.end());
    if (!rows.empty() && page.previous) {
      back = page.previous;
      back_from = rows.front();
    }
    if (!page.next) break;
    cursor = page.next;
  }
  EXPECT_EQ(forward, verified);
  EXPECT_GE(calls, 300 / 25 - 1);  // the budget, not the page size, ended most calls

  // Backward from that page: every verified row before it, in order, down to the first.
  std::vector<int64_t> expected_back;
  for (int64_t sid : verified) {
    if (sid < back_from) expected_back.push_back(sid);
  }
  ASSERT_GE(expected_back.size(), 3u);
  std::vector<int64_t> backward;
  for (int guard = 0; back && guard < 100; ++guard) {
    ResultPage page = pager.page(3, by, back);
    EXPECT_LE(pager.stats().rows_transferred, 25);
    std::vector<int64_t> rows = sids(page);
    backward.insert(backward.begin(), rows.begin(), rows.end());
    back = page.previous;
  }
  EXPECT_EQ(backward, expected_back);

  // Without a budget that small, one call reads everything it needs for a full page.
  Searcher wide = store.searcher();
  Var w = wide.variable<ExactSample>();
  wide.add(w.field("p").exact(CompareOp::kEq, Rational(1, 3)));
  wide.output(w.sid(), "sid");
  EXPECT_EQ(sids(wide.page(3, by)), std::vector<int64_t>(verified.begin(), verified.begin() + 3));
}

INSTANTIATE_TEST_SUITE_P(Backends, ExactDifferential, backend_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
