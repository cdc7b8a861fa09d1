#include "mongostore/exec/async_execution_store.h"

#include <atomic>
#include <type_traits>

#include "exec/connect_retry.h"
#include "exec/in_flight_limiter.h"

namespace mongostore::exec {

// kGcc12Note: GCC 12.2 (Debian 12's compiler) destroys twice a temporary of class type that
// is an argument inside a co_await expression (GCC bug 100611 and relatives; fixed in later
// releases): `co_await run([captures] {...})` freed the captures twice. Every operation here
// therefore names its closure and moves it in.

class AsyncExecutionStore::Impl {
 public:
  explicit Impl(AsyncStoreOptions options)
      : options_(std::move(options)),
        pool_(options_.threads),
        limiter_(pool_.get_executor(), options_.max_in_flight) {}

  ~Impl() { pool_.join(); }

  // Runs `operation` (a blocking call on the sync store) on the pool once a slot is free,
  // and resumes the caller on its own executor with the result or the exception.
  template <class Operation>
  asio::awaitable<std::invoke_result_t<Operation&>> run(Operation operation) {
    using Result = std::invoke_result_t<Operation&>;
    co_await limiter_.acquire();
    InFlightSlot slot(limiter_);
    // Named, not a temporary inside the co_await expression: see kGcc12Note.
    auto task = [this, operation = std::move(operation)]() mutable -> asio::awaitable<Result> {
      Running running(*this);
      if (options_.before_operation) options_.before_operation();
      co_return operation();
    };
    co_return co_await asio::co_spawn(pool_, std::move(task), asio::use_awaitable);
  }

  size_t in_flight() const { return in_flight_.load(); }
  size_t peak() const { return peak_.load(); }

 private:
  // Counts the operation as running for its lifetime on the pool thread.
  class Running {
   public:
    explicit Running(Impl& impl) : impl_(impl) {
      size_t now = impl_.in_flight_.fetch_add(1) + 1;
      size_t peak = impl_.peak_.load();
      while (now > peak && !impl_.peak_.compare_exchange_weak(peak, now)) {
      }
    }
    ~Running() { impl_.in_flight_.fetch_sub(1); }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    Impl& impl_;
  };

  AsyncStoreOptions options_;
  asio::thread_pool pool_;
  InFlightLimiter limiter_;
  std::atomic<size_t> in_flight_{0};
  std::atomic<size_t> peak_{0};
};

namespace {

AsyncStoreOptions checked(AsyncStoreOptions options) {
  if (options.threads < 1) {
    throw Error(ErrorCode::kBadValue, "AsyncExecutionStore: threads must be >= 1");
  }
  if (options.max_in_flight < 1) {
    throw Error(ErrorCode::kBadValue, "AsyncExecutionStore: max_in_flight must be >= 1");
  }
  return options;
}

}  // namespace

AsyncExecutionStore::AsyncExecutionStore(std::shared_ptr<ExecutionStore> store,
                                         AsyncStoreOptions options)
    : store_(std::move(store)) {
  if (!store_) throw Error(ErrorCode::kBadValue, "AsyncExecutionStore: no store");
  impl_ = std::make_unique<Impl>(checked(std::move(options)));
}

AsyncExecutionStore::~AsyncExecutionStore() = default;

size_t AsyncExecutionStore::in_flight() const {
  return impl_->in_flight();
}
size_t AsyncExecutionStore::peak_in_flight() const {
  return impl_->peak();
}

// connect() is a plain function that hands its by-value arguments on to this coroutine:
// GCC 12 destroys braced temporaries passed straight into a coroutine's by-value parameters
// twice (`connect(uri, {}, {})` crashed), while a coroutine fed from a normal function's
// parameters is safe.
asio::awaitable<std::unique_ptr<AsyncExecutionStore>> AsyncExecutionStore::connect_coroutine(
    std::string uri, ExecutionStoreOptions options, AsyncStoreOptions async,
    std::chrono::milliseconds deadline) {
  auto executor = co_await asio::this_coro::executor;
  // Each attempt blocks (connect, ping, index creation), so it runs on a helper thread; the
  // waits between attempts are timers on the caller's executor.
  asio::thread_pool helper(1);
  asio::steady_timer timer(executor);
  ConnectRetry retry(uri, deadline);
  std::shared_ptr<ExecutionStore> store;
  // One co_return, after the loop: GCC 12 mis-destroys the frame of a coroutine that
  // co_returns from inside a loop holding live locals (a crash in the parameters'
  // destructors), so the loop only breaks.
  while (!store) {
    int32_t code = static_cast<int32_t>(ErrorCode::kHostUnreachable);
    std::string message;
    std::string attempt_uri = retry.attempt_uri();
    try {
      auto attempt = [attempt_uri, options]() -> asio::awaitable<std::shared_ptr<ExecutionStore>> {
        co_return std::make_shared<ExecutionStore>(
            ExecutionStore::connect_once(attempt_uri, options));
      };
      store = co_await asio::co_spawn(helper, std::move(attempt), asio::use_awaitable);
    } catch (const Error& e) {
      code = e.code();
      message = e.what();
    } catch (const std::exception& e) {
      message = e.what();
    }
    if (store) break;
    std::optional<std::chrono::milliseconds> wait = retry.after_failure(code);
    if (!wait) retry.give_up(code, message);
    timer.expires_after(*wait);
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_return std::make_unique<AsyncExecutionStore>(std::move(store), std::move(async));
}

asio::awaitable<std::unique_ptr<AsyncExecutionStore>> AsyncExecutionStore::connect(
    std::string uri, ExecutionStoreOptions options, AsyncStoreOptions async,
    std::chrono::milliseconds deadline) {
  return connect_coroutine(std::move(uri), std::move(options), std::move(async), deadline);
}

asio::awaitable<Execution> AsyncExecutionStore::create(NewExecution spec) {
  auto op = [this, spec = std::move(spec)] { return store_->create(spec); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::commit(Execution& exe, CommitBatch batch) {
  auto op = [this, &exe, batch = std::move(batch)] { store_->commit(exe, batch); };
  co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::save(Execution& exe) {
  auto op = [this, &exe] { store_->save(exe); };
  co_await impl_->run(std::move(op));
}

asio::awaitable<std::optional<Execution>> AsyncExecutionStore::load(std::string execution_id) {
  auto op = [this, id = std::move(execution_id)] { return store_->load(id); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<std::pair<std::optional<Execution>, bool>> AsyncExecutionStore::load_for_event(
    std::string execution_id, std::string event_id) {
  auto op = [this, id = std::move(execution_id), event = std::move(event_id)] {
    return store_->load_for_event(id, event);
  };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<bool> AsyncExecutionStore::is_processed(std::string execution_id,
                                                        std::string event_id) {
  auto op = [this, id = std::move(execution_id), event = std::move(event_id)] {
    return store_->is_processed(id, event);
  };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<int64_t> AsyncExecutionStore::processed_count(std::string execution_id) {
  auto op = [this, id = std::move(execution_id)] { return store_->processed_count(id); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::archive_processed(std::string execution_id) {
  auto op = [this, id = std::move(execution_id)] { store_->archive_processed(id); };
  co_await impl_->run(std::move(op));
}

asio::awaitable<ExecutionPage> AsyncExecutionStore::list_executions(ListQuery query) {
  auto op = [this, query = std::move(query)] { return store_->list_executions(query); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<std::vector<OutboxEntry>> AsyncExecutionStore::pending_outbox() {
  auto op = [this] { return store_->pending_outbox(); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::ack_outbox(int64_t seq) {
  auto op = [this, seq] { store_->ack_outbox(seq); };
  co_await impl_->run(std::move(op));
}

asio::awaitable<std::vector<SpawnEntry>> AsyncExecutionStore::pending_spawns() {
  auto op = [this] { return store_->pending_spawns(); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::ack_spawn(int64_t seq) {
  auto op = [this, seq] { store_->ack_spawn(seq); };
  co_await impl_->run(std::move(op));
}

asio::awaitable<std::vector<DueTimer>> AsyncExecutionStore::due_timers(double now) {
  auto op = [this, now] { return store_->due_timers(now); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::delete_timer(std::string execution_id, std::string path,
                                                        double fire_at) {
  auto op = [this, id = std::move(execution_id), path = std::move(path), fire_at] {
    store_->delete_timer(id, path, fire_at);
  };
  co_await impl_->run(std::move(op));
}

asio::awaitable<std::vector<DueTimer>> AsyncExecutionStore::timers(std::string execution_id) {
  auto op = [this, id = std::move(execution_id)] { return store_->timers(id); };
  co_return co_await impl_->run(std::move(op));
}

asio::awaitable<void> AsyncExecutionStore::append_trace(std::string execution_id,
                                                        bson::Document entry) {
  auto op = [this, id = std::move(execution_id), entry = std::move(entry)] {
    store_->append_trace(id, entry);
  };
  co_await impl_->run(std::move(op));
}

asio::awaitable<std::vector<bson::Document>> AsyncExecutionStore::read_trace(
    std::string execution_id) {
  auto op = [this, id = std::move(execution_id)] { return store_->read_trace(id); };
  co_return co_await impl_->run(std::move(op));
}

}  // namespace mongostore::exec
