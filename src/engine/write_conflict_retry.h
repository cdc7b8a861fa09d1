// write_conflict_retry: the auto-commit boundary of an operation.
//
// Runs `body` in a fresh unit of work on `op`; on WriteConflictException (WiredTiger's
// WT_ROLLBACK, from a storage call or from the commit) it aborts that unit, backs off
// (yields at first, then sleeps a jittered, growing time so retrying writers spread out)
// and runs `body` again in a new snapshot, as mongod's writeConflictRetry does: so a
// read-check-write has exactly one winner. Any other exception aborts the unit and
// propagates. This is the only place a write conflict is caught; `body` must be safe to run
// again from the start (it resets whatever state it publishes).
//
// Inside a multi-document transaction (op.transaction() set) there is no boundary here:
// `body` runs once in the transaction's unit of work, which stays open, and a conflict
// surfaces as WriteConflict (112) with the TransientTransactionError label (the statement
// then aborts the transaction). Hooks `body` registers on the unit run when the transaction
// ends, so they must not refer to `body`'s locals.
//
// Thread-safe (each call uses its own unit of work and session).
#pragma once

#include <type_traits>
#include <utility>

#include "engine/operation_context.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/storage/write_conflict.h"
#include "engine/unit_of_work.h"
#include "mongostore/error.h"

namespace mongostore::engine {

/// Waits before retry `attempt` (0-based) of a conflicted unit of work.
void write_conflict_backoff(int attempt);

/// WriteConflict (112) with the TransientTransactionError label, as mongod reports a
/// conflict inside a transaction.
Error transaction_write_conflict();

/// `commit_config` overrides the connection's commit sync for this write (nullptr: the
/// default), e.g. an unjournaled write (writeConcern j:false).
template <class F>
auto write_conflict_retry(OperationContext& op, UnitOfWork::Mode mode, F&& body,
                          const char* commit_config = nullptr) {
  if (op.transaction() != nullptr) {
    try {
      return body();
    } catch (const WriteConflictException&) {
      throw transaction_write_conflict();
    }
  }
  WiredTigerConnection& connection = op.connection();
  for (int attempt = 0;; ++attempt) {
    UnitOfWork unit(connection.pool(), mode,
                    commit_config != nullptr ? commit_config : connection.commit_config());
    struct Install {
      OperationContext& op;
      UnitOfWork* previous;
      ~Install() { op.set_unit_of_work(previous); }
    } install{op, op.set_unit_of_work(&unit)};
    unit.begin();
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        unit.commit();
        return;
      } else {
        auto result = body();
        unit.commit();
        return result;
      }
    } catch (const WriteConflictException&) {
      unit.abort();
    } catch (...) {
      unit.abort();
      throw;
    }
    write_conflict_backoff(attempt);
  }
}

}  // namespace mongostore::engine
