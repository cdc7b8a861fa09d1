// The fixed values index bounds are built from: the ends of the type brackets of MongoDB's index
// key order (MinKey, the numbers' NaN and ±infinity, "" and {} around the strings, {} and [] around
// the documents, false / true, the least and greatest ObjectId, Date and Timestamp, MaxKey) and
// null. One definition for everything that builds bounds: the planner's intervals
// (index_bounds.h, query_planner.cc, range_rebind.cc) and the `$type` brackets (type_brackets.h).
//
// A returned Value is a view into process-lifetime storage: it stays valid, and may be held in
// an Interval or a TypeBracket for as long as the process runs.
//
// Thread safety: built once on first use (a function-local static); then read-only.
#pragma once

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// The named bound values (bound_constant gives each).
enum class BoundConstant {
  kMinKey,
  kMaxKey,
  kNaN,
  kInfinity,
  kNegativeInfinity,
  kEmptyString,
  kEmptyObject,
  kEmptyArray,
  kFalse,
  kTrue,
  kObjectIdMin,   // ObjectId 000000000000000000000000
  kObjectIdMax,   // ObjectId ffffffffffffffffffffffff
  kDateMin,       // the least int64 milliseconds
  kDateMax,       // the greatest int64 milliseconds
  kTimestampMin,  // Timestamp(0, 0)
  kTimestampMax,  // Timestamp(2^32 - 1, 2^32 - 1)
  kNull,
  kCount
};

/// The value of `c` (a double for kNaN and the infinities). Never missing.
bson::Value bound_constant(BoundConstant c);

}  // namespace mongostore::engine
