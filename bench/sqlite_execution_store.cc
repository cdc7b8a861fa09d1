#include "sqlite_execution_store.h"

#include <stdexcept>

#include "mongostore/exec/store_errors.h"

namespace mongostore::bench {
namespace {

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    throw std::runtime_error(std::string("sqlite: ") + what + ": " + sqlite3_errmsg(db));
  }
}

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

// Runs a statement that returns no rows, then resets it for the next use.
void run(sqlite3* db, sqlite3_stmt* s, const char* what) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  check(db, rc, what);
}

// Resets a statement however the scope is left (rows read, or an exception).
struct Reset {
  sqlite3_stmt* s;
  ~Reset() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

}  // namespace

SqliteExecutionStore::SqliteExecutionStore(const std::string& path, int64_t trace_max)
    : trace_max_(trace_max) {
  int rc = sqlite3_open(path.c_str(), &db_);
  check(db_, rc, "open");
  if (path != ":memory:") {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");  // every commit's WAL frames are fsynced
  }
  exec("PRAGMA busy_timeout=5000");
  // harel's schema (store/sqlite.py), plus the timers(fire_at) index.
  exec(
      "CREATE TABLE IF NOT EXISTS executions (id TEXT PRIMARY KEY, definition_id TEXT NOT NULL, "
      "data TEXT NOT NULL, version INTEGER NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, target_id TEXT, "
      "event TEXT NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS processed_events (execution_id TEXT NOT NULL, event_id TEXT NOT "
      "NULL, PRIMARY KEY (execution_id, event_id))");
  exec(
      "CREATE TABLE IF NOT EXISTS timers (execution_id TEXT NOT NULL, path TEXT NOT NULL, fire_at "
      "REAL NOT NULL, PRIMARY KEY (execution_id, path))");
  exec("CREATE INDEX IF NOT EXISTS timers_fire_at ON timers (fire_at)");
  exec(
      "CREATE TABLE IF NOT EXISTS spawns (seq INTEGER PRIMARY KEY AUTOINCREMENT, parent_id TEXT "
      "NOT NULL, child_id TEXT NOT NULL, root_path TEXT NOT NULL, context TEXT NOT NULL)");
  exec(
      "CREATE TABLE IF NOT EXISTS trace (execution_id TEXT NOT NULL, idx INTEGER NOT NULL, entry "
      "TEXT NOT NULL, PRIMARY KEY (execution_id, idx))");

  begin_ = prepare("BEGIN IMMEDIATE");
  commit_ = prepare("COMMIT");
  rollback_ = prepare("ROLLBACK");
  update_ = prepare("UPDATE executions SET data = ?1, version = ?2 WHERE id = ?3 AND version = ?4");
  select_version_ = prepare("SELECT version FROM executions WHERE id = ?1");
  insert_execution_ =
      prepare("INSERT INTO executions (id, definition_id, data, version) VALUES (?1, ?2, ?3, ?4)");
  insert_outbox_ = prepare("INSERT INTO outbox (target_id, event) VALUES (?1, ?2)");
  insert_processed_ =
      prepare("INSERT OR IGNORE INTO processed_events (execution_id, event_id) VALUES (?1, ?2)");
  upsert_timer_ = prepare(
      "INSERT INTO timers (execution_id, path, fire_at) VALUES (?1, ?2, ?3) ON CONFLICT "
      "(execution_id, path) DO UPDATE SET fire_at = excluded.fire_at");
  delete_timer_ = prepare("DELETE FROM timers WHERE execution_id = ?1 AND path = ?2");
  insert_spawn_ = prepare(
      "INSERT INTO spawns (parent_id, child_id, root_path, context) VALUES (?1, ?2, ?3, ?4)");
  // The index is computed in the statement (MAX + 1), the ring trimmed by a second one.
  insert_trace_ = prepare(
      "INSERT INTO trace (execution_id, idx, entry) SELECT ?1, COALESCE((SELECT MAX(idx) FROM "
      "trace WHERE execution_id = ?1), -1) + 1, ?2");
  trim_trace_ = prepare(
      "DELETE FROM trace WHERE execution_id = ?1 AND idx <= (SELECT MAX(idx) FROM trace WHERE "
      "execution_id = ?1) - ?2");
  select_data_ = prepare("SELECT data, version FROM executions WHERE id = ?1");
  select_outbox_ = prepare("SELECT seq, target_id, event FROM outbox ORDER BY seq");
  delete_outbox_ = prepare("DELETE FROM outbox WHERE seq = ?1");
  select_due_ = prepare(
      "SELECT execution_id, path, fire_at FROM timers WHERE fire_at <= ?1 ORDER BY fire_at");
  select_timers_ = prepare(
      "SELECT execution_id, path, fire_at FROM timers WHERE execution_id = ?1 ORDER BY path");
  select_processed_ =
      prepare("SELECT 1 FROM processed_events WHERE execution_id = ?1 AND event_id = ?2");
  select_trace_ = prepare("SELECT idx, entry FROM trace WHERE execution_id = ?1 ORDER BY idx");
}

SqliteExecutionStore::~SqliteExecutionStore() {
  for (sqlite3_stmt* s : all_) sqlite3_finalize(s);
  sqlite3_close(db_);
}

sqlite3_stmt* SqliteExecutionStore::prepare(const char* sql) {
  sqlite3_stmt* s = nullptr;
  check(db_, sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr), sql);
  all_.push_back(s);
  return s;
}

void SqliteExecutionStore::exec(const char* sql) {
  check(db_, sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), sql);
}

void SqliteExecutionStore::write(exec::Execution& exe, int64_t old, const std::string& data) {
  bind_text(update_, 1, data);
  sqlite3_bind_int64(update_, 2, exe.version);
  bind_text(update_, 3, exe.id);
  sqlite3_bind_int64(update_, 4, old);
  run(db_, update_, "update execution");
  if (sqlite3_changes(db_) == 1) return;
  // No row at `old`: a first save, or a stale one. Existence tells which.
  std::optional<int64_t> found;
  {
    Reset reset{select_version_};
    bind_text(select_version_, 1, exe.id);
    int rc = sqlite3_step(select_version_);
    check(db_, rc, "select version");
    if (rc == SQLITE_ROW) found = sqlite3_column_int64(select_version_, 0);
  }
  if (!found && old == 0) {
    bind_text(insert_execution_, 1, exe.id);
    bind_text(insert_execution_, 2, exe.definition_id);
    bind_text(insert_execution_, 3, data);
    sqlite3_bind_int64(insert_execution_, 4, exe.version);
    run(db_, insert_execution_, "insert execution");
    return;
  }
  throw exec::StoreConflict(exe.id, old, found);
}

void SqliteExecutionStore::commit(exec::Execution& exe, const exec::CommitBatch& batch) {
  const int64_t old = exe.version;
  exe.version = old + 1;
  try {
    // Serialised before the transaction, so the write lock is held only for the writes.
    std::string data = exe.to_json();
    std::vector<std::string> events;
    for (const exec::Emit& emit : batch.emits) events.push_back(emit.event.to_json());
    // busy_timeout waits for the write lock, but SQLite's lock is not fair: under 8 writers
    // one can time out, and an application would then try again.
    for (;;) {
      int rc = sqlite3_step(begin_);
      sqlite3_reset(begin_);
      if (rc != SQLITE_BUSY) {
        check(db_, rc, "begin");
        break;
      }
    }
    try {
      write(exe, old, data);
      for (size_t i = 0; i < batch.emits.size(); ++i) {
        if (batch.emits[i].target_id) {
          bind_text(insert_outbox_, 1, *batch.emits[i].target_id);
        } else {
          sqlite3_bind_null(insert_outbox_, 1);
        }
        bind_text(insert_outbox_, 2, events[i]);
        run(db_, insert_outbox_, "insert outbox");
      }
      if (batch.processed_event_id) {
        bind_text(insert_processed_, 1, exe.id);
        bind_text(insert_processed_, 2, *batch.processed_event_id);
        run(db_, insert_processed_, "insert processed");
      }
      for (const exec::Spawn& spawn : batch.spawns) {
        std::string context = spawn.context.to_json();
        bind_text(insert_spawn_, 1, exe.id);
        bind_text(insert_spawn_, 2, spawn.child_id);
        bind_text(insert_spawn_, 3, spawn.root_path);
        bind_text(insert_spawn_, 4, context);
        run(db_, insert_spawn_, "insert spawn");
      }
      for (const exec::TimerOp& op : batch.timers) {
        if (op.action == exec::TimerOp::Action::kSchedule) {
          bind_text(upsert_timer_, 1, exe.id);
          bind_text(upsert_timer_, 2, op.path);
          sqlite3_bind_double(upsert_timer_, 3, op.fire_at);
          run(db_, upsert_timer_, "upsert timer");
        } else {
          bind_text(delete_timer_, 1, exe.id);
          bind_text(delete_timer_, 2, op.path);
          run(db_, delete_timer_, "delete timer");
        }
      }
      if (batch.trace) {
        std::string entry = batch.trace->to_json();
        bind_text(insert_trace_, 1, exe.id);
        bind_text(insert_trace_, 2, entry);
        run(db_, insert_trace_, "insert trace");
        if (trace_max_ > 0) {
          bind_text(trim_trace_, 1, exe.id);
          sqlite3_bind_int64(trim_trace_, 2, trace_max_);
          run(db_, trim_trace_, "trim trace");
        }
      }
      run(db_, commit_, "commit");
    } catch (...) {
      // An open transaction would keep the write lock and let a later commit persist this
      // half-write.
      run(db_, rollback_, "rollback");
      throw;
    }
  } catch (...) {
    exe.version = old;
    throw;
  }
}

std::optional<std::pair<std::string, int64_t>> SqliteExecutionStore::stored(const std::string& id) {
  Reset reset{select_data_};
  bind_text(select_data_, 1, id);
  int rc = sqlite3_step(select_data_);
  check(db_, rc, "select data");
  if (rc != SQLITE_ROW) return std::nullopt;
  return std::make_pair(column_text(select_data_, 0), sqlite3_column_int64(select_data_, 1));
}

std::vector<SqliteExecutionStore::OutboxRow> SqliteExecutionStore::outbox_rows() {
  Reset reset{select_outbox_};
  std::vector<OutboxRow> out;
  int rc;
  while ((rc = sqlite3_step(select_outbox_)) == SQLITE_ROW) {
    OutboxRow row{sqlite3_column_int64(select_outbox_, 0), std::nullopt,
                  column_text(select_outbox_, 2)};
    if (sqlite3_column_type(select_outbox_, 1) != SQLITE_NULL) {
      row.target_id = column_text(select_outbox_, 1);
    }
    out.push_back(std::move(row));
  }
  check(db_, rc, "select outbox");
  return out;
}

std::vector<exec::OutboxEntry> SqliteExecutionStore::pending_outbox() {
  std::vector<exec::OutboxEntry> out;
  for (OutboxRow& row : outbox_rows()) {
    exec::OutboxEntry e;
    e.seq = row.seq;
    e.target_id = std::move(row.target_id);
    e.event = exec::Event::from_json(row.event);
    out.push_back(std::move(e));
  }
  return out;
}

void SqliteExecutionStore::ack_outbox(int64_t seq) {
  sqlite3_bind_int64(delete_outbox_, 1, seq);
  run(db_, delete_outbox_, "delete outbox");
}

namespace {
std::vector<exec::DueTimer> read_timers(sqlite3* db, sqlite3_stmt* s) {
  std::vector<exec::DueTimer> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    out.push_back({column_text(s, 0), column_text(s, 1), sqlite3_column_double(s, 2)});
  }
  check(db, rc, "select timers");
  return out;
}
}  // namespace

std::vector<exec::DueTimer> SqliteExecutionStore::due_timers(double now) {
  Reset reset{select_due_};
  sqlite3_bind_double(select_due_, 1, now);
  return read_timers(db_, select_due_);
}

std::vector<exec::DueTimer> SqliteExecutionStore::timers(const std::string& id) {
  Reset reset{select_timers_};
  bind_text(select_timers_, 1, id);
  return read_timers(db_, select_timers_);
}

bool SqliteExecutionStore::is_processed(const std::string& id, const std::string& event_id) {
  Reset reset{select_processed_};
  bind_text(select_processed_, 1, id);
  bind_text(select_processed_, 2, event_id);
  int rc = sqlite3_step(select_processed_);
  check(db_, rc, "select processed");
  return rc == SQLITE_ROW;
}

std::vector<std::pair<int64_t, std::string>> SqliteExecutionStore::trace(const std::string& id) {
  Reset reset{select_trace_};
  bind_text(select_trace_, 1, id);
  std::vector<std::pair<int64_t, std::string>> out;
  int rc;
  while ((rc = sqlite3_step(select_trace_)) == SQLITE_ROW) {
    out.emplace_back(sqlite3_column_int64(select_trace_, 0), column_text(select_trace_, 1));
  }
  check(db_, rc, "select trace");
  return out;
}

}  // namespace mongostore::bench
