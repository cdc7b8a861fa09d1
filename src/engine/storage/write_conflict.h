// WriteConflictException: WiredTiger said WT_ROLLBACK (another transaction wrote the same key,
// or the cache needs this transaction out of the way).
//
// Thrown by the storage helpers from inside a unit of work. Nothing below the auto-commit
// boundary catches it: write_conflict_retry (write_conflict_retry.h) is the only place that
// does, and it aborts the unit of work and runs the operation again in a fresh one. A
// multi-statement transaction (later) will let it surface as WriteConflict (112) instead.
#pragma once

#include <wiredtiger.h>

#include "engine/wiredtiger_session_pool.h"

namespace mongostore::engine {

struct WriteConflictException {};

/// Throws WriteConflictException for WT_ROLLBACK and mongostore::Error for any other failure.
inline void check_in_transaction(int rc, const char* what, WT_SESSION* s) {
  if (rc == 0) return;
  if (rc == WT_ROLLBACK) throw WriteConflictException{};
  check_wiredtiger(rc, what, s);
}

}  // namespace mongostore::engine
