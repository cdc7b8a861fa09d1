// AsyncExecutionStore: the ExecutionStore's operations as C++20 coroutines (asio::awaitable).
//
//   asio::io_context io;
//   exec::AsyncExecutionStore store(sync_store, {.threads = 4, .max_in_flight = 64});
//   asio::co_spawn(io, [&]() -> asio::awaitable<void> {
//     auto [exe, seen] = co_await store.load_for_event(id, event.id);
//     ...
//     co_await store.commit(*exe, batch);
//   }, asio::detached);
//
// The Client seam is blocking, so each operation runs on a thread pool owned by this object
// and resumes the awaiting coroutine on its own executor. At most `max_in_flight` operations
// run at once; further callers wait (without blocking a thread) for a slot. Safe to use from
// many coroutines and threads at once. Errors are rethrown in the awaiting coroutine.
//
// GCC 12.2 (Debian 12's g++) mishandles class-type temporaries that are arguments inside a
// co_await expression (they can be destroyed twice; GCC bugs 100611 and relatives). With
// that compiler, build the arguments as named objects and move or pass them in:
//   ExecutionStoreOptions options;            // not: co_await connect(uri, {}, {})
//   auto connecting = AsyncExecutionStore::connect(uri, options);
//   auto store = co_await std::move(connecting);
// Short strings and scalars are unaffected in practice; documents and option structs are not.
#pragma once

// A standard library header before Asio's: Asio decides once per translation unit whether
// to allocate with std::aligned_alloc by a macro of libstdc++'s configuration, defined only
// once some standard header is in. A unit that includes Asio first would free with
// operator delete what another unit allocated with aligned_alloc (the same inline
// functions, two definitions), which AddressSanitizer reports as an alloc-dealloc mismatch.
#include <cstddef>

#include <asio.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {

struct AsyncStoreOptions {
  /// Threads running store operations.
  size_t threads = 4;
  /// Operations running at once (>= 1).
  size_t max_in_flight = 64;
  /// Instrumentation (tests): called on the pool thread right before each operation runs,
  /// with its in-flight slot held. Empty: nothing is called.
  std::function<void()> before_operation;
};

class AsyncExecutionStore {
 public:
  AsyncExecutionStore(std::shared_ptr<ExecutionStore> store, AsyncStoreOptions options = {});
  /// Waits for running operations and stops the pool.
  ~AsyncExecutionStore();
  AsyncExecutionStore(const AsyncExecutionStore&) = delete;
  AsyncExecutionStore& operator=(const AsyncExecutionStore&) = delete;

  /// Connects like ExecutionStore::connect, awaiting (not blocking) between retries.
  static asio::awaitable<std::unique_ptr<AsyncExecutionStore>> connect(
      std::string uri, ExecutionStoreOptions options = {}, AsyncStoreOptions async = {},
      std::chrono::milliseconds deadline = std::chrono::seconds(30));

  asio::awaitable<Execution> create(NewExecution spec);
  /// `exe` must stay alive until the awaited commit completes (it is updated in place).
  asio::awaitable<void> commit(Execution& exe, CommitBatch batch = {});
  asio::awaitable<void> save(Execution& exe);
  asio::awaitable<std::optional<Execution>> load(std::string execution_id);
  asio::awaitable<std::pair<std::optional<Execution>, bool>> load_for_event(
      std::string execution_id, std::string event_id);
  asio::awaitable<bool> is_processed(std::string execution_id, std::string event_id);
  asio::awaitable<int64_t> processed_count(std::string execution_id);
  asio::awaitable<void> archive_processed(std::string execution_id);
  asio::awaitable<ExecutionPage> list_executions(ListQuery query = {});
  asio::awaitable<std::vector<OutboxEntry>> pending_outbox();
  asio::awaitable<void> ack_outbox(int64_t seq);
  asio::awaitable<std::vector<SpawnEntry>> pending_spawns();
  asio::awaitable<void> ack_spawn(int64_t seq);
  asio::awaitable<std::vector<DueTimer>> due_timers(double now);
  asio::awaitable<void> delete_timer(std::string execution_id, std::string path, double fire_at);
  asio::awaitable<std::vector<DueTimer>> timers(std::string execution_id);
  asio::awaitable<void> append_trace(std::string execution_id, bson::Document entry);
  asio::awaitable<std::vector<bson::Document>> read_trace(std::string execution_id);

  /// The synchronous store underneath.
  ExecutionStore& sync() { return *store_; }

  /// Operations running on the pool right now, and the most that ever ran at once: the
  /// max_in_flight bound is observable, not only promised.
  size_t in_flight() const;
  size_t peak_in_flight() const;

 private:
  static asio::awaitable<std::unique_ptr<AsyncExecutionStore>> connect_coroutine(
      std::string uri, ExecutionStoreOptions options, AsyncStoreOptions async,
      std::chrono::milliseconds deadline);
  class Impl;
  std::shared_ptr<ExecutionStore> store_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::exec
