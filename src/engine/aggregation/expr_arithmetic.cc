// Arithmetic expressions: $add $subtract $multiply $divide $mod $abs $ceil $floor $round
// $trunc $sqrt $pow $exp $ln $log $log10 $rand. Null or missing arguments give null; int32 results
// widen to int64 and then to double on overflow; any double makes a double and any decimal a
// decimal. Decimal operations other than add/multiply go through double (an approximation).
#include <cmath>
#include <limits>
#include <random>

#include "engine/aggregation/internal.h"
#include "engine/update/decimal_math.h"

namespace mongostore::engine::aggregation_detail {

namespace {

enum Kind { kI32 = 0, kI64 = 1, kDbl = 2, kDec = 3 };

struct Num {
  Kind kind = kI32;
  int64_t i = 0;
  double d = 0;
  bson::Decimal128 dec;

  static Num of(const Value& v) {
    Num n;
    switch (v.type()) {
      case BsonType::kInt32:
        n.kind = kI32;
        n.i = v.as_int32();
        break;
      case BsonType::kInt64:
        n.kind = kI64;
        n.i = v.as_int64();
        break;
      case BsonType::kDouble:
        n.kind = kDbl;
        n.d = v.as_double();
        break;
      default:
        n.kind = kDec;
        n.dec = v.as_decimal128();
        break;
    }
    return n;
  }
  double as_double() const {
    if (kind == kDbl) return d;
    if (kind == kDec) return decimal_to_double(dec);
    return static_cast<double>(i);
  }
  bson::Decimal128 as_decimal() const {
    if (kind == kDec) return dec;
    if (kind == kDbl) return decimal_from_double(d);
    return bson::Decimal128::from_string(std::to_string(i));
  }
  OwnedValue value() const {
    switch (kind) {
      case kI32:
        return make_value(static_cast<int32_t>(i));
      case kI64:
        return make_value(i);
      case kDbl:
        return make_value(d);
      default:
        return make_value(dec);
    }
  }
};

Num dbl(double d) {
  Num n;
  n.kind = kDbl;
  n.d = d;
  return n;
}
Num decn(bson::Decimal128 v) {
  Num n;
  n.kind = kDec;
  n.dec = v;
  return n;
}
Num integral(int64_t v, Kind k) {
  Num n;
  n.i = v;
  n.kind = (k == kI32 && v >= std::numeric_limits<int32_t>::min() &&
            v <= std::numeric_limits<int32_t>::max())
               ? kI32
               : kI64;
  return n;
}

Num add(const Num& a, const Num& b) {
  Kind k = std::max(a.kind, b.kind);
  if (k == kDec) return decn(update_detail::decimal_add(a.as_decimal(), b.as_decimal()));
  if (k == kDbl) return dbl(a.as_double() + b.as_double());
  int64_t r = 0;
  if (__builtin_add_overflow(a.i, b.i, &r)) return dbl(a.as_double() + b.as_double());
  return integral(r, k);
}

Num negate(const Num& a) {
  if (a.kind == kDec) {
    bson::Decimal128 d = a.dec;
    d.high ^= (uint64_t{1} << 63);
    return decn(d);
  }
  if (a.kind == kDbl) return dbl(-a.d);
  if (a.i == std::numeric_limits<int64_t>::min()) return dbl(-a.as_double());
  return integral(-a.i, a.kind);
}

Num multiply(const Num& a, const Num& b) {
  Kind k = std::max(a.kind, b.kind);
  if (k == kDec) return decn(update_detail::decimal_multiply(a.as_decimal(), b.as_decimal()));
  if (k == kDbl) return dbl(a.as_double() * b.as_double());
  int64_t r = 0;
  if (__builtin_mul_overflow(a.i, b.i, &r)) return dbl(a.as_double() * b.as_double());
  return integral(r, k);
}

Num from_double_kind(double r, Kind k) {
  if (k == kDec) return decn(decimal_from_double(r));
  return dbl(r);
}

OwnedValue op_add(std::string_view, std::span<const Value> args) {
  Num sum;
  sum.kind = kI32;
  std::optional<int64_t> date;
  bool null_seen = false;
  for (const Value& v : args) {
    if (nullish(v)) {
      null_seen = true;
      continue;
    }
    if (v.type() == BsonType::kDateTime) {
      if (date) fail(16612, "only one date allowed in an $add expression");
      date = v.as_datetime().millis;
      continue;
    }
    if (!v.is_number()) {
      fail(16554, "$add only supports numeric or date types, not " + type_name(v));
    }
    sum = add(sum, Num::of(v));
  }
  if (null_seen) return null_value();
  if (date) {
    double total = static_cast<double>(*date) + sum.as_double();
    if (sum.kind == kI32 || sum.kind == kI64) {
      return make_value(bson::DateTime{*date + sum.i});
    }
    return make_value(bson::DateTime{static_cast<int64_t>(std::llround(total))});
  }
  return sum.value();
}

OwnedValue op_subtract(std::string_view, std::span<const Value> args) {
  Value a = args[0];
  Value b = args[1];
  if (nullish(a) || nullish(b)) return null_value();
  if (a.is_number() && b.is_number()) return add(Num::of(a), negate(Num::of(b))).value();
  if (a.type() == BsonType::kDateTime) {
    if (b.type() == BsonType::kDateTime) {
      return make_value(a.as_datetime().millis - b.as_datetime().millis);
    }
    if (b.is_number()) {
      Num n = Num::of(b);
      int64_t delta = (n.kind == kI32 || n.kind == kI64) ? n.i : std::llround(n.as_double());
      return make_value(bson::DateTime{a.as_datetime().millis - delta});
    }
  }
  fail(16556, "can't $subtract " + type_name(b) + " from " + type_name(a));
}

OwnedValue op_multiply(std::string_view, std::span<const Value> args) {
  Num product;
  product.kind = kI32;
  product.i = 1;
  bool null_seen = false;
  for (const Value& v : args) {
    if (nullish(v)) {
      null_seen = true;
      continue;
    }
    if (!v.is_number()) fail(16555, "$multiply only supports numeric types, not " + type_name(v));
    product = multiply(product, Num::of(v));
  }
  if (null_seen) return null_value();
  return product.value();
}

OwnedValue op_divide(std::string_view, std::vector<OwnedValue>& args) {
  Value a = args[0].view();
  Value b = args[1].view();
  if (nullish(a) || nullish(b)) return null_value();
  if (!a.is_number() || !b.is_number()) {
    fail(16609,
         "$divide only supports numeric types, not " + type_name(a) + " and " + type_name(b));
  }
  Num x = Num::of(a);
  Num y = Num::of(b);
  if (y.as_double() == 0 && !(y.kind == kDec && y.dec.is_nan())) {
    fail(2, "can't $divide by zero");
  }
  Kind k = std::max(x.kind, y.kind);
  return from_double_kind(x.as_double() / y.as_double(), k).value();
}

OwnedValue op_mod(std::string_view, std::vector<OwnedValue>& args) {
  Value a = args[0].view();
  Value b = args[1].view();
  if (nullish(a) || nullish(b)) return null_value();
  if (!a.is_number() || !b.is_number()) {
    fail(16611, "$mod only supports numeric types, not " + type_name(a) + " and " + type_name(b));
  }
  Num x = Num::of(a);
  Num y = Num::of(b);
  Kind k = std::max(x.kind, y.kind);
  if (k <= kI64) {
    if (y.i == 0) fail(16610, "can't $mod by zero");
    if (y.i == -1) return integral(0, k).value();
    return integral(x.i % y.i, k).value();
  }
  if (y.as_double() == 0) fail(16610, "can't $mod by zero");
  return from_double_kind(std::fmod(x.as_double(), y.as_double()), k).value();
}

using UnaryDouble = double (*)(double);

// $abs $ceil $floor $trunc $sqrt $exp $ln $log10: one numeric argument.
ReadingFn unary(UnaryDouble f, bool keeps_integers) {
  return [f, keeps_integers](std::string_view name, std::span<const Value> args) -> OwnedValue {
    Value v = args[0];
    if (nullish(v)) return null_value();
    if (!v.is_number()) {
      fail(28765, std::string(name) + " only supports numeric types, not " + type_name(v));
    }
    Num n = Num::of(v);
    if (keeps_integers && (n.kind == kI32 || n.kind == kI64)) {
      if (name == "$abs") {
        if (n.i == std::numeric_limits<int64_t>::min()) {
          fail(28680, "can't take $abs of long long min");
        }
        return integral(n.i < 0 ? -n.i : n.i, n.kind).value();
      }
      return n.value();
    }
    double d = n.as_double();
    if (name == "$sqrt" && d < 0) {
      fail(28714, "$sqrt's argument must be greater than or equal to 0");
    }
    if (name == "$ln" && !(d > 0) && !std::isnan(d)) {
      fail(28766, "$ln's argument must be a positive number, but is " + render(v));
    }
    if (name == "$log10" && !(d > 0) && !std::isnan(d)) {
      fail(28761, "$log10's argument must be a positive number, but is " + render(v));
    }
    double r = f(d);
    if (n.kind == kDec) return decn(decimal_from_double(r)).value();
    if ((name == "$ceil" || name == "$floor" || name == "$trunc" || name == "$abs") &&
        n.kind == kDbl) {
      return make_value(r);
    }
    return make_value(r);
  };
}

double d_abs(double d) {
  return std::fabs(d);
}
double d_ceil(double d) {
  return std::ceil(d);
}
double d_floor(double d) {
  return std::floor(d);
}
double d_trunc(double d) {
  return std::trunc(d);
}
double d_sqrt(double d) {
  return std::sqrt(d);
}
double d_exp(double d) {
  return std::exp(d);
}
double d_ln(double d) {
  return std::log(d);
}
double d_log10(double d) {
  return std::log10(d);
}

// $round and $trunc with an optional place argument.
EagerFn rounding(bool round) {
  return [round](std::string_view name, std::vector<OwnedValue>& args) -> OwnedValue {
    Value v = args[0].view();
    int32_t place = 0;
    if (args.size() > 1) {
      Value p = args[1].view();
      if (nullish(p)) return null_value();
      if (!to_int32_exact(p, &place) || place < -20 || place > 100) {
        fail(51155, std::string(name) +
                        " requires \"place\" argument to be an integer between -20 and 100");
      }
    }
    if (nullish(v)) return null_value();
    if (!v.is_number()) {
      fail(51081, std::string(name) + " only supports numeric types, not " + type_name(v));
    }
    Num n = Num::of(v);
    auto apply = [round](double d) {
      if (!round) return std::trunc(d);
      // Round half to even, as MongoDB does.
      double r = std::nearbyint(d);
      return r;
    };
    if (n.kind == kI32 || n.kind == kI64) {
      if (place >= 0) return n.value();
      int64_t scale = 1;
      for (int i = 0; i < -place; ++i) {
        if (__builtin_mul_overflow(scale, int64_t{10}, &scale)) return integral(0, n.kind).value();
      }
      double q = static_cast<double>(n.i) / static_cast<double>(scale);
      return integral(static_cast<int64_t>(apply(q)) * scale, n.kind).value();
    }
    double d = n.as_double();
    double scale = std::pow(10.0, place);
    double r = apply(d * scale) / scale;
    if (!std::isfinite(d)) r = d;
    if (n.kind == kDec) return decn(decimal_from_double(r)).value();
    return make_value(r);
  };
}

OwnedValue op_pow(std::string_view, std::vector<OwnedValue>& args) {
  Value a = args[0].view();
  Value b = args[1].view();
  if (nullish(a) || nullish(b)) return null_value();
  if (!a.is_number()) fail(28762, "$pow's base must be numeric, not " + type_name(a));
  if (!b.is_number()) fail(28763, "$pow's exponent must be numeric, not " + type_name(b));
  Num x = Num::of(a);
  Num y = Num::of(b);
  if (x.as_double() == 0 && y.as_double() < 0) {
    fail(28764, "$pow cannot take a base of 0 and a negative exponent");
  }
  Kind k = std::max(x.kind, y.kind);
  if (k <= kI64 && y.i >= 0) {
    // Exact integer power when it fits; otherwise double (int32) or double (int64).
    int64_t r = 1;
    bool overflow = false;
    for (int64_t i = 0; i < y.i && !overflow; ++i) {
      overflow = __builtin_mul_overflow(r, x.i, &r);
      if (r == 0 || r == 1) break;
    }
    if (x.i == -1) r = (y.i % 2 == 0) ? 1 : -1;
    if (!overflow) return integral(r, k).value();
    return make_value(std::pow(x.as_double(), y.as_double()));
  }
  double r = std::pow(x.as_double(), y.as_double());
  if (k == kDec) return decn(decimal_from_double(r)).value();
  return make_value(r);
}

OwnedValue op_log(std::string_view, std::vector<OwnedValue>& args) {
  Value a = args[0].view();
  Value b = args[1].view();
  if (nullish(a) || nullish(b)) return null_value();
  if (!a.is_number()) fail(28756, "$log's argument must be numeric, not " + type_name(a));
  if (!b.is_number()) fail(28757, "$log's base must be numeric, not " + type_name(b));
  double x = a.number_as_double();
  double base = b.number_as_double();
  if (!(x > 0)) fail(28758, "$log's argument must be a positive number, but is " + render(a));
  if (!(base > 0) || base == 1) {
    fail(28759, "$log's base must be a positive number not equal to 1, but is " + render(b));
  }
  double r = std::log(x) / std::log(base);
  if (a.type() == BsonType::kDecimal128 || b.type() == BsonType::kDecimal128) {
    return make_value(decimal_from_double(r));
  }
  return make_value(r);
}

}  // namespace

void register_arithmetic(OperatorTable& t) {
  // The commonest operators only read their arguments: read in place where possible.
  add_reading(t, "$add", 0, -1, op_add);
  add_reading(t, "$subtract", 2, 2, op_subtract);
  add_reading(t, "$multiply", 0, -1, op_multiply);
  add_eager(t, "$divide", 2, 2, op_divide);
  add_eager(t, "$mod", 2, 2, op_mod);
  add_reading(t, "$abs", 1, 1, unary(d_abs, true));
  add_reading(t, "$ceil", 1, 1, unary(d_ceil, true));
  add_reading(t, "$floor", 1, 1, unary(d_floor, true));
  add_reading(t, "$sqrt", 1, 1, unary(d_sqrt, false));
  add_reading(t, "$exp", 1, 1, unary(d_exp, false));
  add_reading(t, "$ln", 1, 1, unary(d_ln, false));
  add_reading(t, "$log10", 1, 1, unary(d_log10, false));
  add_eager(t, "$round", 1, 2, rounding(true));
  add_eager(t, "$trunc", 1, 2, rounding(false));
  add_eager(t, "$pow", 2, 2, op_pow);
  add_eager(t, "$log", 2, 2, op_log);
  (void)d_trunc;
  t["$rand"] = [](std::string_view, const Value& args) -> ExprPtr {
    if (!args.is_document() || !args.as_document().empty()) {
      fail(3040501, "$rand does not currently accept arguments");
    }
    return make_eager("$rand", {}, [](std::string_view, std::vector<OwnedValue>&) {
      thread_local std::mt19937_64 rng(std::random_device{}());
      return make_value(std::uniform_real_distribution<double>(0.0, 1.0)(rng));
    });
  };
}

}  // namespace mongostore::engine::aggregation_detail
