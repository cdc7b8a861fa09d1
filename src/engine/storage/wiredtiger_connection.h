// WiredTigerConnection: the open WiredTiger database under an engine (MongoDB's KVEngine).
//
// Owns the home (a locked DataDirectory, or a private /tmp home for an in-memory engine), the
// WT_CONNECTION, the session pool, the spill directory of sorts and aggregations
// (<home>/_tmp), the commit sync a durability level asks for, the journal flusher of
// Durability::kJournaled, and table creation and drops (a drop that finds the table busy is
// retried later). Constructed once per engine; every method is thread-safe.
#pragma once

#include <wiredtiger.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/data_directory.h"
#include "engine/wiredtiger_session_pool.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

class WiredTigerConnection {
 public:
  /// Opens (creating) the home of `options`. Throws Error(DataDirectoryInvalid).
  explicit WiredTigerConnection(const EngineOptions& options);
  /// Stops the journal flusher, closes the sessions and the connection (a final checkpoint:
  /// a clean shutdown needs no recovery), removes an in-memory engine's private home.
  ~WiredTigerConnection();
  WiredTigerConnection(const WiredTigerConnection&) = delete;
  WiredTigerConnection& operator=(const WiredTigerConnection&) = delete;

  WiredTigerSessionPool& pool() { return *pool_; }
  /// The commit config of a write: "sync=on" on a durable engine; nullptr (the connection's
  /// default, which does not sync) otherwise.
  const char* commit_config() const { return commit_config_; }
  /// The commit config of a write acknowledged before fsync (writeConcern j:false): nullptr
  /// (the default) unless the engine is durable. The log is ordered: the next synced commit
  /// makes such a write durable too.
  const char* commit_config_for(bool journal) const {
    return journal || durability_ != Durability::kDurable ? nullptr : "sync=off";
  }
  const std::string& spill_directory() const { return spill_directory_; }
  /// The WiredTiger home: the data directory (a private /tmp one for an in-memory engine).
  const std::string& home() const { return home_; }

  /// Starts the kJournaled engine's flusher (the log synced every 100 ms); no-op otherwise.
  void start_journal_flusher();
  /// Forces everything acknowledged so far to stable storage (a checkpoint).
  void checkpoint();

  /// Creates a table (outside any transaction: WiredTiger's schema operations are not
  /// transactional).
  void create_table(const std::string& uri, const char* config);
  /// Creates a collection or index table: kRecordTableConfig, or kInMemoryRecordTableConfig
  /// for an in-memory engine.
  void create_record_table(const std::string& uri);
  /// Drops a table; if a cursor still holds it (EBUSY) the drop is kept for later.
  void drop_table(const std::string& uri);
  /// Drops the tables an earlier drop_table had to leave.
  void retry_pending_drops();

  /// Whether WiredTiger has panicked (EngineOptions::on_storage_panic was called).
  bool panicked() const { return panicked_.load(); }

 private:
  // WiredTiger's event handler, with the connection it reports to (handle_error is called
  // with a pointer to `handler`, the first member).
  struct EventHandler {
    WT_EVENT_HANDLER handler;
    WiredTigerConnection* owner;
  };
  static int handle_error(WT_EVENT_HANDLER* handler, WT_SESSION* session, int error,
                          const char* message);
  void on_panic(const char* message);
  void journal_flusher();

  Durability durability_;
  std::unique_ptr<DataDirectory> directory_;
  std::string home_;
  std::string memory_home_;      // the private home of an in-memory engine, removed on close
  std::string spill_directory_;  // <home>/_tmp: spill files of sorts and aggregations
  EventHandler events_{};
  std::function<void(const std::string&)> on_storage_panic_;
  std::atomic<bool> panicked_{false};
  WT_CONNECTION* connection_ = nullptr;
  std::unique_ptr<WiredTigerSessionPool> pool_;
  const char* commit_config_ = "sync=on";

  std::mutex pending_mutex_;
  std::vector<std::string> pending_drops_;

  std::mutex journal_mutex_;
  std::condition_variable journal_cv_;
  bool stopping_ = false;
  std::thread journal_thread_;
};

}  // namespace mongostore::engine
