// Comparison predicates: $eq $lt $lte $gt $gte and $in.
//
// A comparison only matches values in the operand's type bracket (so {$gt: 5} never matches a
// string), except that MinKey and MaxKey operands compare against every type. NaN equals NaN
// and is neither less nor greater than any number. Equality with null (and $lte/$gte null,
// and $in with a null) also matches a missing field.
#include <algorithm>
#include <cmath>

#include "engine/matcher/expression.h"
#include "mongostore/bson/compare.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::Value;

bool is_nan(const Value& v) {
  if (v.type() == BsonType::kDouble) return std::isnan(v.as_double());
  if (v.type() == BsonType::kDecimal128) return v.as_decimal128().is_nan();
  return false;
}

class ComparePredicate final : public Predicate {
 public:
  ComparePredicate(CompareOp op, Value rhs, const bson::StringComparator* strings)
      : op_(op),
        strings_(strings),
        rhs_(rhs),
        rhs_null_(rhs.is_null()),
        rhs_nan_(is_nan(rhs)),
        rhs_bracket_(bson::type_bracket(rhs.type())),
        any_bracket_(rhs.type() == BsonType::kMinKey || rhs.type() == BsonType::kMaxKey) {}

  bool test(const Value& v, std::optional<size_t>*) const override {
    if (v.is_missing()) return rhs_null_ && op_ != CompareOp::kLt && op_ != CompareOp::kGt;
    if (!any_bracket_ && bson::type_bracket(v.type()) != rhs_bracket_) return false;
    if (v.is_number() && rhs_.is_number()) {
      bool lhs_nan = is_nan(v);
      if (lhs_nan || rhs_nan_) {
        bool both = lhs_nan && rhs_nan_;
        return both && op_ != CompareOp::kLt && op_ != CompareOp::kGt;
      }
    }
    int c = bson::compare_values(v, rhs_, strings_);
    switch (op_) {
      case CompareOp::kEq:
        return c == 0;
      case CompareOp::kLt:
        return c < 0;
      case CompareOp::kLte:
        return c <= 0;
      case CompareOp::kGt:
        return c > 0;
      case CompareOp::kGte:
        return c >= 0;
    }
    return false;
  }

 private:
  CompareOp op_;
  const bson::StringComparator* strings_;
  Value rhs_;
  bool rhs_null_;
  bool rhs_nan_;
  int rhs_bracket_;
  bool any_bracket_;
};

class InPredicate final : public Predicate {
 public:
  InPredicate(std::vector<Value> values, std::vector<Regex> regexes,
              const bson::StringComparator* strings)
      : values_(std::move(values)), regexes_(std::move(regexes)), less_{strings} {
    std::sort(values_.begin(), values_.end(), less_);
    for (const auto& v : values_) has_null_ |= v.is_null();
  }

  bool test(const Value& v, std::optional<size_t>*) const override {
    if (v.is_missing()) return has_null_;
    if (std::binary_search(values_.begin(), values_.end(), v, less_)) return true;
    for (const auto& r : regexes_) {
      if (r.matches_value(v)) return true;
    }
    return false;
  }

 private:
  std::vector<Value> values_;
  std::vector<Regex> regexes_;
  bson::ValueLess less_;
  bool has_null_ = false;
};

}  // namespace

PredicatePtr make_compare(CompareOp op, Value rhs, const bson::StringComparator* strings) {
  return std::make_unique<ComparePredicate>(op, rhs, strings);
}

PredicatePtr make_in(std::vector<Value> values, std::vector<Regex> regexes,
                     const bson::StringComparator* strings) {
  return std::make_unique<InPredicate>(std::move(values), std::move(regexes), strings);
}

}  // namespace mongostore::engine::matcher_detail
