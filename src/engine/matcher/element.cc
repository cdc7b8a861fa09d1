// Element predicates: $exists, $type, $size, $mod, $regex.
#include <bitset>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/matcher/expression.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::Value;

class ExistsPredicate final : public Predicate {
 public:
  bool test(const Value& v, std::optional<size_t>*) const override { return !v.is_missing(); }
};

class TypePredicate final : public Predicate {
 public:
  TypePredicate(const std::vector<int>& codes, bool number) : number_(number) {
    for (int c : codes) types_.set(static_cast<uint8_t>(c));
  }
  bool test(const Value& v, std::optional<size_t>*) const override {
    if (v.is_missing()) return false;
    if (number_ && v.is_number()) return true;
    return types_.test(static_cast<uint8_t>(v.type()));
  }

 private:
  std::bitset<256> types_;
  bool number_;
};

class SizePredicate final : public Predicate {
 public:
  explicit SizePredicate(long long size) : size_(size) {}
  bool test(const Value& v, std::optional<size_t>*) const override {
    if (!v.is_array() || size_ < 0) return false;
    long long n = 0;
    for (const auto& el : v.as_array()) {
      (void)el;
      if (++n > size_) return false;
    }
    return n == size_;
  }
  bool expands_arrays() const override { return false; }

 private:
  long long size_;
};

// A number truncated toward zero to int64 (saturating), as MongoDB's numberLong() does.
bool truncated_int64(const Value& v, int64_t* out) {
  switch (v.type()) {
    case BsonType::kInt32:
      *out = v.as_int32();
      return true;
    case BsonType::kInt64:
      *out = v.as_int64();
      return true;
    case BsonType::kDouble:
    case BsonType::kDecimal128: {
      double d = v.number_as_double();
      if (std::isnan(d) || std::isinf(d)) return false;
      d = std::trunc(d);
      if (d >= 9223372036854775807.0) {
        *out = std::numeric_limits<int64_t>::max();
      } else if (d <= -9223372036854775808.0) {
        *out = std::numeric_limits<int64_t>::min();
      } else {
        *out = static_cast<int64_t>(d);
      }
      return true;
    }
    default:
      return false;
  }
}

class ModPredicate final : public Predicate {
 public:
  ModPredicate(long long divisor, long long remainder) : divisor_(divisor), remainder_(remainder) {}
  bool test(const Value& v, std::optional<size_t>*) const override {
    int64_t n;
    if (!truncated_int64(v, &n)) return false;
    int64_t r = divisor_ == -1 ? 0 : n % divisor_;
    return r == remainder_;
  }

 private:
  int64_t divisor_;
  int64_t remainder_;
};

class RegexPredicate final : public Predicate {
 public:
  explicit RegexPredicate(Regex regex) : regex_(std::move(regex)) {}
  bool test(const Value& v, std::optional<size_t>*) const override {
    return regex_.matches_value(v);
  }

 private:
  Regex regex_;
};

}  // namespace

PredicatePtr make_exists() {
  return std::make_unique<ExistsPredicate>();
}
PredicatePtr make_type(std::vector<int> codes, bool number) {
  return std::make_unique<TypePredicate>(codes, number);
}
PredicatePtr make_size(long long size) {
  return std::make_unique<SizePredicate>(size);
}
PredicatePtr make_mod(long long divisor, long long remainder) {
  return std::make_unique<ModPredicate>(divisor, remainder);
}
PredicatePtr make_regex(Regex regex) {
  return std::make_unique<RegexPredicate>(std::move(regex));
}

}  // namespace mongostore::engine::matcher_detail
