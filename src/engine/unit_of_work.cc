#include "engine/unit_of_work.h"

#include "engine/storage/write_conflict.h"

namespace mongostore::engine {

UnitOfWork::~UnitOfWork() {
  if (active_) abort();
}

void UnitOfWork::begin() {
  check_wiredtiger(session()->begin_transaction(session(), nullptr), "begin_transaction",
                   session());
  active_ = true;
}

void UnitOfWork::commit() {
  WT_SESSION* s = session();
  if (mode_ == Mode::kReadOnly) {
    abort();  // a read-only snapshot has nothing to commit
    return;
  }
  active_ = false;
  int rc = s->commit_transaction(s, commit_config_);
  if (rc != 0) {
    // A failed commit is rolled back by WiredTiger.
    run_rollback_hooks();
    if (rc == WT_ROLLBACK) throw WriteConflictException{};
    check_wiredtiger(rc, "commit_transaction", s);
  }
  rollback_hooks_.clear();
  std::vector<std::function<void()>> hooks;
  hooks.swap(commit_hooks_);
  for (auto& hook : hooks) hook();
}

void UnitOfWork::abort() {
  if (!active_) return;
  active_ = false;
  session()->rollback_transaction(session(), nullptr);
  run_rollback_hooks();
}

void UnitOfWork::run_rollback_hooks() {
  commit_hooks_.clear();
  std::vector<std::function<void()>> hooks;
  hooks.swap(rollback_hooks_);
  for (auto& hook : hooks) hook();
}

}  // namespace mongostore::engine
