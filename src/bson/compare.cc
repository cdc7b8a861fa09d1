#include "mongostore/bson/compare.h"

#include <cmath>
#include <cstring>

#include "bson/exact_number.h"
#include "bson/raw.h"

namespace mongostore::bson {
namespace {

int sign(int64_t v) {
  return v < 0 ? -1 : (v > 0 ? 1 : 0);
}

int compare_bytes(const void* a, size_t an, const void* b, size_t bn) {
  int c = std::memcmp(a, b, an < bn ? an : bn);
  if (c != 0) return c < 0 ? -1 : 1;
  return an < bn ? -1 : (an > bn ? 1 : 0);
}

int compare_doubles(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a == b) return 0;  // includes -0 == 0
  // At least one NaN: NaN equals NaN and sorts below every number.
  bool an = std::isnan(a), bn = std::isnan(b);
  return an && bn ? 0 : (an ? -1 : 1);
}

int compare_numbers(const Value& a, const Value& b) {
  BsonType ta = a.type(), tb = b.type();
  bool a_int = ta == BsonType::kInt32 || ta == BsonType::kInt64;
  bool b_int = tb == BsonType::kInt32 || tb == BsonType::kInt64;
  if (a_int && b_int) {
    int64_t x = ta == BsonType::kInt32 ? raw::read_i32(a.data()) : raw::read_i64(a.data());
    int64_t y = tb == BsonType::kInt32 ? raw::read_i32(b.data()) : raw::read_i64(b.data());
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (ta == BsonType::kDouble && tb == BsonType::kDouble) {
    return compare_doubles(raw::read_f64(a.data()), raw::read_f64(b.data()));
  }
  // An int of magnitude <= 2^53 converts to double exactly.
  constexpr int64_t kExact = int64_t(1) << 53;
  if (a_int && tb == BsonType::kDouble) {
    int64_t x = ta == BsonType::kInt32 ? raw::read_i32(a.data()) : raw::read_i64(a.data());
    if (x >= -kExact && x <= kExact) {
      return compare_doubles(static_cast<double>(x), raw::read_f64(b.data()));
    }
  }
  if (ta == BsonType::kDouble && b_int) {
    int64_t y = tb == BsonType::kInt32 ? raw::read_i32(b.data()) : raw::read_i64(b.data());
    if (y >= -kExact && y <= kExact) {
      return compare_doubles(raw::read_f64(a.data()), static_cast<double>(y));
    }
  }
  return compare_exact(ExactNumber::of(a), ExactNumber::of(b));
}

int compare_same_bracket(const Value& a, const Value& b, const StringComparator* strings) {
  switch (a.type()) {
    case BsonType::kEndOfDocument:
    case BsonType::kUndefined:
    case BsonType::kNull:
    case BsonType::kMinKey:
    case BsonType::kMaxKey:
      return 0;
    case BsonType::kDouble:
    case BsonType::kInt32:
    case BsonType::kInt64:
    case BsonType::kDecimal128:
      return compare_numbers(a, b);
    case BsonType::kString:
    case BsonType::kSymbol: {
      std::string_view x = a.as_string(), y = b.as_string();
      if (strings != nullptr) return sign(strings->compare(x, y));
      return compare_bytes(x.data(), x.size(), y.data(), y.size());
    }
    case BsonType::kDocument:
    case BsonType::kArray:
      return compare_documents(DocumentView(a.data(), a.size()), DocumentView(b.data(), b.size()),
                               strings);
    case BsonType::kBinary: {
      // Length first, then subtype and bytes together (MongoDB's order).
      uint32_t la = raw::read_u32(a.data()), lb = raw::read_u32(b.data());
      if (la != lb) return la < lb ? -1 : 1;
      int c = std::memcmp(a.data() + 4, b.data() + 4, la + 1);
      return sign(c);
    }
    case BsonType::kObjectId:
      return sign(std::memcmp(a.data(), b.data(), 12));
    case BsonType::kBool:
      return sign(int(a.data()[0] != 0) - int(b.data()[0] != 0));
    case BsonType::kDateTime: {
      int64_t x = raw::read_i64(a.data()), y = raw::read_i64(b.data());
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case BsonType::kTimestamp: {
      uint64_t x = raw::read_u64(a.data()), y = raw::read_u64(b.data());
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case BsonType::kRegex: {
      RegexView x = a.as_regex(), y = b.as_regex();
      int c = compare_bytes(x.pattern.data(), x.pattern.size(), y.pattern.data(), y.pattern.size());
      if (c != 0) return c;
      return compare_bytes(x.options.data(), x.options.size(), y.options.data(), y.options.size());
    }
    case BsonType::kDbPointer: {
      if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
      return sign(std::memcmp(a.data(), b.data(), a.size()));
    }
    case BsonType::kCode: {
      std::string_view x = a.as_string(), y = b.as_string();
      return compare_bytes(x.data(), x.size(), y.data(), y.size());
    }
    case BsonType::kCodeWithScope: {
      std::string_view x = a.code_with_scope_code(), y = b.code_with_scope_code();
      int c = compare_bytes(x.data(), x.size(), y.data(), y.size());
      if (c != 0) return c;
      return compare_documents(a.code_with_scope_scope(), b.code_with_scope_scope(), strings);
    }
  }
  return 0;
}

}  // namespace

int type_bracket(BsonType type) {
  switch (type) {
    case BsonType::kMinKey:
      return 1;
    case BsonType::kEndOfDocument:
    case BsonType::kUndefined:
      return 2;
    case BsonType::kNull:
      return 3;
    case BsonType::kDouble:
    case BsonType::kInt32:
    case BsonType::kInt64:
    case BsonType::kDecimal128:
      return 4;
    case BsonType::kString:
    case BsonType::kSymbol:
      return 5;
    case BsonType::kDocument:
      return 6;
    case BsonType::kArray:
      return 7;
    case BsonType::kBinary:
      return 8;
    case BsonType::kObjectId:
      return 9;
    case BsonType::kBool:
      return 10;
    case BsonType::kDateTime:
      return 11;
    case BsonType::kTimestamp:
      return 12;
    case BsonType::kRegex:
      return 13;
    case BsonType::kDbPointer:
      return 14;
    case BsonType::kCode:
      return 15;
    case BsonType::kCodeWithScope:
      return 16;
    case BsonType::kMaxKey:
      return 17;
  }
  return 0;
}

int compare_values(const Value& a, const Value& b) {
  return compare_values(a, b, nullptr);
}

int compare_values(const Value& a, const Value& b, const StringComparator* strings) {
  int ba = type_bracket(a.type()), bb = type_bracket(b.type());
  if (ba != bb) return ba < bb ? -1 : 1;
  return compare_same_bracket(a, b, strings);
}

int compare_documents(const DocumentView& a, const DocumentView& b) {
  return compare_documents(a, b, nullptr);
}

int compare_documents(const DocumentView& a, const DocumentView& b,
                      const StringComparator* strings) {
  auto ia = a.begin(), ea = a.end();
  auto ib = b.begin(), eb = b.end();
  for (; ia != ea && ib != eb; ++ia, ++ib) {
    int ba = type_bracket(ia->value.type()), bb = type_bracket(ib->value.type());
    if (ba != bb) return ba < bb ? -1 : 1;
    int c = compare_bytes(ia->key.data(), ia->key.size(), ib->key.data(), ib->key.size());
    if (c != 0) return c;
    c = compare_same_bracket(ia->value, ib->value, strings);
    if (c != 0) return c;
  }
  if (ia == ea && ib == eb) return 0;
  return ia == ea ? -1 : 1;
}

}  // namespace mongostore::bson
