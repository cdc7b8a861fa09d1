// CollationScope: the collation aggregation expressions compare strings under.
//
// MongoDB compares strings in expressions ($eq, $cmp, $in, $indexOfArray, the set operators,
// $max/$min, $sortArray, ...) under the operation's collation (or the collection's default).
// The expression operators take no context that could carry it, so, as NowScope does for
// $$NOW, a thread-local holds the innermost scope's collation. Scopes nest, each restoring
// the one it replaced. Where a scope is installed: around every pull of a pipeline's result
// (Pipeline::run's source, so stages a later getMore runs lazily see it too), around each
// $expr test of a find filter (with the filter's collation), and so for update pipelines
// (which run a pipeline). Not thread-shared: a scope belongs to the thread that made it.
#pragma once

#include "mongostore/bson/compare.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/collation.h"

namespace mongostore::engine::aggregation_detail {

class CollationScope {
 public:
  /// Makes `collation` (null: simple, bytes) current on this thread until destruction; it
  /// must outlive the scope.
  explicit CollationScope(const Collation* collation);
  ~CollationScope();
  CollationScope(const CollationScope&) = delete;
  CollationScope& operator=(const CollationScope&) = delete;

  /// The innermost scope's collation on this thread; null (simple) when none.
  static const Collation* current();

 private:
  const Collation* previous_;
};

/// bson::compare_values under the current scope's collation (strings, also inside arrays and
/// documents, compare under it; field names as bytes).
inline int compare_in_scope(const bson::Value& a, const bson::Value& b) {
  return bson::compare_values(a, b, CollationScope::current());
}
inline bool equal_in_scope(const bson::Value& a, const bson::Value& b) {
  return compare_in_scope(a, b) == 0;
}

}  // namespace mongostore::engine::aggregation_detail
