// The unit of work and the auto-commit boundary (src/engine/unit_of_work.h,
// write_conflict_retry.h): commit and rollback hooks run exactly on the WiredTiger
// transaction's outcome, a read-only unit commits nothing, an open unit destroyed aborts,
// and inside a unit a write conflict is an exception that surfaces: only
// write_conflict_retry catches it, and it runs the body again in a fresh unit.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/operation_context.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/storage/write_conflict.h"
#include "engine/unit_of_work.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

constexpr UnitOfWork::Mode kWrite = UnitOfWork::Mode::kWrite;
constexpr UnitOfWork::Mode kRead = UnitOfWork::Mode::kReadOnly;
const std::string kTable = "table:unit_of_work_test";

class UnitOfWorkTest : public ::testing::Test {
 protected:
  UnitOfWorkTest() : connection_(memory_options()) {
    connection_.create_table(kTable, kRecordTableConfig);
  }
  static EngineOptions memory_options() {
    EngineOptions options;
    options.durability = Durability::kInMemory;
    options.cache_size_mb = 64;
    return options;
  }
  std::string key(int i) { return record_key(bson::make_document("_id", i).get("_id")); }
  bson::Document doc(int i) { return bson::make_document("_id", i); }
  bool present(int i) {
    UnitOfWork unit(connection_.pool(), kRead, connection_.commit_config());
    unit.begin();
    bool found = RecordTable(unit.session(), kTable).get(key(i)).has_value();
    unit.commit();
    return found;
  }

  WiredTigerConnection connection_;
};

TEST_F(UnitOfWorkTest, CommitRunsCommitHooksAndMakesTheWriteVisible) {
  std::vector<std::string> ran;
  {
    UnitOfWork unit(connection_.pool(), kWrite, connection_.commit_config());
    unit.begin();
    unit.on_commit([&] { ran.push_back("commit"); });
    unit.on_rollback([&] { ran.push_back("rollback"); });
    ASSERT_EQ(RecordTable(unit.session(), kTable).insert(key(1), doc(1).view()),
              RecordTable::InsertStatus::kInserted);
    unit.commit();
    EXPECT_FALSE(unit.active());
  }
  EXPECT_EQ(ran, std::vector<std::string>{"commit"});
  EXPECT_TRUE(present(1));
}

TEST_F(UnitOfWorkTest, AbortRunsRollbackHooksAndLeavesNothing) {
  std::vector<std::string> ran;
  UnitOfWork unit(connection_.pool(), kWrite, connection_.commit_config());
  unit.begin();
  unit.on_commit([&] { ran.push_back("commit"); });
  unit.on_rollback([&] { ran.push_back("rollback"); });
  RecordTable(unit.session(), kTable).insert(key(2), doc(2).view());
  unit.abort();
  EXPECT_EQ(ran, std::vector<std::string>{"rollback"});
  EXPECT_FALSE(present(2));
}

TEST_F(UnitOfWorkTest, AnOpenUnitDestroyedAborts) {
  bool rolled_back = false;
  {
    UnitOfWork unit(connection_.pool(), kWrite, connection_.commit_config());
    unit.begin();
    unit.on_rollback([&] { rolled_back = true; });
    RecordTable(unit.session(), kTable).insert(key(3), doc(3).view());
  }
  EXPECT_TRUE(rolled_back);
  EXPECT_FALSE(present(3));
}

TEST_F(UnitOfWorkTest, AReadOnlyUnitCommitsNothing) {
  bool committed = false;
  UnitOfWork unit(connection_.pool(), kRead, connection_.commit_config());
  unit.begin();
  unit.on_commit([&] { committed = true; });
  RecordTable(unit.session(), kTable).insert(key(4), doc(4).view());
  unit.commit();  // rolls back: a snapshot has nothing to commit
  EXPECT_FALSE(committed);
  EXPECT_FALSE(present(4));
}

TEST_F(UnitOfWorkTest, AConflictSurfacesInsideAUnitOfWork) {
  {
    UnitOfWork seed(connection_.pool(), kWrite, connection_.commit_config());
    seed.begin();
    RecordTable(seed.session(), kTable).insert(key(5), doc(5).view());
    seed.commit();
  }
  UnitOfWork first(connection_.pool(), kWrite, connection_.commit_config());
  UnitOfWork second(connection_.pool(), kWrite, connection_.commit_config());
  first.begin();
  second.begin();
  RecordTable(first.session(), kTable).update(key(5), bson::make_document("_id", 5, "v", 1));
  EXPECT_THROW(
      RecordTable(second.session(), kTable).update(key(5), bson::make_document("_id", 5, "v", 2)),
      WriteConflictException);
  second.abort();
  first.commit();
}

TEST_F(UnitOfWorkTest, WriteConflictRetryRunsTheBodyAgainInAFreshUnit) {
  OperationContext op(connection_);
  int attempts = 0, commits = 0, rollbacks = 0;
  UnitOfWork* first_unit = nullptr;
  int result = write_conflict_retry(op, kWrite, [&] {
    ++attempts;
    op.unit_of_work().on_commit([&] { ++commits; });
    op.unit_of_work().on_rollback([&] { ++rollbacks; });
    RecordTable(op.session(), kTable).insert(key(10 + attempts), doc(10 + attempts).view());
    if (attempts == 1) {
      first_unit = &op.unit_of_work();
      throw WriteConflictException{};
    }
    return attempts;
  });
  EXPECT_EQ(result, 2);
  EXPECT_EQ(commits, 1);
  EXPECT_EQ(rollbacks, 1);
  EXPECT_FALSE(present(11));  // the first attempt's write was rolled back
  EXPECT_TRUE(present(12));
  EXPECT_FALSE(op.in_unit_of_work());
}

TEST_F(UnitOfWorkTest, OtherErrorsAbortAndPropagateWithoutRetry) {
  OperationContext op(connection_);
  int attempts = 0;
  bool rolled_back = false;
  EXPECT_THROW(
      write_conflict_retry(op, kWrite,
                           [&] {
                             ++attempts;
                             op.unit_of_work().on_rollback([&] { rolled_back = true; });
                             RecordTable(op.session(), kTable).insert(key(20), doc(20).view());
                             throw std::runtime_error("not a conflict");
                           }),
      std::runtime_error);
  EXPECT_EQ(attempts, 1);
  EXPECT_TRUE(rolled_back);
  EXPECT_FALSE(present(20));
  EXPECT_FALSE(op.in_unit_of_work());
}

}  // namespace
}  // namespace mongostore::engine
