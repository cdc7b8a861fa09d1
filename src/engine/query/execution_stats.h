// ExecutionStats: counters kept while a query runs, for explain("executionStats").
// Plain values, owned by one operation.
#pragma once

#include <cstdint>

namespace mongostore::engine {

struct ExecutionStats {
  int64_t keys_examined = 0;
  int64_t docs_examined = 0;
  int64_t returned = 0;
};

}  // namespace mongostore::engine
