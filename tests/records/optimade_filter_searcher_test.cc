// OPTIMADE filters on the searcher (optimade_filter_searcher.h), on every backend: seeded
// random filters over random records, run by the store and by a brute-force evaluator of
// OPTIMADE's semantics over the saved C++ values written here (a comparison with an unknown
// value matches neither itself nor its negation; IS KNOWN / IS UNKNOWN see nulls; lists are
// never unknown); and a table of filters that must be refused with their category.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <variant>

#include "mongostore/records/errors.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "records/record_types.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {

struct Entry {
  std::optional<int64_t> n, m;
  std::optional<double> x;
  std::optional<std::string> s;
  std::optional<bool> flag;
  std::optional<DateTime> at;
  std::vector<std::string> elements;
  std::vector<int64_t> counts;
  std::shared_ptr<const Author> owner;
  Bytes blob;
};
inline auto declare_record(Tag<Entry>) {
  return record<Entry>("mongostore.tests.OptimadeEntry", field("n", &Entry::n, indexed),
                       field("m", &Entry::m), field("x", &Entry::x), field("s", &Entry::s),
                       field("flag", &Entry::flag), field("at", &Entry::at),
                       field("elements", &Entry::elements), field("counts", &Entry::counts),
                       field("owner", &Entry::owner, nullable), field("blob", &Entry::blob))
      .dedup(Dedup::kNone);
}

namespace {

namespace o = optimade;

enum class Tri { kTrue, kFalse, kUnknown };
Tri tri(bool b) {
  return b ? Tri::kTrue : Tri::kFalse;
}

// A property's value on one record, as the evaluator sees it: null, a number (integers,
// floats and instants in microseconds are all exact doubles here), a string or a boolean;
// or a list of those.
using Scalar = std::variant<std::monostate, double, std::string, bool>;
struct PropertyValue {
  bool list = false;
  Scalar scalar;
  std::vector<Scalar> items;
};

bool is_null(const Scalar& s) {
  return std::holds_alternative<std::monostate>(s);
}

OptimadeTranslationOptions translation_options() {
  OptimadeTranslationOptions o;
  o.properties = {{"label", "s"}, {"owner_name", "owner.name"}};
  o.relationships = {{"authors", "owner"}};
  return o;
}

// The sids of the saved authors, by name (authors dedup by content: one sid per name).
std::map<std::string, int64_t>& author_sids() {
  static std::map<std::string, int64_t> sids;
  return sids;
}

template <class T>
Scalar opt(const std::optional<T>& v) {
  if (!v) return std::monostate{};
  if constexpr (std::is_same_v<T, int64_t>) return static_cast<double>(*v);
  if constexpr (std::is_same_v<T, DateTime>) return static_cast<double>(v->micros);
  if constexpr (!std::is_same_v<T, int64_t> && !std::is_same_v<T, DateTime>) return *v;
}

PropertyValue property(const Entry& e, int64_t sid, const o::Property& p) {
  std::string name;
  for (const std::string& part : p.names) name += (name.empty() ? "" : ".") + part;
  PropertyValue v;
  if (name == "_httk_custom_n") v.scalar = opt(e.n);
  if (name == "_httk_custom_m") v.scalar = opt(e.m);
  if (name == "_httk_custom_x") v.scalar = opt(e.x);
  if (name == "_httk_custom_s" || name == "label") v.scalar = opt(e.s);
  if (name == "_httk_custom_flag") v.scalar = opt(e.flag);
  if (name == "_httk_custom_at") v.scalar = opt(e.at);
  if (name == "_httk_sid") v.scalar = static_cast<double>(sid);
  if (name == "_httk_custom_owner.name" || name == "owner_name") {
    if (e.owner) v.scalar = e.owner->name;
  }
  if (name == "_httk_custom_elements") {
    v.list = true;
    for (const std::string& s : e.elements) v.items.emplace_back(s);
  }
  if (name == "authors.id") {  // the relationship: the owner's id, or no id
    v.list = true;
    if (e.owner) v.items.emplace_back("authors-" + std::to_string(author_sids().at(e.owner->name)));
  }
  if (name == "_httk_custom_counts") {
    v.list = true;
    for (int64_t c : e.counts) v.items.emplace_back(static_cast<double>(c));
  }
  return v;  // anything else (another database's property) is null
}

// A constant as the property it is compared with reads it (timestamps as instants).
Scalar constant(const o::Value& c, const std::string& property_name) {
  switch (c.kind()) {
    case o::Value::Kind::kNumber:
      return std::strtod(c.text().c_str(), nullptr);
    case o::Value::Kind::kBoolean:
      return c.boolean_value();
    case o::Value::Kind::kString:
      if (property_name == "_httk_custom_at") {
        return static_cast<double>(DateTime::parse_iso(c.text()).micros);
      }
      return c.text();
    case o::Value::Kind::kProperty:
      break;
  }
  ADD_FAILURE() << "a property as a constant";
  return std::monostate{};
}

bool compare(o::Operator op, const Scalar& a, const Scalar& b) {
  auto cmp = [op](const auto& x, const auto& y) {
    switch (op) {
      case o::Operator::kEq:
        return x == y;
      case o::Operator::kNe:
        return x != y;
      case o::Operator::kLt:
        return x < y;
      case o::Operator::kLe:
        return x <= y;
      case o::Operator::kGt:
        return x > y;
      case o::Operator::kGe:
        return x >= y;
      default:
        break;
    }
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) {
      if (op == o::Operator::kContains) return x.find(y) != std::string::npos;
      if (op == o::Operator::kStartsWith) return x.compare(0, y.size(), y) == 0;
      return x.size() >= y.size() && x.compare(x.size() - y.size(), y.size(), y) == 0;
    }
    ADD_FAILURE() << "a fuzzy operator on a non-string";
    return false;
  };
  if (a.index() != b.index()) {
    ADD_FAILURE() << "the generator compared values of different types";
    return false;
  }
  if (const double* x = std::get_if<double>(&a)) return cmp(*x, std::get<double>(b));
  if (const std::string* x = std::get_if<std::string>(&a)) return cmp(*x, std::get<std::string>(b));
  return cmp(std::get<bool>(a), std::get<bool>(b));
}

o::Operator mirror(o::Operator op) {
  switch (op) {
    case o::Operator::kLt:
      return o::Operator::kGt;
    case o::Operator::kLe:
      return o::Operator::kGe;
    case o::Operator::kGt:
      return o::Operator::kLt;
    case o::Operator::kGe:
      return o::Operator::kLe;
    default:
      return op;
  }
}

std::string name_of(const o::Property& p) {
  std::string out;
  for (const std::string& part : p.names) out += (out.empty() ? "" : ".") + part;
  return out;
}

// OPTIMADE's meaning of a filter on one record.
Tri evaluate(const o::Expression& expr, const Entry& e, int64_t sid) {
  struct Visitor {
    const Entry& e;
    int64_t sid;
    Tri operator()(const o::Comparison& c) const {
      const o::Value *prop = &c.left, *other = &c.right;
      o::Operator op = c.op;
      if (prop->kind() != o::Value::Kind::kProperty) {
        std::swap(prop, other);
        op = mirror(op);
      }
      PropertyValue a = property(e, sid, prop->property_name());
      if (is_null(a.scalar)) return Tri::kUnknown;
      Scalar b;
      if (other->kind() == o::Value::Kind::kProperty) {
        b = property(e, sid, other->property_name()).scalar;
        if (is_null(b)) return Tri::kUnknown;
      } else {
        b = constant(*other, name_of(prop->property_name()));
      }
      return tri(compare(op, a.scalar, b));
    }
    Tri operator()(const o::BareProperty& b) const {
      PropertyValue a = property(e, sid, b.property);
      if (a.list) return Tri::kTrue;
      if (is_null(a.scalar))
        return name_of(b.property) == "_httk_custom_flag" ? Tri::kUnknown : Tri::kFalse;
      if (const bool* f = std::get_if<bool>(&a.scalar)) return tri(*f);
      return Tri::kTrue;
    }
    Tri operator()(const o::Known& k) const {
      PropertyValue a = property(e, sid, k.property);
      bool known = a.list || !is_null(a.scalar);
      return tri(known == k.known);
    }
    Tri operator()(const o::Has& h) const {
      PropertyValue a = property(e, sid, h.properties[0]);
      if (!a.list) return Tri::kUnknown;  // another database's list
      std::string name = name_of(h.properties[0]);
      auto satisfied = [&](const o::Operand& operand) {
        Scalar c = constant(operand.value, name);
        return std::any_of(a.items.begin(), a.items.end(),
                           [&](const Scalar& item) { return compare(operand.op, item, c); });
      };
      switch (h.quantifier) {
        case o::Has::Quantifier::kOne:
        case o::Has::Quantifier::kAny:
          return tri(std::any_of(h.tuples.begin(), h.tuples.end(),
                                 [&](const auto& t) { return satisfied(t[0]); }));
        case o::Has::Quantifier::kAll:
          return tri(std::all_of(h.tuples.begin(), h.tuples.end(),
                                 [&](const auto& t) { return satisfied(t[0]); }));
        case o::Has::Quantifier::kOnly:
          return tri(std::all_of(a.items.begin(), a.items.end(), [&](const Scalar& item) {
            return std::any_of(h.tuples.begin(), h.tuples.end(), [&](const auto& t) {
              return compare(o::Operator::kEq, item, constant(t[0].value, name));
            });
          }));
      }
      return Tri::kUnknown;
    }
    Tri operator()(const o::Length& l) const {
      PropertyValue a = property(e, sid, l.property);
      if (!a.list) return Tri::kUnknown;
      return tri(compare(l.op, Scalar(static_cast<double>(a.items.size())), constant(l.value, "")));
    }
    Tri operator()(const o::Logical& l) const {
      if (l.op == o::Logical::Op::kNot) {
        Tri t = evaluate(l.operands[0], e, sid);
        return t == Tri::kTrue ? Tri::kFalse : t == Tri::kFalse ? Tri::kTrue : t;
      }
      bool and_ = l.op == o::Logical::Op::kAnd;
      Tri out = and_ ? Tri::kTrue : Tri::kFalse;
      for (const o::Expression& operand : l.operands) {
        Tri t = evaluate(operand, e, sid);
        if (and_) {
          if (t == Tri::kFalse) return Tri::kFalse;
          if (t == Tri::kUnknown) out = Tri::kUnknown;
        } else {
          if (t == Tri::kTrue) return Tri::kTrue;
          if (t == Tri::kUnknown) out = Tri::kUnknown;
        }
      }
      return out;
    }
  };
  return std::visit(Visitor{e, sid}, expr.node());
}

// Random records and random filters (text, parsed by the real parser).
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  template <class T>
  const T& one_of(const std::vector<T>& v) {
    return v[static_cast<size_t>(pick(static_cast<int>(v.size())))];
  }

  Entry entry() {
    Entry e;
    if (pick(4)) e.n = pick(5);
    if (pick(4)) e.m = pick(5);
    if (pick(3)) e.x = one_of(std::vector<double>{-1.0, 0.0, 0.5, 2.0, 3.25});
    if (pick(4)) e.s = one_of(strings());
    if (pick(3)) e.flag = pick(2) == 0;
    if (pick(3)) e.at = DateTime::from_fields(2026, 1, 1 + pick(3), pick(2) * 12, 0, 0, pick(2));
    int k = pick(4);
    for (int i = 0; i < k; ++i) e.elements.push_back(one_of(elements()));
    k = pick(4);
    for (int i = 0; i < k; ++i) e.counts.push_back(pick(5));
    if (pick(3)) e.owner = std::make_shared<const Author>(Author{one_of(owners()), std::nullopt});
    return e;
  }

  static const std::vector<std::string>& strings() {
    static const std::vector<std::string> s = {"", "Fe2O3", "Fe", "NaCl", "a\"b", "x\\y", "%_"};
    return s;
  }
  static const std::vector<std::string>& elements() {
    static const std::vector<std::string> s = {"Fe", "O", "Na", "Cl"};
    return s;
  }
  static const std::vector<std::string>& owners() {
    static const std::vector<std::string> s = {"Ada", "Bob", "ab"};
    return s;
  }

  std::string filter(int depth) {
    int kind = depth <= 0 ? pick(12) : pick(16);
    switch (kind) {
      case 0:
        return (pick(2) ? "_httk_custom_n " : "_httk_custom_m ") + op() + " " +
               std::to_string(pick(7) - 1);
      case 1:
        return std::to_string(pick(5)) + " " + op() + " _httk_custom_n";  // constant left
      case 2:
        return "_httk_custom_x " + op() + " " +
               one_of(std::vector<std::string>{"0.5", "2", "-1", "3.25", "+.5e1", "0"});
      case 3: {
        std::string p = pick(2) ? "_httk_custom_s" : "label";
        return p + " " + op() + " " + quote(one_of(strings()));
      }
      case 4: {
        std::string p = pick(3) ? "_httk_custom_s" : "label";
        std::string needle = one_of(std::vector<std::string>{"", "Fe", "e", "O3", "\"", "\\", "%"});
        return p + " " +
               one_of(std::vector<std::string>{"CONTAINS", "STARTS WITH", "STARTS", "ENDS WITH",
                                               "ENDS"}) +
               " " + quote(needle);
      }
      case 5:
        switch (pick(3)) {
          case 0:
            return "_httk_custom_flag";
          case 1:
            return std::string("_httk_custom_flag ") + (pick(2) ? "=" : "!=") + " " +
                   (pick(2) ? "TRUE" : "FALSE");
          default:
            return std::string(pick(2) ? "TRUE" : "FALSE") + " = _httk_custom_flag";
        }
      case 6:
        // Instants written with different offsets.
        return "_httk_custom_at " + op() + " " +
               quote(one_of(std::vector<std::string>{
                   "2026-01-02T00:00:00Z", "2026-01-02T02:00:00+02:00", "2026-01-01T12:00:00Z",
                   "2026-01-01T07:00:00.000001-05:00", "2026-01-03T12:00:00.000001+00:00"}));
      case 7: {
        std::string list = "_httk_custom_elements";
        std::string q = one_of(std::vector<std::string>{"HAS", "HAS ALL", "HAS ANY", "HAS ONLY"});
        int k = q == "HAS" ? 1 : 1 + pick(3);
        std::string values;
        for (int i = 0; i < k; ++i) values += (i ? ", " : "") + quote(one_of(elements()));
        return list + " " + q + " " + values;
      }
      case 8: {
        std::string q = one_of(std::vector<std::string>{"HAS", "HAS ALL", "HAS ANY"});
        int k = q == "HAS" ? 1 : 1 + pick(3);
        std::string values;
        for (int i = 0; i < k; ++i) {
          values += (i ? ", " : "") + (pick(2) ? op() + " " : "") + std::to_string(pick(5));
        }
        return "_httk_custom_counts " + q + " " + values;
      }
      case 9:
        return std::string(pick(2) ? "_httk_custom_counts" : "_httk_custom_elements") + " LENGTH " +
               (pick(2) ? op() + " " : "") + std::to_string(pick(4));
      case 10: {
        static const std::vector<std::string> props = {
            "_httk_custom_n",          "_httk_custom_x",  "_httk_custom_s",
            "_httk_custom_flag",       "_httk_custom_at", "_httk_custom_elements",
            "_httk_custom_owner.name", "_exmpl_band_gap", "_httk_sid"};
        return one_of(props) + (pick(2) ? " IS KNOWN" : " IS UNKNOWN");
      }
      case 11:
        switch (pick(5)) {
          case 3: {  // the relationship
            std::vector<std::string> ids = {"\"authors-x\"", "\"calculations-1\""};
            for (const auto& [name, sid] : author_sids()) {
              ids.push_back("\"authors-" + std::to_string(sid) + "\"");
            }
            if (pick(4) == 0) {
              return "authors.id LENGTH " + (pick(2) ? op() + " " : "") + std::to_string(pick(3));
            }
            std::string q =
                one_of(std::vector<std::string>{"HAS", "HAS ALL", "HAS ANY", "HAS ONLY"});
            int k = q == "HAS" ? 1 : 1 + pick(3);
            std::string values;
            for (int i = 0; i < k; ++i) values += (i ? ", " : "") + one_of(ids);
            return "authors.id " + q + " " + values;
          }
          case 0:
            return "_httk_custom_n " + op() + " _httk_custom_m";
          case 1:
            return (pick(2) ? "_httk_custom_owner.name " : "owner_name ") + op() + " " +
                   quote(one_of(owners()));
          case 2:
            return "_exmpl_band_gap " + op() + " 1";  // another database's: unknown
          default:
            return pick(2) ? "_httk_custom_n" : "_httk_custom_owner.name STARTS \"A\"";
        }
      case 12:
        return "NOT " + paren(filter(depth - 1));
      case 13:
        return "NOT " + atom(depth - 1);
      case 14:
        return paren(filter(depth - 1)) + " AND " + paren(filter(depth - 1));
      default:
        return paren(filter(depth - 1)) + " OR " + paren(filter(depth - 1)) +
               (pick(3) == 0 ? " AND " + paren(filter(depth - 1)) : "");
    }
  }

 private:
  std::string atom(int depth) {
    std::string f = filter(depth);
    // NOT takes one comparison: anything with a keyword of its own is parenthesised.
    return paren(f);
  }
  static std::string paren(const std::string& f) { return "(" + f + ")"; }
  std::string op() { return one_of(std::vector<std::string>{"=", "!=", "<", "<=", ">", ">="}); }
  static std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }

  std::mt19937 rng_;
};

class OptimadeSearcher : public StoreFixture {
 protected:
  OptimadeSearcher() : StoreFixture("optimade_searcher") {}

  // The sids the store finds for `filter` (in sid order).
  std::vector<int64_t> run(RecordStore& store, const std::string& filter,
                           std::vector<std::string>* warnings = nullptr) {
    OptimadeSearch search =
        optimade_filter_searcher(store, schema_of<Entry>(), filter, translation_options());
    search.searcher.output(search.record.sid(), "sid");
    search.searcher.add_sort(search.record.sid());
    std::vector<int64_t> out;
    for (const Value& v : search.searcher.results().column("sid")) out.push_back(v.as<int64_t>());
    if (warnings) *warnings = search.warnings;
    return out;
  }
};

TEST_P(OptimadeSearcher, RandomFiltersAgreeWithABruteForceEvaluation) {
  RecordStore store = open();
  const uint32_t seed = 20261205;
  Generator gen(seed);
  std::vector<std::pair<int64_t, Entry>> entries;
  author_sids().clear();
  for (int i = 0; i < 60; ++i) {
    Entry e = gen.entry();
    entries.emplace_back(store.save(e), e);
    if (e.owner) author_sids()[e.owner->name] = *store.sid_of(e.owner);
  }
  int nonempty = 0;
  for (int q = 0; q < 400; ++q) {
    std::string filter = gen.filter(3);
    OptimadeFilter parsed = parse_optimade_filter(filter);
    std::vector<int64_t> want;
    for (const auto& [sid, e] : entries) {
      if (evaluate(parsed.root(), e, sid) == Tri::kTrue) want.push_back(sid);
    }
    std::vector<int64_t> got = run(store, filter);
    ASSERT_EQ(got, want) << "seed " << seed << " query " << q << ": " << filter;
    nonempty += !want.empty() && want.size() < entries.size();
  }
  // The filters are selective: most neither match nothing nor everything.
  EXPECT_GT(nonempty, 150);
}

TEST_P(OptimadeSearcher, NullsMatchNeitherAComparisonNorItsNegation) {
  RecordStore store = open();
  Entry known;
  known.n = 1;
  Entry unknown;  // n is null
  int64_t k = store.save(known), u = store.save(unknown);
  EXPECT_EQ(run(store, "_httk_custom_n = 1"), std::vector<int64_t>{k});
  EXPECT_EQ(run(store, "NOT _httk_custom_n = 1"), std::vector<int64_t>{});
  EXPECT_EQ(run(store, "NOT _httk_custom_n != 1"), std::vector<int64_t>{k});
  EXPECT_EQ(run(store, "_httk_custom_n IS UNKNOWN"), std::vector<int64_t>{u});
  EXPECT_EQ(run(store, "NOT _httk_custom_n IS KNOWN"), std::vector<int64_t>{u});
  EXPECT_EQ(run(store, "_httk_custom_n"), std::vector<int64_t>{k});  // bare: IS KNOWN
  // Two unknowns are not equal.
  EXPECT_EQ(run(store, "_httk_custom_n = _httk_custom_m"), std::vector<int64_t>{});
  // An empty list is known, and has nothing.
  EXPECT_EQ(run(store, "_httk_custom_elements IS KNOWN"), (std::vector<int64_t>{k, u}));
  EXPECT_EQ(run(store, "NOT _httk_custom_elements HAS \"Fe\""), (std::vector<int64_t>{k, u}));
  EXPECT_EQ(run(store, "_httk_custom_elements HAS ONLY \"Fe\""), (std::vector<int64_t>{k, u}));
  EXPECT_EQ(run(store, "_httk_custom_elements LENGTH 0"), (std::vector<int64_t>{k, u}));
}

TEST_P(OptimadeSearcher, AnotherDatabasesPropertyIsUnknownWithAWarning) {
  RecordStore store = open();
  Entry a;
  a.n = 1;
  Entry b;
  b.n = 2;
  int64_t sa = store.save(a), sb = store.save(b);
  std::vector<std::string> warnings;
  EXPECT_EQ(run(store, "_exmpl_band_gap < 2.0 OR _httk_custom_n = 1", &warnings),
            std::vector<int64_t>{sa});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("_exmpl_band_gap"), std::string::npos);
  EXPECT_EQ(run(store, "NOT _exmpl_band_gap < 2.0"), std::vector<int64_t>{});
  EXPECT_EQ(run(store, "_exmpl_band_gap IS UNKNOWN"), (std::vector<int64_t>{sa, sb}));
  EXPECT_EQ(run(store, "_exmpl_tags HAS 1 OR _exmpl_tags LENGTH 1"), std::vector<int64_t>{});
}

TEST_P(OptimadeSearcher, TimestampsCompareAsInstantsAndTheStoreTimestampIsAProperty) {
  RecordStore store = open();
  Entry e;
  e.at = DateTime::from_fields(2026, 1, 2, 0, 0, 0);
  int64_t sid = store.save(e);
  EXPECT_EQ(run(store, R"(_httk_custom_at = "2026-01-02T01:00:00+01:00")"),
            std::vector<int64_t>{sid});
  EXPECT_EQ(run(store, R"(_httk_custom_at < "2026-01-01T19:00:01-05:00")"),
            std::vector<int64_t>{sid});
  EXPECT_EQ(run(store, R"(_httk_custom_at > "2026-01-01T19:00:00-05:00")"), std::vector<int64_t>{});
  // The store's own timestamp (the example of seed 003): present at a time after the save,
  // absent at one before.
  EXPECT_EQ(run(store, R"(_httk_store_timestamp <= "2262-01-01T00:00:00Z")"),
            std::vector<int64_t>{sid});
  // Beyond 2262 a store time has no nanoseconds in 64 bits: refused (it used to overflow and
  // match nothing), by the translation and by the searcher itself.
  try {
    run(store, R"(_httk_store_timestamp <= "2999-01-01T00:00:00Z")");
    ADD_FAILURE() << "a store time in 2999 accepted";
  } catch (const FilterTranslationError& e) {
    EXPECT_EQ(e.category(), "not-implemented") << e.what();
  }
  Searcher direct = store.searcher();
  Var v = direct.variable<Entry>();
  EXPECT_THROW(
      {
        direct.add(v.store_timestamp() <= Value("2999-01-01T00:00:00Z"));
        direct.count();
      },
      Error);
  EXPECT_EQ(run(store, R"(_httk_store_timestamp <= "2001-01-01T00:00:00Z")"),
            std::vector<int64_t>{});
  EXPECT_EQ(run(store, "_httk_sid = " + std::to_string(sid)), std::vector<int64_t>{sid});
}

struct Refusal {
  const char* filter;
  const char* category;
  const char* mentions;
};

TEST_P(OptimadeSearcher, UntranslatableFiltersAreRefusedWithTheirCategory) {
  RecordStore store = open();
  store.save(Entry{});
  const Refusal cases[] = {
      {"nelements > 3", "unrecognized-property", "nelements"},
      {"_httk_custom_nope = 1", "unrecognized-property", "_httk_custom_nope"},
      {"_httk_weird = 1", "unrecognized-property", "_httk_weird"},
      {"_httk_custom_owner.nope = 1", "unrecognized-property", "nope"},
      {"_httk_custom_n = \"1\"", "type-mismatch", "integer"},
      {"_httk_custom_s = 1", "type-mismatch", "string"},
      {"_httk_custom_flag = 1", "type-mismatch", "boolean"},
      {"_httk_custom_n CONTAINS \"1\"", "type-mismatch", "CONTAINS"},
      {"_httk_custom_n HAS 1", "type-mismatch", "HAS"},
      {"_httk_custom_s LENGTH 1", "type-mismatch", "LENGTH"},
      {"_httk_custom_counts LENGTH 1.5", "type-mismatch", "LENGTH"},
      {"_httk_custom_elements = \"Fe\"", "type-mismatch", "HAS"},
      {"_httk_custom_at < \"yesterday\"", "type-mismatch", "RFC 3339"},
      {"_httk_custom_at < \"2026-01-01T00:00:00\"", "type-mismatch", "offset"},
      {"_httk_custom_n = _httk_custom_s", "type-mismatch", "different types"},
      {"1 = 1", "not-implemented", "two constants"},
      {"\"a\" CONTAINS _httk_custom_s", "syntax", "after a constant"},
      {"_httk_custom_s CONTAINS _httk_custom_s", "not-implemented", "property on the right"},
      {"_httk_custom_elements:_httk_custom_counts HAS \"Fe\":1", "not-implemented", "correlated"},
      {"_httk_custom_counts HAS ONLY < 3", "not-implemented", "HAS ONLY"},
      {"_httk_custom_elements HAS CONTAINS \"F\"", "not-implemented", "inside a HAS list"},
      {"_httk_custom_counts HAS _httk_custom_n", "not-implemented", "property"},
      {"_httk_custom_flag < TRUE", "syntax", "TRUE and FALSE only compare with = and !="},
      {"_httk_custom_flag < _httk_custom_flag", "not-implemented", "booleans"},
      {"_httk_custom_n = 99999999999999999999", "not-implemented", "int64"},
      {"_httk_custom_x = 1e999", "not-implemented", "double"},
      {"_httk_custom_blob IS KNOWN", "not-implemented", "bytes"},
      {"_httk_custom_n.x = 1", "not-implemented", "not a reference"},
      {"_httk_custom_counts LENGTH _httk_custom_n", "not-implemented", "LENGTH"},
      {"_httk_custom_n = ", "syntax", "column"},
      {"authors.name = \"Ada\"", "not-implemented", "only authors.id"},
      {"authors.id = \"authors-1\"", "type-mismatch", "HAS"},
      {"authors.id HAS 1", "type-mismatch", "ids"},
      {"authors.id HAS > \"authors-1\"", "not-implemented", "operator"},
  };
  for (const Refusal& r : cases) {
    try {
      run(store, r.filter);
      ADD_FAILURE() << r.filter << ": accepted";
    } catch (const FilterTranslationError& e) {
      EXPECT_EQ(e.category(), r.category) << r.filter << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(r.mentions), std::string::npos)
          << r.filter << ": " << e.what();
      EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kBadValue));
    }
  }
}

TEST_P(OptimadeSearcher, PagesOfAFilteredSearchConcatenateToTheFullListing) {
  RecordStore store = open();
  std::vector<int64_t> want;
  for (int i = 0; i < 23; ++i) {
    Entry e;
    e.n = i % 4;
    int64_t sid = store.save(e);
    if (i % 4 != 0) want.push_back(sid);
  }
  std::vector<int64_t> got;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    OptimadeSearch search =
        optimade_filter_searcher(store, schema_of<Entry>(), "_httk_custom_n > 0");
    search.searcher.output(search.record.sid(), "sid");
    ResultPage page = search.searcher.page(5, {{"sid"}}, cursor);
    for (const Value& v : page.rows.column("sid")) got.push_back(v.as<int64_t>());
    cursor = page.next;
    ASSERT_LT(++pages, 10);
  } while (cursor);
  EXPECT_EQ(got, want);
  EXPECT_EQ(pages, 4);
}

TEST_P(OptimadeSearcher, RelationshipsAreListsOfIds) {
  RecordStore store = open();
  Entry a;
  a.owner = std::make_shared<const Author>(Author{"Ada", "ada@example.org"});
  int64_t sa = store.save(a), sb = store.save(Entry{});
  std::string ada = "\"authors-" + std::to_string(*store.sid_of(a.owner)) + "\"";
  // One reference: a list of one id, or none.
  EXPECT_EQ(run(store, "authors.id HAS " + ada), std::vector<int64_t>{sa});
  EXPECT_EQ(run(store, "NOT authors.id HAS " + ada), std::vector<int64_t>{sb});
  EXPECT_EQ(run(store, "authors.id HAS ONLY " + ada), (std::vector<int64_t>{sa, sb}));
  EXPECT_EQ(run(store, "authors.id HAS ALL " + ada + ", \"authors-999\""), std::vector<int64_t>{});
  EXPECT_EQ(run(store, "authors.id HAS ANY \"authors-x\", " + ada), std::vector<int64_t>{sa});
  EXPECT_EQ(run(store, "authors.id LENGTH 0"), std::vector<int64_t>{sb});
  EXPECT_EQ(run(store, "authors.id LENGTH >= 1"), std::vector<int64_t>{sa});
  EXPECT_EQ(run(store, "authors.id IS KNOWN"), (std::vector<int64_t>{sa, sb}));

  // A list of records: the ids of its elements.
  Structure s = make_structure("TiO2", 3);
  int64_t structure = store.save(s);
  // Its one site is the same as TiO2's first (content-id dedup): one sid, in both lists.
  int64_t one_site = store.save(make_structure("SrO", 1));
  std::vector<std::string> sites;
  for (const Site& site : s.sites)
    sites.push_back("\"sites-" + std::to_string(*store.sid_of(site)) + "\"");
  OptimadeTranslationOptions names;
  names.relationships = {{"sites", "sites"}};
  auto found = [&](const std::string& filter) {
    OptimadeSearch search = optimade_filter_searcher(store, schema_of<Structure>(), filter, names);
    search.searcher.output(search.record.sid(), "sid");
    std::vector<int64_t> out;
    for (const Value& v : search.searcher.results().column("sid")) out.push_back(v.as<int64_t>());
    return out;
  };
  EXPECT_EQ(found("sites.id HAS " + sites[1]), std::vector<int64_t>{structure});
  EXPECT_EQ(found("sites.id HAS ALL " + sites[0] + ", " + sites[2]),
            std::vector<int64_t>{structure});
  EXPECT_EQ(found("sites.id HAS " + sites[0]), (std::vector<int64_t>{structure, one_site}));
  EXPECT_EQ(found("sites.id HAS ONLY " + sites[0] + ", " + sites[1]),
            std::vector<int64_t>{one_site});
  EXPECT_EQ(found("sites.id HAS ONLY " + sites[0] + ", " + sites[1] + ", " + sites[2]),
            (std::vector<int64_t>{structure, one_site}));
  EXPECT_EQ(found("sites.id LENGTH 3"), std::vector<int64_t>{structure});
}

// Untrusted input: the longest chains a filter can hold (about 100 KB) translate and run
// without deep recursion (the translation builds balanced trees).
TEST_P(OptimadeSearcher, LongChainsRunAsBalancedTrees) {
  RecordStore store = open();
  Entry e;
  e.n = 3999;
  e.counts = {7};
  int64_t sid = store.save(e);
  store.save(Entry{});
  std::string ors, values;
  for (int i = 0; i < 4000; ++i) {
    ors += (i ? " OR " : "") + std::string("_httk_custom_n = ") + std::to_string(i);
    values += (i ? "," : "") + std::to_string(i + 7);
  }
  ASSERT_LT(ors.size(), kMaxOptimadeFilterBytes);
  EXPECT_EQ(run(store, ors), std::vector<int64_t>{sid});
  EXPECT_EQ(run(store, "_httk_custom_counts HAS ANY " + values), std::vector<int64_t>{sid});
  EXPECT_EQ(run(store, "NOT (" + ors + ")"), std::vector<int64_t>{});
  // Parentheses around the same operator, as deep as the parser allows, are one chain.
  std::string nested = "_httk_custom_n = 0";
  for (int i = 1; i < kMaxOptimadeFilterDepth; ++i) {
    nested = "(" + nested + " OR _httk_custom_n = " + std::to_string(3999 - i + 1) + ")";
  }
  EXPECT_EQ(run(store, nested), std::vector<int64_t>{sid});
}

// The example of docs/record-store.md ("OPTIMADE filters on the searcher"), as written there.
TEST_P(OptimadeSearcher, DocumentationExampleWorks) {
  RecordStore store = open();
  Structure tio2 = make_structure("TiO2", 2);
  tio2.energy = -3.0;
  int64_t match = store.save(tio2);
  Structure bob = make_structure("SrO", 2, "Bob");  // another author
  store.save(bob);
  Structure hot = make_structure("MgO", 2);  // energy above -1.0
  hot.energy = 0.5;
  store.save(hot);

  OptimadeTranslationOptions names;  // prefix "_httk_" by default
  names.properties = {{"chemical_formula_reduced", "formula"}, {"author_name", "author.name"}};
  OptimadeSearch found = optimade_filter_searcher(
      store, schema_of<Structure>(),
      R"(_httk_custom_spacegroup >= 195 AND chemical_formula_reduced CONTAINS "O" AND
       NOT _httk_custom_energy > -1.0 AND _httk_custom_tags HAS ANY "cubic", "perovskite" AND
       author_name STARTS "Ad" AND _exmpl_band_gap IS UNKNOWN)",
      names);
  found.searcher.output(found.record.sid(), "sid");
  ResultPage page = found.searcher.page(100, {{"sid"}});  // then page(100, {{"sid"}}, page.next)
  ASSERT_EQ(page.rows.size(), 1u);
  EXPECT_EQ(page.rows[0]["sid"].as<int64_t>(), match);
  EXPECT_FALSE(page.next);
  ASSERT_EQ(found.warnings.size(), 1u);
  EXPECT_EQ(found.warnings[0],
            "'_exmpl_band_gap' has another database's prefix: treated as unknown");
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimadeSearcher, backend_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
