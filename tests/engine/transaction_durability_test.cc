// Durability of multi-document transactions on a durable engine: a commit acknowledged with
// the default TransactionOptions (journal = true, writeConcern j: true) must survive the
// process dying right after commit() returns, as an auto-commit write does.
//
// A child process opens the engine, makes the write, and SIGKILLs itself the moment the
// write is acknowledged (no close, no checkpoint); the parent reopens the directory and
// looks for the write. Only what reached the journal file survives.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <memory>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/transaction.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

EngineOptions durable_at(const std::string& path) {
  EngineOptions options;
  options.path = path;
  options.durability = Durability::kDurable;
  options.cache_size_mb = 64;
  options.disk_space_reserve_mb = 0;
  return options;
}

/// Runs `write` on a fresh durable engine at `path` (after a durable {_id: 1, x: 0}) in a
/// child killed by SIGKILL as soon as `write` returns; returns x of _id 1 after reopening,
/// or -1 if the child did not die by SIGKILL.
int64_t x_after_kill(const std::string& path, const std::function<void(Engine&)>& write) {
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    auto e = Engine::open(durable_at(path));
    e->insert_one("db", "c", make_document("_id", 1, "x", int64_t(0)).view());
    write(*e);
    ::kill(::getpid(), SIGKILL);  // the crash: acknowledged, then nothing more
    _exit(1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) return -1;
  auto e = Engine::open(durable_at(path));
  auto doc = e->find_by_id("db", "c", make_document("_id", 1).get("_id"));
  return doc ? doc->get("x").as_int64() : -2;
}

const bson::Document& set_x_1() {
  static const bson::Document update = make_document("$set", make_document("x", int64_t(1)));
  return update;
}

// The control: an auto-commit write (journal = true) is synced before it is acknowledged.
TEST(TransactionDurability, AutoCommitWriteSurvivesKillAfterAcknowledgement) {
  mongostore::testing::TempDir dir;
  EXPECT_EQ(x_after_kill(dir.path(),
                         [](Engine& e) {
                           e.update_one("db", "c", make_document("_id", 1).view(), set_x_1().view(),
                                        {});
                         }),
            1);
}

// Found by bench/transaction_bench (a durable transaction committed in ~6 µs, the single
// write in milliseconds): MultiDocumentTransaction passes commit_config_for(journal = true),
// which is nullptr, straight to its UnitOfWork, so WiredTiger commits with the connection's
// default, transaction_sync=(enabled=false): no journal flush. The auto-commit path
// (write_conflict_retry) replaces that nullptr with the connection's "sync=on".
TEST(TransactionDurability, JournaledTransactionCommitSurvivesKillAfterAcknowledgement) {
  mongostore::testing::TempDir dir;
  EXPECT_EQ(x_after_kill(dir.path(),
                         [](Engine& e) {
                           auto txn = e.begin_transaction();  // journal = true by default
                           txn->engine().update_one("db", "c", make_document("_id", 1).view(),
                                                    set_x_1().view(), {});
                           txn->commit();
                         }),
            1);
}

}  // namespace
}  // namespace mongostore::engine
