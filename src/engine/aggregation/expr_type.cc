// Type expressions: $type $isNumber $convert $toString $toInt $toLong $toDouble $toBool
// $toDecimal $toDate $toObjectId.
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*g", p, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

namespace {

struct ConversionError {
  std::string message;
};

[[noreturn]] void unsupported(const Value& v, std::string_view to) {
  throw ConversionError{"Unsupported conversion from " + type_name(v) + " to " + std::string(to) +
                        " in $convert with no onError value"};
}

[[noreturn]] void bad_number(std::string_view s, std::string_view why) {
  throw ConversionError{"Failed to parse number '" + std::string(s) +
                        "' in $convert with no onError value: " + std::string(why)};
}

// mongod refuses hexadecimal before parsing (its double parser would take "0x10").
void reject_hexadecimal(std::string_view s) {
  if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) {
    throw ConversionError{"Illegal hexadecimal input in $convert with no onError value: " +
                          std::string(s)};
  }
}

// As mongod's number parser in base 10: a sign, then digits to the end of the string (no
// white space); its reasons, in its order.
int64_t parse_integer(std::string_view s, bool is_int) {
  reject_hexadecimal(s);
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) bad_number(s, "No digits");
  uint64_t magnitude = 0;
  size_t used = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      bad_number(s, "Overflow");
    }
    magnitude = magnitude * 10 + digit;
    ++used;
  }
  if (used != digits.size()) bad_number(s, "Did not consume whole string.");
  uint64_t max = is_int ? std::numeric_limits<int32_t>::max()
                        : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > max + (negative ? 1 : 0)) bad_number(s, "Overflow");
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

double parse_double(std::string_view s) {
  // As mongod's number parser for a double: strtod (so "NaN", "Infinity", "inf" and hex
  // floats parse) on the whole string, without leading white space, out of range (overflow
  // or underflow) an error.
  reject_hexadecimal(s);
  std::string str(s);
  if (str.empty()) bad_number(s, "Empty string");
  if (std::isspace(static_cast<unsigned char>(str[0]))) bad_number(s, "Leading whitespace");
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(str.c_str(), &end);
  int error = errno;
  if (end == str.c_str()) bad_number(s, "Did not consume any digits");
  if (error == ERANGE) bad_number(s, "Out of range");
  if (end != str.c_str() + str.size()) bad_number(s, "Did not consume whole string.");
  return d;
}

OwnedValue to_double_value(const Value& v) {
  switch (v.type()) {
    case BsonType::kDouble:
      return OwnedValue(v);
    case BsonType::kInt32:
    case BsonType::kInt64:
    case BsonType::kDecimal128:
      return make_value(v.number_as_double());
    case BsonType::kBool:
      return make_value(v.as_bool() ? 1.0 : 0.0);
    case BsonType::kString:
      return make_value(parse_double(v.as_string()));
    case BsonType::kDateTime:
      return make_value(static_cast<double>(v.as_datetime().millis));
    default:
      unsupported(v, "double");
  }
}

int64_t integral_from(const Value& v, bool is_int, std::string_view to) {
  switch (v.type()) {
    case BsonType::kInt32:
    case BsonType::kInt64: {
      int64_t i = int_value(v);
      if (is_int &&
          (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max())) {
        throw ConversionError{
            "Conversion would overflow target type in $convert with no "
            "onError value: " +
            render(v)};
      }
      return i;
    }
    case BsonType::kDouble:
    case BsonType::kDecimal128: {
      double d = v.number_as_double();
      if (std::isnan(d) || std::isinf(d)) {
        throw ConversionError{"Attempt to convert " +
                              std::string(std::isnan(d) ? "NaN" : "infinity") +
                              " value to integer type in $convert with no onError value"};
      }
      double t = std::trunc(d);
      double lo = is_int ? std::numeric_limits<int32_t>::min() : -9223372036854775808.0;
      double hi = is_int ? std::numeric_limits<int32_t>::max() : 9223372036854775807.0;
      if (t < lo || t >= hi + (is_int ? 1 : 0)) {
        // mongod streams the value: a double with six significant digits (1e+300).
        char shown[32];
        std::snprintf(shown, sizeof shown, "%g", d);
        throw ConversionError{
            "Conversion would overflow target type in $convert with no "
            "onError value: " +
            (v.type() == BsonType::kDouble ? std::string(shown) : render(v))};
      }
      return static_cast<int64_t>(t);
    }
    case BsonType::kBool:
      return v.as_bool() ? 1 : 0;
    case BsonType::kString:
      return parse_integer(v.as_string(), is_int);
    case BsonType::kDateTime:
      if (!is_int) return v.as_datetime().millis;
      unsupported(v, to);
    default:
      unsupported(v, to);
  }
}

std::string to_string_of(const Value& v) {
  switch (v.type()) {
    case BsonType::kString:
    case BsonType::kSymbol:
      return std::string(v.as_string());
    case BsonType::kInt32:
    case BsonType::kInt64:
      return std::to_string(int_value(v));
    case BsonType::kDouble:
      return format_double(v.as_double());
    case BsonType::kDecimal128:
      return v.as_decimal128().to_string();
    case BsonType::kBool:
      return v.as_bool() ? "true" : "false";
    case BsonType::kObjectId:
      return v.as_object_id().to_hex();
    case BsonType::kDateTime:
      return format_iso_date(v.as_datetime().millis);
    default:
      unsupported(v, "string");
  }
}

OwnedValue convert(const Value& v, std::string_view to) {
  if (to == "double") return to_double_value(v);
  if (to == "int") return make_value(static_cast<int32_t>(integral_from(v, true, "int")));
  if (to == "long") return make_value(integral_from(v, false, "long"));
  if (to == "decimal") {
    switch (v.type()) {
      case BsonType::kDecimal128:
        return OwnedValue(v);
      case BsonType::kInt32:
      case BsonType::kInt64:
      case BsonType::kDouble:
        return make_value(to_decimal(v));
      case BsonType::kBool:
        return make_value(bson::Decimal128::from_string(v.as_bool() ? "1" : "0"));
      case BsonType::kString:
        reject_hexadecimal(v.as_string());
        if (v.as_string().empty()) bad_number(v.as_string(), "Empty string");
        try {
          return make_value(bson::Decimal128::from_string(v.as_string()));
        } catch (const Error&) {
          bad_number(v.as_string(), "Failed to parse string to decimal");
        }
      case BsonType::kDateTime:
        return make_value(bson::Decimal128::from_string(std::to_string(v.as_datetime().millis)));
      default:
        unsupported(v, "decimal");
    }
  }
  if (to == "bool") {
    switch (v.type()) {
      case BsonType::kString:
      case BsonType::kDocument:
      case BsonType::kArray:
      case BsonType::kObjectId:
      case BsonType::kDateTime:
      case BsonType::kBinary:
      case BsonType::kRegex:
      case BsonType::kTimestamp:
      case BsonType::kMinKey:
      case BsonType::kMaxKey:
        return make_value(true);
      default:
        return make_value(v.truthy());
    }
  }
  if (to == "string") return make_value(to_string_of(v));
  if (to == "date") {
    switch (v.type()) {
      case BsonType::kDateTime:
        return OwnedValue(v);
      case BsonType::kInt64:
        return make_value(bson::DateTime{int_value(v)});
      case BsonType::kDouble:
      case BsonType::kDecimal128: {
        double d = v.number_as_double();
        if (!std::isfinite(d)) {
          throw ConversionError{
              "Conversion would overflow target type in $convert with no "
              "onError value: " +
              render(v)};
        }
        return make_value(bson::DateTime{static_cast<int64_t>(d)});
      }
      case BsonType::kObjectId:
        return make_value(bson::DateTime{int64_t{v.as_object_id().timestamp()} * 1000});
      case BsonType::kTimestamp:
        return make_value(bson::DateTime{int64_t{v.as_timestamp().seconds} * 1000});
      case BsonType::kString: {
        int64_t ms = 0;
        if (!parse_iso_date(v.as_string(), &ms)) {
          throw ConversionError{"Error parsing date string '" + std::string(v.as_string()) +
                                "'; in $convert with no onError value"};
        }
        return make_value(bson::DateTime{ms});
      }
      default:
        unsupported(v, "date");
    }
  }
  if (to == "objectId") {
    if (v.type() == BsonType::kObjectId) return OwnedValue(v);
    if (v.type() == BsonType::kString) {
      try {
        return make_value(bson::ObjectId::from_hex(v.as_string()));
      } catch (const Error&) {
        throw ConversionError{"Failed to parse objectId '" + std::string(v.as_string()) +
                              "' in $convert with no onError value: Invalid string length for "
                              "parsing to OID, expected 24 but found " +
                              std::to_string(v.as_string().size())};
      }
    }
    unsupported(v, "objectId");
  }
  fail(2, "Unknown type name: " + std::string(to));
}

std::string target_name(const Value& to) {
  if (to.type() == BsonType::kString) {
    std::string s(to.as_string());
    static const char* kAllowed[] = {"double", "string", "objectId", "bool",
                                     "date",   "int",    "long",     "decimal"};
    for (const char* a : kAllowed) {
      if (s == a) return s;
    }
    fail(2, "Unknown type name: " + s);
  }
  if (to.is_number()) {
    int32_t code = 0;
    if (!to_int32_exact(to, &code)) fail(9, "In $convert, numeric 'to' argument is not an integer");
    switch (code) {
      case 1:
        return "double";
      case 2:
        return "string";
      case 7:
        return "objectId";
      case 8:
        return "bool";
      case 9:
        return "date";
      case 16:
        return "int";
      case 18:
        return "long";
      case 19:
        return "decimal";
      default:
        fail(2, "In $convert, numeric value for 'to' does not correspond to a BSON type: " +
                    std::to_string(code));
    }
  }
  fail(9, "$convert's 'to' argument must be a string or number, but is " + type_name(to));
}

class ConvertNode : public ExprNode {
 public:
  ConvertNode(ExprPtr input, ExprPtr to, ExprPtr on_error, ExprPtr on_null)
      : input_(std::move(input)),
        to_(std::move(to)),
        on_error_(std::move(on_error)),
        on_null_(std::move(on_null)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = input_->eval(ctx);
    OwnedValue to = to_->eval(ctx);
    if (nullish(to.view())) return null_value();
    std::string target = target_name(to.view());
    if (nullish(in.view())) return on_null_ ? on_null_->eval(ctx) : null_value();
    try {
      return convert(in.view(), target);
    } catch (const ConversionError& e) {
      if (on_error_) return on_error_->eval(ctx);
      fail(241, e.message);
    }
  }

 private:
  ExprPtr input_, to_, on_error_, on_null_;
};

ExprPtr parse_convert(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(9, "$convert expects an object of named arguments but found: " + type_name(args));
  }
  ExprPtr input, to, on_error, on_null;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "input") {
      input = parse_expression(e.value);
    } else if (e.key == "to") {
      to = parse_expression(e.value);
    } else if (e.key == "onError") {
      on_error = parse_expression(e.value);
    } else if (e.key == "onNull") {
      on_null = parse_expression(e.value);
    } else {
      fail(9, "$convert found an unknown argument: " + std::string(e.key));
    }
  }
  if (!input) fail(9, "Missing 'input' parameter to $convert");
  if (!to) fail(9, "Missing 'to' parameter to $convert");
  return std::make_shared<ConvertNode>(input, to, on_error, on_null);
}

EagerFn shorthand(std::string to) {
  return [to](std::string_view, std::vector<OwnedValue>& a) -> OwnedValue {
    Value v = a[0].view();
    if (nullish(v)) return null_value();
    try {
      return convert(v, to);
    } catch (const ConversionError& e) {
      fail(241, e.message);
    }
  };
}

}  // namespace

void register_type(OperatorTable& t) {
  add_eager(t, "$type", 1, 1, [](std::string_view, std::vector<OwnedValue>& a) {
    return make_value(std::string(bson::type_alias(a[0].view().type())));
  });
  add_eager(t, "$isNumber", 1, 1, [](std::string_view, std::vector<OwnedValue>& a) {
    return make_value(a[0].view().is_number());
  });
  t["$convert"] = parse_convert;
  const std::pair<const char*, const char*> shorthands[] = {
      {"$toString", "string"}, {"$toInt", "int"},          {"$toLong", "long"},
      {"$toDouble", "double"}, {"$toBool", "bool"},        {"$toDecimal", "decimal"},
      {"$toDate", "date"},     {"$toObjectId", "objectId"}};
  for (const auto& [name, to] : shorthands) {
    t[name] = [to = std::string(to)](std::string_view op, const Value& args) -> ExprPtr {
      std::vector<ExprPtr> parsed = parse_args(args);
      if (parsed.size() != 1) {  // mongod's own arity error for the $to* shorthands
        fail(50723,
             std::string(op) + " requires a single argument, got " + std::to_string(parsed.size()));
      }
      return make_eager(std::string(op), std::move(parsed), shorthand(to));
    };
  }
}

}  // namespace mongostore::engine::aggregation_detail
