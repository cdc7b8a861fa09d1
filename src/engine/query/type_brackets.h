// The index brackets of `$type` operands: which stretch of an index's key order can hold a
// value of the named types, as mongod bounds a `$type` predicate.
//
// Each bracket is inclusive at both ends and wider than its types ("number" and the four
// numeric types share [NaN, inf]; string and symbol share ["", {}], whose upper end is the
// empty object), so bounds built from them are never exact: the matcher re-checks.
//
// Thread safety: pure functions; the bracket ends live in process-lifetime storage.
#pragma once

#include <optional>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// A stretch [low, high] of an index's key order, both ends included.
struct TypeBracket {
  bson::Value low;
  bson::Value high;
};

/// The brackets a `$type` operand (a type name, a type number, "number", or an array of
/// these) reads, ascending in key order and without repeats. nullopt when the operand names a
/// type without a clean bracket: "array" (a multikey index holds the elements, not the
/// array), "null" and "undefined" (their keys are also those of a missing field), binData,
/// regex, dbPointer, javascript and javascriptWithScope (their ends are not built here), an
/// empty array, or anything the matcher refuses. The planner then plans as without the $type.
std::optional<std::vector<TypeBracket>> type_brackets(const bson::Value& operand);

}  // namespace mongostore::engine
