// WriteGate: a reader-writer lock that does not starve its exclusive side.
//
// Document writes share it, index builds and drops (and collection drops, renames, collMod)
// take it alone. pthread's rwlock prefers readers, so a steady stream of writes could hold an
// index build off forever; the turnstile makes new shared lockers queue behind a waiting
// exclusive one. Thread-safe; usable with std::shared_lock / std::unique_lock.
#pragma once

#include <mutex>
#include <shared_mutex>

namespace mongostore::engine {

class WriteGate {
 public:
  void lock_shared() {
    { std::lock_guard<std::mutex> turn(turnstile_); }
    mutex_.lock_shared();
  }
  void unlock_shared() { mutex_.unlock_shared(); }
  void lock() {
    std::lock_guard<std::mutex> turn(turnstile_);
    mutex_.lock();
  }
  void unlock() { mutex_.unlock(); }

 private:
  std::mutex turnstile_;
  std::shared_mutex mutex_;
};

}  // namespace mongostore::engine
