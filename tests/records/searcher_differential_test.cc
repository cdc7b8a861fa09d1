// The differential test of the searcher: seeded random conditions over random records,
// evaluated by the store (one aggregation on the server) and by a plain in-memory evaluator
// of the same three-valued semantics written here, independently of the query compiler.
// Rows, order (a random sort with nulls first or last and the sid tie-break), offsets,
// limits and counts must agree, on every backend. Seeded: a failure names its seed.
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

struct Sample {
  std::optional<int64_t> a, b;
  std::optional<double> d;
  std::optional<std::string> s;
  std::vector<int64_t> xs;
  std::shared_ptr<const Author> owner;  // a reference: conditions through it, and on it
};
inline auto declare_record(Tag<Sample>) {
  return record<Sample>("mongostore.tests.Sample", field("a", &Sample::a, indexed),
                        field("b", &Sample::b), field("d", &Sample::d), field("s", &Sample::s),
                        field("xs", &Sample::xs), field("owner", &Sample::owner, nullable))
      .dedup(Dedup::kNone);
}

namespace {

enum class Tri { kTrue, kFalse, kUnknown };

Tri tri(bool b) {
  return b ? Tri::kTrue : Tri::kFalse;
}

// A condition with its store form and its in-memory meaning, and a description for failures.
struct Cond {
  Condition store;
  std::function<Tri(const Sample&)> eval;
  std::string text;
};

template <class T>
bool apply(CompareOp op, const T& x, const T& y) {
  switch (op) {
    case CompareOp::kEq:
      return x == y;
    case CompareOp::kNe:
      return x != y;
    case CompareOp::kLt:
      return x < y;
    case CompareOp::kLe:
      return x <= y;
    case CompareOp::kGt:
      return x > y;
    case CompareOp::kGe:
      return x >= y;
  }
  return false;
}

const char* op_name(CompareOp op) {
  static const char* names[] = {"==", "!=", "<", "<=", ">", ">="};
  return names[static_cast<int>(op)];
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Sample sample() {
    Sample x;
    if (pick(4)) x.a = pick(5);
    if (pick(4)) x.b = pick(5);
    if (pick(3)) x.d = std::vector<double>{-1.0, 0.0, 0.5, 2.0, 3.25}[pick(5)];
    if (pick(4)) x.s = strings()[pick(static_cast<int>(strings().size()))];
    int n = pick(4);
    for (int i = 0; i < n; ++i) x.xs.push_back(pick(5));
    static const char* owners[] = {"Ada", "Bob", "ab"};
    if (pick(3)) x.owner = std::make_shared<const Author>(Author{owners[pick(3)], std::nullopt});
    return x;
  }

  Cond condition(const Var& v, int depth) {
    int kind = depth <= 0 ? pick(9) : pick(12);
    switch (kind) {
      case 0:
        return int_compare(v, "a", &Sample::a);
      case 1:
        return int_compare(v, "b", &Sample::b);
      case 2:
        return double_compare(v);
      case 3:
        return field_compare(v);
      case 4:
        return is_in(v);
      case 5:
        return string_test(v);
      case 6:
        return child(v);
      case 8:
        return reference(v);
      case 7:
        if (pick(2)) return {always_true(), [](const Sample&) { return Tri::kTrue; }, "true"};
        return {always_false(), [](const Sample&) { return Tri::kFalse; }, "false"};
      case 9: {
        Cond c = condition(v, depth - 1);
        auto e = c.eval;
        return {~c.store,
                [e](const Sample& x) {
                  Tri t = e(x);
                  return t == Tri::kTrue ? Tri::kFalse : t == Tri::kFalse ? Tri::kTrue : t;
                },
                "~(" + c.text + ")"};
      }
      case 10: {
        Cond l = condition(v, depth - 1), r = condition(v, depth - 1);
        auto le = l.eval, re = r.eval;
        return {l.store & r.store,
                [le, re](const Sample& x) {
                  Tri p = le(x), q = re(x);
                  if (p == Tri::kFalse || q == Tri::kFalse) return Tri::kFalse;
                  if (p == Tri::kTrue && q == Tri::kTrue) return Tri::kTrue;
                  return Tri::kUnknown;
                },
                "(" + l.text + " & " + r.text + ")"};
      }
      default: {
        Cond l = condition(v, depth - 1), r = condition(v, depth - 1);
        auto le = l.eval, re = r.eval;
        return {l.store | r.store,
                [le, re](const Sample& x) {
                  Tri p = le(x), q = re(x);
                  if (p == Tri::kTrue || q == Tri::kTrue) return Tri::kTrue;
                  if (p == Tri::kFalse && q == Tri::kFalse) return Tri::kFalse;
                  return Tri::kUnknown;
                },
                "(" + l.text + " | " + r.text + ")"};
      }
    }
  }

  static const std::vector<std::string>& strings() {
    static const std::vector<std::string> s = {"", "a", "ab", "b%", "a\n", "ba", "A_b", "%"};
    return s;
  }

  CompareOp op() { return static_cast<CompareOp>(pick(6)); }

 private:
  // A comparison with a literal that may be null: == / != null test nullness, an ordering
  // against null is never true and its negation holds for every known value.
  template <class T>
  static Tri null_compare(CompareOp o, const std::optional<T>& p) {
    if (o == CompareOp::kEq) return tri(!p);
    if (o == CompareOp::kNe) return tri(bool(p));
    return p ? Tri::kFalse : Tri::kUnknown;
  }

  Cond int_compare(const Var& v, const std::string& name, std::optional<int64_t> Sample::*member) {
    CompareOp o = op();
    if (pick(6) == 0) {
      return {v.field(name).compare(o, Value()),
              [o, member](const Sample& x) { return null_compare(o, x.*member); },
              name + op_name(o) + "null"};
    }
    int64_t lit = pick(6) - 1;
    return {v.field(name).compare(o, Value(lit)),
            [o, member, lit](const Sample& x) {
              const auto& p = x.*member;
              return p ? tri(apply(o, *p, lit)) : Tri::kUnknown;
            },
            name + op_name(o) + std::to_string(lit)};
  }

  Cond double_compare(const Var& v) {
    CompareOp o = op();
    if (pick(6) == 0) {
      return {v.field("d").compare(o, Value()),
              [o](const Sample& x) { return null_compare(o, x.d); },
              "d" + std::string(op_name(o)) + "null"};
    }
    bool as_int = pick(2);
    double lit = as_int ? pick(4) - 1 : std::vector<double>{0.5, 2.0, -0.5, 3.25}[pick(4)];
    Value literal = as_int ? Value(static_cast<int64_t>(lit)) : Value(lit);
    return {v.field("d").compare(o, literal),
            [o, lit](const Sample& x) { return x.d ? tri(apply(o, *x.d, lit)) : Tri::kUnknown; },
            "d" + std::string(op_name(o)) + std::to_string(lit)};
  }

  Cond field_compare(const Var& v) {
    CompareOp o = op();
    return {v.field("a").compare(o, v.field("b")),
            [o](const Sample& x) { return x.a && x.b ? tri(apply(o, *x.a, *x.b)) : Tri::kUnknown; },
            "a" + std::string(op_name(o)) + "b"};
  }

  Cond is_in(const Var& v) {
    std::vector<Value> values;
    std::vector<int64_t> ints;
    bool with_null = false;
    std::string text = "a in {";
    int n = pick(4);
    for (int i = 0; i < n; ++i) {
      if (pick(5) == 0) {
        values.push_back(Value());
        with_null = true;
        text += "null,";
      } else {
        int64_t k = pick(5);
        values.push_back(Value(k));
        ints.push_back(k);
        text += std::to_string(k) + ",";
      }
    }
    return {v.field("a").is_in(values),
            [ints, with_null](const Sample& x) {
              if (!x.a) return with_null ? Tri::kTrue : Tri::kUnknown;
              return tri(std::find(ints.begin(), ints.end(), *x.a) != ints.end());
            },
            text + "}"};
  }

  Cond string_test(const Var& v) {
    static const std::vector<std::string> needles = {"", "a", "b", "%", "\n", "_", "A", "ab"};
    std::string t = needles[pick(static_cast<int>(needles.size()))];
    int which = pick(5);
    auto escaped = [](std::string s) {
      std::string out;
      for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
      return out;
    };
    if (which == 3) {  // equality with a string or null
      CompareOp o = pick(2) ? CompareOp::kEq : CompareOp::kNe;
      if (pick(4) == 0) {
        return {v.field("s").compare(o, Value()),
                [o](const Sample& x) { return null_compare(o, x.s); },
                "s" + std::string(op_name(o)) + "null"};
      }
      return {v.field("s").compare(o, Value(t)),
              [o, t](const Sample& x) { return x.s ? tri(apply(o, *x.s, t)) : Tri::kUnknown; },
              "s" + std::string(op_name(o)) + "'" + escaped(t) + "'"};
    }
    if (which == 4) {  // ordering on strings
      CompareOp o = op();
      return {v.field("s").compare(o, Value(t)),
              [o, t](const Sample& x) { return x.s ? tri(apply(o, *x.s, t)) : Tri::kUnknown; },
              "s" + std::string(op_name(o)) + "'" + escaped(t) + "'"};
    }
    FieldRef s = v.field("s");
    Condition c = which == 0 ? s.contains(t) : which == 1 ? s.starts_with(t) : s.ends_with(t);
    return {c,
            [which, t](const Sample& x) {
              if (!x.s) return Tri::kUnknown;
              const std::string& y = *x.s;
              if (which == 0) return tri(y.find(t) != std::string::npos);
              if (which == 1) return tri(y.compare(0, t.size(), t) == 0);
              return tri(y.size() >= t.size() && y.compare(y.size() - t.size(), t.size(), t) == 0);
            },
            std::string(which == 0   ? "contains"
                        : which == 1 ? "starts"
                                     : "ends") +
                "('" + escaped(t) + "')"};
  }

  Cond child(const Var& v) {
    std::vector<Value> values;
    std::vector<int64_t> ints;
    int n = pick(3);
    std::string set;
    for (int i = 0; i < n; ++i) {
      int64_t k = pick(5);
      values.push_back(Value(k));
      ints.push_back(k);
      set += std::to_string(k) + ",";
    }
    auto in = [ints](int64_t x) { return std::find(ints.begin(), ints.end(), x) != ints.end(); };
    switch (pick(3)) {
      case 0:
        return {v.field("xs").has_any(values),
                [in](const Sample& x) { return tri(std::any_of(x.xs.begin(), x.xs.end(), in)); },
                "xs has_any {" + set + "}"};
      case 1:
        return {v.field("xs").has_only(values),
                [in](const Sample& x) { return tri(std::all_of(x.xs.begin(), x.xs.end(), in)); },
                "xs has_only {" + set + "}"};
      default: {
        CompareOp o = op();
        int64_t lit = pick(5);
        return {v.field("xs").compare(o, Value(lit)),
                [o, lit](const Sample& x) {
                  return tri(std::any_of(x.xs.begin(), x.xs.end(),
                                         [&](int64_t e) { return apply(o, e, lit); }));
                },
                "xs" + std::string(op_name(o)) + std::to_string(lit)};
      }
    }
  }

  // Through a reference (a missing owner makes its name null) and on the reference itself.
  Cond reference(const Var& v) {
    static const std::vector<std::string> names = {"Ada", "Bob", "ab", "a"};
    if (pick(4) == 0) {
      CompareOp o = pick(2) ? CompareOp::kEq : CompareOp::kNe;
      return {
          v.field("owner").compare(o, Value()),
          [o](const Sample& x) { return o == CompareOp::kEq ? tri(!x.owner) : tri(bool(x.owner)); },
          std::string("owner") + op_name(o) + "null"};
    }
    std::string t = names[pick(static_cast<int>(names.size()))];
    if (pick(2)) {
      CompareOp o = op();
      return {v.field("owner").field("name").compare(o, Value(t)),
              [o, t](const Sample& x) {
                return x.owner ? tri(apply(o, x.owner->name, t)) : Tri::kUnknown;
              },
              "owner.name" + std::string(op_name(o)) + t};
    }
    return {v.field("owner").field("name").starts_with(t),
            [t](const Sample& x) {
              return x.owner ? tri(x.owner->name.compare(0, t.size(), t) == 0) : Tri::kUnknown;
            },
            "owner.name starts " + t};
  }

  std::mt19937 rng_;
};

class SearcherDifferential : public StoreFixture {
 protected:
  SearcherDifferential() : StoreFixture("searcher_differential") {}
};

TEST_P(SearcherDifferential, RandomConditionsAgreeWithAnInMemoryEvaluator) {
  RecordStore store = open();
  const uint32_t seed = 20261205;
  Generator gen(seed);
  std::vector<std::pair<int64_t, Sample>> samples;
  for (int i = 0; i < 60; ++i) {
    Sample x = gen.sample();
    samples.emplace_back(store.save(x), x);
  }
  for (int q = 0; q < 600; ++q) {
    Searcher search = store.searcher();
    Var v = search.variable<Sample>();
    Cond c = gen.condition(v, 3);
    search.add(c.store);
    search.output(v.sid(), "sid");
    // A random sort on a or d (nulls first or last, either direction), then the sid.
    bool sort_on_a = gen.pick(2);
    bool descending = gen.pick(2);
    Nulls nulls = gen.pick(2) ? Nulls::kFirst : Nulls::kLast;
    bool sorted = gen.pick(3) != 0;
    if (sorted) search.add_sort(v.field(sort_on_a ? "a" : "d"), descending, nulls);
    int64_t offset = gen.pick(3) == 0 ? gen.pick(5) : 0;
    std::optional<int64_t> limit;
    if (gen.pick(3) == 0) limit = gen.pick(8);
    if (offset) search.add_offset(offset);
    if (limit) search.set_limit(*limit);

    std::vector<std::pair<int64_t, const Sample*>> expected;
    for (const auto& [sid, x] : samples) {
      if (c.eval(x) == Tri::kTrue) expected.emplace_back(sid, &x);
    }
    auto key = [&](const Sample& x) -> std::optional<double> {
      if (sort_on_a) return x.a ? std::optional<double>(static_cast<double>(*x.a)) : std::nullopt;
      return x.d;
    };
    if (sorted) {
      std::stable_sort(expected.begin(), expected.end(), [&](const auto& l, const auto& r) {
        auto kl = key(*l.second), kr = key(*r.second);
        int rl = kl ? 1 : 0, rr = kr ? 1 : 0;
        if (nulls == Nulls::kLast) rl = 1 - rl, rr = 1 - rr;
        if (rl != rr) return rl < rr;
        if (kl && kr && *kl != *kr) return descending ? *kl > *kr : *kl < *kr;
        return l.first < r.first;
      });
    }
    int64_t total = static_cast<int64_t>(expected.size());
    std::vector<int64_t> want;
    for (size_t i = static_cast<size_t>(offset); i < expected.size(); ++i) {
      if (limit && static_cast<int64_t>(want.size()) >= *limit) break;
      want.push_back(expected[i].first);
    }
    std::vector<int64_t> got;
    for (const Value& s : search.results().column("sid")) got.push_back(s.as<int64_t>());
    std::ostringstream what;
    what << "seed " << seed << " query " << q << ": " << c.text << (sorted ? " sorted" : "")
         << " offset " << offset << " limit " << (limit ? std::to_string(*limit) : "-");
    ASSERT_EQ(got, want) << what.str();
    ASSERT_EQ(search.count(), total) << what.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SearcherDifferential, store_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
