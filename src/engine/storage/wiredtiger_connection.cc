#include "engine/storage/wiredtiger_connection.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "engine/storage/record_table.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

constexpr const char* kMemoryHomePrefix = "mongostore-memory-";

// In-memory homes are /tmp/mongostore-memory-<pid>-XXXXXX, removed when their engine closes.
// A killed process cannot remove its own; the next engine to start removes those whose
// process is gone.
void remove_orphaned_memory_homes() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kMemoryHomePrefix, 0) != 0) continue;
    const std::string rest = name.substr(std::strlen(kMemoryHomePrefix));
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;  // an older name: owner unknown
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

}  // namespace

int WiredTigerConnection::handle_error(WT_EVENT_HANDLER* handler, WT_SESSION*, int error,
                                       const char* message) {
  // WiredTiger's own default: the message on stderr.
  std::fprintf(stderr, "%s\n", message);
  if (error == WT_PANIC) reinterpret_cast<EventHandler*>(handler)->owner->on_panic(message);
  return 0;
}

void WiredTigerConnection::on_panic(const char* message) {
  if (panicked_.exchange(true)) return;
  if (on_storage_panic_) on_storage_panic_(message != nullptr ? message : "WT_PANIC");
}

WiredTigerConnection::WiredTigerConnection(const EngineOptions& options)
    : durability_(options.durability), on_storage_panic_(options.on_storage_panic) {
  std::string config =
      "create,session_max=1000,cache_size=" + std::to_string(options.cache_size_mb) + "MB,";
  if (options.durability == Durability::kInMemory) {
    config += "in_memory=true";
    // WiredTiger refuses two connections with one home in a process, even in memory, so
    // each in-memory engine gets a private, empty home that holds no data.
    remove_orphaned_memory_homes();
    std::string pattern =
        std::string("/tmp/") + kMemoryHomePrefix + std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(ErrorCode::kInternalError, "cannot create a home for an in-memory engine");
    }
    home_ = pattern;
    memory_home_ = home_;
  } else {
    directory_ = std::make_unique<DataDirectory>(options.path);
    home_ = directory_->path();
  }
  // Spill files of aggregations (allowDiskUse) go to <home>/_tmp, MongoDB's name; for an
  // in-memory engine that is inside its private /tmp home, removed with it. Files left by a
  // crash are removed here: nothing else uses the directory while the engine is open.
  {
    std::error_code ec;
    spill_directory_ = (std::filesystem::path(home_) / "_tmp").string();
    std::filesystem::remove_all(spill_directory_, ec);
    std::filesystem::create_directory(spill_directory_, ec);
    if (ec) {
      throw Error(ErrorCode::kDataDirectoryInvalid, "data directory '" + home_ +
                                                        "': cannot create its spill directory " +
                                                        spill_directory_ + ": " + ec.message());
    }
  }
  if (options.durability != Durability::kInMemory) {
    // The journal (WiredTiger's log) makes commits durable before checkpoints do;
    // checkpoints every 60 s bound recovery time and let old log files be removed.
    //
    // zero_fill: WiredTiger otherwise fallocate()s each log file, so every durable commit
    // writes into unwritten extents and its fdatasync also journals the filesystem's extent
    // conversion (ext4: one more metadata write before the flush). Writing zeros over a new
    // log file once (the spare files are filled by WiredTiger's log server thread) makes each
    // commit's sync a plain overwrite. Measured with durable commits of three stores in turn
    // (docs/benchmarks.md, "The durable commit's sync"), 8 MB zero-filled files against the
    // old config: commits +6% faster while the disk's flush is slow, +22% while it is fast; nothing
    // changes in what is durable when (the commit still writes and syncs its log record before it
    // returns). file_max=8MB: zero-filling is paid per log file, so files are small: a fresh data
    // directory holds 3 log files, 25 MB (it was 301 MB of fallocated space at 100MB) and
    // reopens faster; the cost is a log-file switch every 8 MB of journal.
    config +=
        "log=(enabled=true,archive=true,file_max=8MB,zero_fill=true),checkpoint=(wait=60),"
        "transaction_sync=(enabled=false)";
  }
  events_.handler.handle_error = &WiredTigerConnection::handle_error;
  events_.owner = this;
  int rc = wiredtiger_open(home_.c_str(), &events_.handler, config.c_str(), &connection_);
  if (rc != 0) {
    throw Error(
        ErrorCode::kDataDirectoryInvalid,
        "data directory '" + home_ + "': WiredTiger cannot open it: " + wiredtiger_strerror(rc));
  }
  pool_ = std::make_unique<WiredTigerSessionPool>(connection_);
  // Only a durable engine names a sync: otherwise the connection's default applies (no log in
  // memory; transaction_sync disabled for the journaled engine, whose flusher syncs), and a
  // null config spares WiredTiger parsing "sync=off" on every commit (~2,200 instructions).
  commit_config_ = options.durability == Durability::kDurable ? "sync=on" : nullptr;
}

WiredTigerConnection::~WiredTigerConnection() {
  {
    std::lock_guard<std::mutex> lock(journal_mutex_);
    stopping_ = true;
  }
  journal_cv_.notify_all();
  if (journal_thread_.joinable()) journal_thread_.join();
  pool_->close_all();
  // Closing the connection takes a final checkpoint: a clean shutdown needs no recovery.
  connection_->close(connection_, nullptr);
  if (!memory_home_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(memory_home_, ec);
  }
}

void WiredTigerConnection::start_journal_flusher() {
  if (durability_ == Durability::kJournaled) {
    journal_thread_ = std::thread([this] { journal_flusher(); });
  }
}

void WiredTigerConnection::checkpoint() {
  if (durability_ == Durability::kInMemory) return;
  auto s = pool_->acquire();
  check_wiredtiger(s->checkpoint(s.get(), nullptr), "checkpoint", s.get());
}

void WiredTigerConnection::create_table(const std::string& uri, const char* config) {
  auto s = pool_->acquire();
  check_wiredtiger(s->create(s.get(), uri.c_str(), config), "create", s.get());
}

void WiredTigerConnection::create_record_table(const std::string& uri) {
  create_table(uri, record_table_config(durability_));
}

void WiredTigerConnection::drop_table(const std::string& uri) {
  pool_->reset_idle();
  auto s = pool_->acquire();
  int rc = s->drop(s.get(), uri.c_str(), "force=true");
  if (rc == EBUSY) {
    // Another thread still has a cursor open on it; drop later.
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_drops_.push_back(uri);
    return;
  }
  check_wiredtiger(rc, "drop", s.get());
}

void WiredTigerConnection::retry_pending_drops() {
  std::vector<std::string> pending;
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending.swap(pending_drops_);
  }
  for (const auto& uri : pending) drop_table(uri);
}

void WiredTigerConnection::journal_flusher() {
  std::unique_lock<std::mutex> lock(journal_mutex_);
  while (!stopping_) {
    journal_cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    auto s = pool_->acquire();
    s->log_flush(s.get(), "sync=on");
  }
}

}  // namespace mongostore::engine
