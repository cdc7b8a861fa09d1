#include "demo_runner.h"

#include <fmt/core.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "demo_workflow.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::tool::demo {
namespace {

using Clock = std::chrono::steady_clock;

double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One event handed to a worker, and how to acknowledge it once handled.
struct Delivery {
  std::string in_flight_key;  // the relay does not hand out the same work twice at once
  std::string target_id;
  exec::Event event;
  std::optional<int64_t> outbox_seq;    // ack_outbox after handling
  std::optional<exec::DueTimer> timer;  // delete_timer after handling
};

class DeliveryQueue {
 public:
  void push(Delivery d) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(d));
    }
    ready_.notify_one();
  }
  /// Blocks until an item or close(); nullopt when closed and empty.
  std::optional<Delivery> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    Delivery d = std::move(queue_.front());
    queue_.pop_front();
    return d;
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  size_t size() {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Delivery> queue_;
  bool closed_ = false;
};

bson::Document trace_step(const exec::Event& event, const Transition& t,
                          const exec::Execution& exe) {
  bson::DocumentBuilder b;
  b.append("event_kind", event.kind).append("event_data", event.data.view());
  if (t.from_path.empty()) {
    b.append("from_path", bson::Null{});
  } else {
    b.append("from_path", t.from_path);
  }
  b.append("to_path", t.to_path);
  b.open_array("actions");
  size_t i = 0;
  for (const auto& e : t.batch.emits) b.append(std::to_string(i++), "emit " + e.event.kind);
  for (const auto& s : t.batch.spawns) b.append(std::to_string(i++), "spawn " + s.root_path);
  for (const auto& op : t.batch.timers) {
    b.append(std::to_string(i++),
             (op.action == exec::TimerOp::Action::kSchedule ? "arm " : "cancel ") + op.path);
  }
  b.close();
  b.append("context_out", exe.context.view()).append("timestamp", epoch_now());
  return b.finish();
}

}  // namespace

class DemoRunner::Impl {
 public:
  Impl(exec::ExecutionStore& store, DemoOptions options, DemoCounters& counters)
      : store_(store), options_(options), counters_(counters) {}

  void run(const std::function<void(double)>& progress) {
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < options_.workers; ++i) threads.emplace_back([this] { work(); });
    std::atomic<int64_t> next_order{0};
    std::vector<std::thread> producers;
    for (int i = 0; i < options_.workers; ++i) {
      producers.emplace_back([this, &next_order] { produce(next_order); });
    }
    std::thread relay([this] { relay_loop(); });
    auto last_progress = Clock::now();
    std::exception_ptr failure;
    try {
      while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (auto e = take_error()) std::rethrow_exception(e);
        double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (Clock::now() - last_progress > std::chrono::milliseconds(500)) {
          progress(elapsed);
          last_progress = Clock::now();
        }
        if (next_order.load() >= options_.orders && finished()) break;
        if (elapsed > options_.deadline_seconds) {
          throw Error(ErrorCode::kExceededTimeLimit,
                      fmt::format("demo did not finish within {} s", options_.deadline_seconds));
        }
      }
    } catch (...) {
      failure = std::current_exception();
      next_order.store(options_.orders);
    }
    stopping_ = true;
    queue_.close();
    relay.join();
    for (auto& t : producers) t.join();
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
    if (auto e = take_error()) std::rethrow_exception(e);
    progress(std::chrono::duration<double>(Clock::now() - start).count());
  }

 private:
  // Quiescent: nothing queued or in flight, nothing pending in the store, every order terminal.
  bool finished() {
    {
      std::lock_guard lock(in_flight_mutex_);
      if (!in_flight_.empty()) return false;
    }
    if (queue_.size() != 0) return false;
    if (!store_.pending_outbox().empty() || !store_.pending_spawns().empty()) return false;
    exec::ListQuery open;
    open.statuses = {exec::ExecutionStatus::kPending, exec::ExecutionStatus::kRunning};
    open.limit = 1;
    return store_.list_executions(open).items.empty();
  }

  void produce(std::atomic<int64_t>& next) {
    std::mt19937_64 rng(options_.seed + std::hash<std::thread::id>{}(std::this_thread::get_id()));
    std::uniform_real_distribution<double> unit(0, 1);
    try {
      for (int64_t i; !stopping_ && (i = next.fetch_add(1)) < options_.orders;) {
        std::string id = fmt::format("order-{:03d}-{:05d}", options_.run, i);
        bool pays = unit(rng) >= options_.unpaid_share;
        auto [exe, batch] =
            new_order(id, 10 + (i * 37) % 490, pays, epoch_now(), options_.payment_timeout);
        try {
          store_.commit(exe, batch);
          counters_.commits.fetch_add(1);
          counters_.orders_created.fetch_add(1);
        } catch (const exec::StoreConflict&) {
          // Already created (this run number was used before): nothing to do.
        }
      }
    } catch (...) {
      record_error(std::current_exception());
    }
  }

  bool claim(const std::string& key) {
    std::lock_guard lock(in_flight_mutex_);
    return in_flight_.insert(key).second;
  }
  void release(const std::string& key) {
    std::lock_guard lock(in_flight_mutex_);
    in_flight_.erase(key);
  }

  void relay_loop() {
    std::mt19937_64 rng(options_.seed);
    std::uniform_real_distribution<double> unit(0, 1);
    try {
      while (!stopping_) {
        bool found = false;
        for (exec::OutboxEntry& e : store_.pending_outbox()) {
          std::string key = fmt::format("outbox:{}", e.seq);
          if (!e.target_id || !claim(key)) continue;
          found = true;
          Delivery d{key, *e.target_id, e.event, e.seq, std::nullopt};
          if (unit(rng) < options_.duplicate_share) queue_.push(d);  // a redelivery
          queue_.push(std::move(d));
        }
        for (const exec::SpawnEntry& s : store_.pending_spawns()) {
          found = true;
          auto [child, batch] = new_child(s);
          try {
            store_.commit(child, batch);
            counters_.commits.fetch_add(1);
            counters_.spawns_created.fetch_add(1);
          } catch (const exec::StoreConflict&) {
            // The child exists: a previous relay created it and did not get to the ack.
          }
          store_.ack_spawn(s.seq);
        }
        for (const exec::DueTimer& t : store_.due_timers(epoch_now())) {
          std::string key = fmt::format("timer:{}:{}:{}", t.execution_id, t.path, t.fire_at);
          if (!claim(key)) continue;
          found = true;
          exec::Event timeout;
          timeout.id = fmt::format("timeout:{}:{}:{}", t.execution_id, t.path, t.fire_at);
          timeout.kind = "Timeout";
          timeout.data = bson::make_document("path", t.path);
          queue_.push(Delivery{key, t.execution_id, std::move(timeout), std::nullopt, t});
        }
        if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    } catch (...) {
      record_error(std::current_exception());
    }
  }

  void work() {
    try {
      while (auto d = queue_.pop()) {
        handle(*d);
        if (d->outbox_seq) store_.ack_outbox(*d->outbox_seq);
        if (d->timer)
          store_.delete_timer(d->timer->execution_id, d->timer->path, d->timer->fire_at);
        release(d->in_flight_key);
      }
    } catch (...) {
      record_error(std::current_exception());
      queue_.close();
    }
  }

  void handle(const Delivery& d) {
    counters_.deliveries.fetch_add(1);
    while (true) {
      auto [exe, seen] = store_.load_for_event(d.target_id, d.event.id);
      if (!exe) {
        throw Error(ErrorCode::kNoSuchKey,
                    "event " + d.event.id + " targets unknown execution " + d.target_id);
      }
      if (seen) {
        counters_.duplicates_suppressed.fetch_add(1);
        return;
      }
      Transition t = apply_event(*exe, d.event);
      t.batch.processed_event_id = d.event.id;
      if (options_.trace) t.batch.trace = trace_step(d.event, t, *exe);
      try {
        store_.commit(*exe, t.batch);
      } catch (const exec::StoreConflict&) {
        counters_.conflicts_retried.fetch_add(1);
        continue;  // someone else moved this execution: reload and apply again
      }
      counters_.commits.fetch_add(1);
      counters_.events_processed.fetch_add(1);
      switch (t.effect) {
        case Effect::kTimerFired:
          counters_.timers_fired.fetch_add(1);
          break;
        case Effect::kChildJoined:
          counters_.spawns_joined.fetch_add(1);
          break;
        case Effect::kIgnored:
          counters_.stale_events.fetch_add(1);
          break;
        case Effect::kAdvanced:
          break;
      }
      return;
    }
  }

  void record_error(std::exception_ptr e) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = e;
  }
  std::exception_ptr take_error() {
    std::lock_guard lock(error_mutex_);
    return error_;
  }

  exec::ExecutionStore& store_;
  DemoOptions options_;
  DemoCounters& counters_;
  DeliveryQueue queue_;
  std::mutex in_flight_mutex_;
  std::set<std::string> in_flight_;
  std::atomic<bool> stopping_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

DemoRunner::DemoRunner(exec::ExecutionStore& store, DemoOptions options)
    : impl_(std::make_unique<Impl>(store, options, counters_)) {}

DemoRunner::~DemoRunner() = default;

void DemoRunner::run(const std::function<void(double)>& progress) {
  impl_->run(progress);
}

}  // namespace mongostore::tool::demo
