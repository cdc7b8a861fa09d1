// CollationScope: a thread-local pointer to the innermost scope's collation.
#include "engine/aggregation/collation_scope.h"

namespace mongostore::engine::aggregation_detail {
namespace {

thread_local const Collation* current_collation = nullptr;

}  // namespace

CollationScope::CollationScope(const Collation* collation) : previous_(current_collation) {
  current_collation = collation;
}

CollationScope::~CollationScope() {
  current_collation = previous_;
}

const Collation* CollationScope::current() {
  return current_collation;
}

}  // namespace mongostore::engine::aggregation_detail
