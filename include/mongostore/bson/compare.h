// MongoDB's total order over BSON values.
//
// Values of different types compare by type bracket, in MongoDB's order: MinKey < undefined <
// null < numbers < strings (and symbols) < objects < arrays < binary data < ObjectId <
// booleans < dates < timestamps < regular expressions < DBPointer < code < code with scope <
// MaxKey. Numbers compare by exact value across int32, int64, double and decimal128 (NaN is
// equal to NaN and below every other number; -0 equals 0). Strings (and symbols) compare as
// bytes, or under a collation when a StringComparator is given (field names, code and regex
// patterns always as bytes, as in MongoDB). Objects and arrays compare element by element: type
// bracket, then field name, then value; a shorter one that is a prefix of a longer one is smaller.
// https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::bson {

/// How strings compare under a collation (engine::Collation implements it over ICU). A null
/// StringComparator* everywhere below means MongoDB's simple collation: bytes. Implementations
/// must be a total order consistent with equality and safe to call from several threads.
class StringComparator {
 public:
  virtual ~StringComparator() = default;
  /// Negative, zero or positive as `a` sorts before, equal to, or after `b` (UTF-8).
  virtual int compare(std::string_view a, std::string_view b) const = 0;
};

/// The rank of a type's bracket in MongoDB's order (lower sorts first). Types in one
/// bracket (the four numbers; string and symbol) share a rank. Missing ranks as undefined.
int type_bracket(BsonType type);

/// Negative, zero or positive as `a` sorts before, equal to, or after `b`.
int compare_values(const Value& a, const Value& b);
/// The same, strings (also inside arrays and documents) compared by `strings` when not null.
int compare_values(const Value& a, const Value& b, const StringComparator* strings);

/// Element-wise comparison of two documents (type bracket, field name, value).
int compare_documents(const DocumentView& a, const DocumentView& b);
int compare_documents(const DocumentView& a, const DocumentView& b,
                      const StringComparator* strings);

/// MongoDB equality of values (compare_values == 0).
inline bool values_equal(const Value& a, const Value& b) {
  return compare_values(a, b) == 0;
}
inline bool values_equal(const Value& a, const Value& b, const StringComparator* strings) {
  return compare_values(a, b, strings) == 0;
}

/// A strict-weak-ordering functor over Values, for sorting and ordered containers; `strings`
/// (not owned, may be null) must outlive it.
struct ValueLess {
  const StringComparator* strings = nullptr;
  bool operator()(const Value& a, const Value& b) const {
    return compare_values(a, b, strings) < 0;
  }
};

}  // namespace mongostore::bson
