// SqliteExecutionStore: the benchmark's baseline for ExecutionStore (issue 29).
//
// The commit contract done relationally, as harel's SqliteStore does it (one table per
// concern: executions, outbox, processed_events, timers, spawns, trace; see
// docs/benchmarks.md): one BEGIN IMMEDIATE transaction holding the versioned UPDATE with its
// CAS check (an INSERT for a first save), the outbox inserts, the dedupe mark, the timer
// upserts / deletes, the spawn inserts and the trace row with its ring trim. Every statement
// is prepared once per connection. Durable is WAL with synchronous=FULL (one fsync per
// commit); `:memory:` otherwise. The Execution and Event JSON are the very strings
// ExecutionStore writes (Execution::to_json, Event::to_json), so both sides store the same
// bytes.
//
// One extra index beyond harel's schema: timers(fire_at). Without it due_timers scans every
// timer row; with it the baseline is the strongest SQLite can be.
//
// Not thread-safe: one object per thread. Several objects may open the same file (each is
// its own connection; SQLite serialises their writers, busy_timeout waits for the lock).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/exec/execution.h"
#include "mongostore/exec/store_types.h"

namespace mongostore::bench {

class SqliteExecutionStore {
 public:
  /// Opens `path` (":memory:" for the in-memory mode) and creates the schema if missing.
  explicit SqliteExecutionStore(const std::string& path, int64_t trace_max = 200);
  ~SqliteExecutionStore();
  SqliteExecutionStore(const SqliteExecutionStore&) = delete;
  SqliteExecutionStore& operator=(const SqliteExecutionStore&) = delete;

  /// The commit contract: everything in one transaction, or nothing. A stale version raises
  /// exec::StoreConflict and restores exe.version, as ExecutionStore::commit does.
  void commit(exec::Execution& exe, const exec::CommitBatch& batch);

  /// The stored `data` JSON and version of one execution.
  std::optional<std::pair<std::string, int64_t>> stored(const std::string& id);
  /// The outbox rows as stored: (seq, target_id, event JSON), oldest first.
  struct OutboxRow {
    int64_t seq;
    std::optional<std::string> target_id;
    std::string event;
  };
  std::vector<OutboxRow> outbox_rows();
  /// outbox_rows with each event parsed, as harel's pending_outbox returns them.
  std::vector<exec::OutboxEntry> pending_outbox();
  void ack_outbox(int64_t seq);
  std::vector<exec::DueTimer> due_timers(double now);
  /// One execution's timers, ordered by path.
  std::vector<exec::DueTimer> timers(const std::string& id);
  bool is_processed(const std::string& id, const std::string& event_id);
  /// One execution's trace rows: (idx, entry JSON), oldest first.
  std::vector<std::pair<int64_t, std::string>> trace(const std::string& id);

 private:
  sqlite3_stmt* prepare(const char* sql);
  void exec(const char* sql);
  void write(exec::Execution& exe, int64_t old, const std::string& data);

  sqlite3* db_ = nullptr;
  int64_t trace_max_;
  std::vector<sqlite3_stmt*> all_;
  sqlite3_stmt *begin_, *commit_, *rollback_, *update_, *select_version_, *insert_execution_,
      *insert_outbox_, *insert_processed_, *upsert_timer_, *delete_timer_, *insert_spawn_,
      *insert_trace_, *trim_trace_, *select_data_, *select_outbox_, *delete_outbox_, *select_due_,
      *select_timers_, *select_processed_, *select_trace_;
};

}  // namespace mongostore::bench
