// Multi-document transactions on the embedded engine (mongostore/engine/transaction.h), in
// memory and durable: snapshot isolation (no dirty reads, read your own writes, repeatable
// reads), commit all-or-nothing, abort leaving neither documents nor index entries, write
// conflicts and their labels, the lifetime limit, refused DDL, cursors in a transaction,
// and money moved between accounts by racing threads without the total ever changing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/transaction.h"
#include "mongostore/error.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

class TransactionTest : public ::testing::TestWithParam<Durability> {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.durability = GetParam();
    options.cache_size_mb = 64;
    options.disk_space_reserve_mb = 0;
    if (GetParam() != Durability::kInMemory) options.path = dir_.path();
    engine_ = Engine::open(options);
  }

  int64_t count(Engine& e, std::string_view coll = "c") {
    return e.count_documents("db", coll, bson::Document().view());
  }
  int64_t field(Engine& e, int id, std::string_view name = "x") {
    auto d = e.find_by_id("db", "c", make_document("_id", id).get("_id"));
    if (!d) return -1;
    return d->get(name).as_int64();
  }
  static int32_t code_of(const std::function<void()>& f,
                         std::vector<std::string>* labels = nullptr) {
    try {
      f();
    } catch (const Error& e) {
      if (labels) *labels = e.labels();
      return e.code();
    }
    return 0;
  }

  mongostore::testing::TempDir dir_;
  std::shared_ptr<Engine> engine_;
};

TEST_P(TransactionTest, NothingIsVisibleBeforeCommitAndEverythingAfter) {
  auto txn = engine_->begin_transaction();
  txn->engine().insert_one("db", "c", make_document("_id", 1, "x", int64_t{1}).view());
  txn->engine().insert_one("db", "c", make_document("_id", 2, "x", int64_t{2}).view());
  EXPECT_EQ(count(txn->engine()), 2) << "the transaction reads its own writes";
  EXPECT_EQ(count(*engine_), 0) << "no dirty read outside";
  txn->commit();
  EXPECT_EQ(txn->state(), TransactionState::kCommitted);
  EXPECT_EQ(count(*engine_), 2);
  txn->commit();  // a retried commit succeeds
}

TEST_P(TransactionTest, ReadsRepeatWithinTheSnapshot) {
  engine_->insert_one("db", "c", make_document("_id", 1, "x", int64_t{1}).view());
  auto txn = engine_->begin_transaction();
  EXPECT_EQ(field(txn->engine(), 1), 1);
  engine_->update_one("db", "c", make_document("_id", 1).view(),
                      make_document("$set", make_document("x", int64_t{2})).view(), {});
  engine_->insert_one("db", "c", make_document("_id", 2, "x", int64_t{5}).view());
  EXPECT_EQ(field(txn->engine(), 1), 1) << "a committed change after the snapshot is unseen";
  EXPECT_EQ(count(txn->engine()), 1);
  txn->commit();
  EXPECT_EQ(field(*engine_, 1), 2);
}

TEST_P(TransactionTest, AbortLeavesNeitherDocumentsNorIndexEntries) {
  engine_->create_index("db", "c", make_document("k", 1).view(),
                        make_document("unique", true).view());
  engine_->insert_one("db", "c", make_document("_id", 1, "k", "kept").view());
  auto txn = engine_->begin_transaction();
  txn->engine().insert_one("db", "c", make_document("_id", 2, "k", "gone").view());
  txn->engine().update_one("db", "c", make_document("_id", 1).view(),
                           make_document("$set", make_document("k", "changed")).view(), {});
  txn->engine().delete_one("db", "c", make_document("_id", 1).view(), {});
  txn->abort();
  EXPECT_EQ(txn->state(), TransactionState::kAborted);
  EXPECT_EQ(count(*engine_), 1);
  EXPECT_TRUE(engine_->find_one("db", "c", make_document("k", "kept").view(), {}).has_value());
  EXPECT_FALSE(engine_->find_one("db", "c", make_document("k", "gone").view(), {}).has_value());
  // The unique index holds no entry for the aborted insert: the same key goes in now.
  engine_->insert_one("db", "c", make_document("_id", 3, "k", "gone").view());
  EXPECT_TRUE(engine_->validate_collection("db", "c").valid());
  txn->abort();  // a no-op
  std::vector<std::string> labels;
  EXPECT_EQ(code_of([&] { txn->commit(); }, &labels), 251);
  EXPECT_EQ(labels, std::vector<std::string>{"TransientTransactionError"});
}

TEST_P(TransactionTest, TheSecondWriterOfADocumentConflictsAndIsAborted) {
  engine_->insert_one("db", "c", make_document("_id", 1, "x", int64_t{0}).view());
  auto first = engine_->begin_transaction();
  auto second = engine_->begin_transaction();
  auto inc = make_document("$inc", make_document("x", int64_t{1}));
  first->engine().update_one("db", "c", make_document("_id", 1).view(), inc.view(), {});
  std::vector<std::string> labels;
  EXPECT_EQ(code_of(
                [&] {
                  second->engine().update_one("db", "c", make_document("_id", 1).view(), inc.view(),
                                              {});
                },
                &labels),
            112);
  EXPECT_EQ(labels, std::vector<std::string>{"TransientTransactionError"});
  EXPECT_EQ(second->state(), TransactionState::kAborted);
  EXPECT_EQ(code_of([&] { count(second->engine()); }, &labels), 251);
  EXPECT_EQ(labels, std::vector<std::string>{"TransientTransactionError"});
  first->commit();
  EXPECT_EQ(field(*engine_, 1), 1);
  EXPECT_EQ(code_of([&] { first->abort(); }), 256);
}

TEST_P(TransactionTest, AWriteOutsideWaitsForTheTransactionAndAppliesOnTop) {
  engine_->insert_one("db", "c", make_document("_id", 1, "x", int64_t{0}).view());
  auto txn = engine_->begin_transaction();
  txn->engine().update_one("db", "c", make_document("_id", 1).view(),
                           make_document("$inc", make_document("x", int64_t{10})).view(), {});
  std::thread outside([&] {
    engine_->update_one("db", "c", make_document("_id", 1).view(),
                        make_document("$inc", make_document("x", int64_t{1})).view(), {});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  txn->commit();
  outside.join();
  EXPECT_EQ(field(*engine_, 1), 11) << "neither increment was lost";
}

TEST_P(TransactionTest, AnErrorInsideAbortsTheTransaction) {
  engine_->create_index("db", "c", make_document("k", 1).view(),
                        make_document("unique", true).view());
  engine_->insert_one("db", "c", make_document("_id", 1, "k", 1).view());
  auto txn = engine_->begin_transaction();
  txn->engine().insert_one("db", "c", make_document("_id", 2, "k", 2).view());
  std::vector<std::string> labels;
  EXPECT_EQ(
      code_of([&] { txn->engine().insert_one("db", "c", make_document("_id", 3, "k", 1).view()); },
              &labels),
      11000);
  EXPECT_TRUE(labels.empty()) << "a duplicate key is not transient";
  EXPECT_EQ(txn->state(), TransactionState::kAborted);
  EXPECT_EQ(count(*engine_), 1) << "the statement before the failing one is rolled back too";
}

TEST_P(TransactionTest, DdlMongoDbForbidsIsRefusedWith263) {
  engine_->insert_one("db", "c", make_document("_id", 1).view());
  const std::vector<std::pair<std::string, std::function<void(Engine&)>>> ddl = {
      {"drop", [](Engine& e) { e.drop_collection("db", "c"); }},
      {"createIndexes",
       [](Engine& e) { e.create_index("db", "c", make_document("a", 1).view(), {}); }},
      {"renameCollection", [](Engine& e) { e.rename_collection("db", "c", "db", "d", false); }},
      {"dropDatabase", [](Engine& e) { e.drop_database("db"); }},
      {"collMod", [](Engine& e) { e.modify_collection("db", "c", bson::Document().view()); }},
      {"nested", [](Engine& e) { e.begin_transaction(); }},
  };
  for (const auto& [name, run] : ddl) {
    auto txn = engine_->begin_transaction();
    EXPECT_EQ(code_of([&] { run(txn->engine()); }), 263) << name;
    if (name != "nested") {
      EXPECT_EQ(txn->state(), TransactionState::kAborted) << name;
    }
  }
  EXPECT_EQ(count(*engine_), 1);
  EXPECT_TRUE(engine_->collection_exists("db", "c"));
}

TEST_P(TransactionTest, AFirstInsertCreatesTheCollection) {
  auto txn = engine_->begin_transaction();
  txn->engine().insert_one("db", "fresh", make_document("_id", 1).view());
  txn->engine().insert_one("db", "fresh", make_document("_id", 2).view());
  EXPECT_EQ(count(*engine_, "fresh"), 0);
  txn->commit();
  EXPECT_EQ(count(*engine_, "fresh"), 2);

  auto aborted = engine_->begin_transaction();
  aborted->engine().create_collection("db", "other", bson::Document().view());
  aborted->engine().insert_one("db", "other", make_document("_id", 1).view());
  aborted->abort();
  // Documented: the collection stays, empty.
  EXPECT_EQ(count(*engine_, "other"), 0);
}

TEST_P(TransactionTest, ACursorReadsTheTransactionsSnapshotBatchByBatch) {
  for (int i = 0; i < 50; ++i) {
    engine_->insert_one("db", "c", make_document("_id", i, "x", int64_t{0}).view());
  }
  auto txn = engine_->begin_transaction();
  for (int i = 50; i < 100; ++i) {
    txn->engine().insert_one("db", "c", make_document("_id", i, "x", int64_t{0}).view());
  }
  FindOptions options;
  options.batch_size = 7;
  auto cursor = txn->engine().find("db", "c", bson::Document().view(), options);
  size_t seen = cursor->next_batch().size();
  engine_->insert_one("db", "c", make_document("_id", 1000, "x", int64_t{0}).view());
  while (!cursor->exhausted()) seen += cursor->next_batch().size();
  EXPECT_EQ(seen, 100u) << "own writes in, a later outside insert out";

  auto late = txn->engine().find("db", "c", bson::Document().view(), options);
  late->next_batch();
  txn->commit();
  EXPECT_EQ(code_of([&] { late->next_batch(); }), 251);
}

TEST_P(TransactionTest, AnAggregationSeesTheTransactionsWrites) {
  auto txn = engine_->begin_transaction();
  for (int i = 0; i < 5; ++i) {
    txn->engine().insert_one("db", "c", make_document("_id", i, "x", int64_t{i}).view());
  }
  std::vector<bson::Document> pipeline = {make_document(
      "$group", make_document("_id", bson::Null{}, "sum", make_document("$sum", "$x")))};
  auto out = txn->engine().aggregate("db", "c", pipeline, {})->to_vector();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get("sum").as_int64(), 10);
  txn->abort();
}

TEST_P(TransactionTest, AnOldTransactionIsAbortedAndReleasesItsWrites) {
  engine_->insert_one("db", "c", make_document("_id", 1, "x", int64_t{0}).view());
  TransactionOptions options;
  options.lifetime_limit = std::chrono::milliseconds(100);
  auto txn = engine_->begin_transaction(options);
  txn->engine().update_one("db", "c", make_document("_id", 1).view(),
                           make_document("$set", make_document("x", int64_t{7})).view(), {});
  // The reaper aborts it without any further call on it (poll, bounded generously).
  for (int i = 0; i < 3000 && txn->state() == TransactionState::kActive; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(txn->state(), TransactionState::kAborted);
  // A writer outside is not blocked by it any more.
  engine_->update_one("db", "c", make_document("_id", 1).view(),
                      make_document("$set", make_document("x", int64_t{1})).view(), {});
  EXPECT_EQ(field(*engine_, 1), 1);
  std::vector<std::string> labels;
  EXPECT_EQ(code_of([&] { count(txn->engine()); }, &labels), 251);
  EXPECT_EQ(labels, std::vector<std::string>{"TransientTransactionError"});
}

TEST_P(TransactionTest, AnEngineReleasedBeforeItsTransactionStaysUsable) {
  auto txn = engine_->begin_transaction();
  txn->engine().insert_one("db", "c", make_document("_id", 1).view());
  engine_.reset();
  EXPECT_EQ(count(txn->engine()), 1);
  txn->commit();
}

// Eight threads move money between ten accounts in transactions, retrying transient
// failures as drivers' withTransaction does; a reader sums the balances in snapshots. The
// total never changes. Bounded: MONGOSTORE_BANK_SECONDS (default 2).
TEST_P(TransactionTest, MoneyMovedByRacingTransactionsIsNeverCreatedOrLost) {
  constexpr int kAccounts = 10;
  constexpr int64_t kStart = 1000;
  for (int i = 0; i < kAccounts; ++i) {
    engine_->insert_one("db", "c", make_document("_id", i, "x", kStart).view());
  }
  const char* env = std::getenv("MONGOSTORE_BANK_SECONDS");
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int>(1000 * (env ? std::atof(env) : 2)));
  std::atomic<int64_t> committed{0}, retried{0}, bad_sums{0}, sums{0};
  auto transfer = [&](int seed) {
    uint32_t state = static_cast<uint32_t>(seed) * 2654435761u + 1;
    auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 16) % kAccounts; };
    while (std::chrono::steady_clock::now() < until) {
      int from = static_cast<int>(next()), to = static_cast<int>(next());
      if (from == to) continue;
      int64_t amount = static_cast<int64_t>(next()) + 1;
      for (;;) {
        auto txn = engine_->begin_transaction();
        try {
          txn->engine().update_one("db", "c", make_document("_id", from).view(),
                                   make_document("$inc", make_document("x", -amount)).view(), {});
          txn->engine().update_one("db", "c", make_document("_id", to).view(),
                                   make_document("$inc", make_document("x", amount)).view(), {});
          txn->commit();
          ++committed;
          break;
        } catch (const Error& e) {
          if (!e.has_label(kTransientTransactionError)) throw;
          ++retried;
        }
      }
    }
  };
  auto audit = [&] {
    while (std::chrono::steady_clock::now() < until) {
      auto txn = engine_->begin_transaction();
      int64_t total = 0;
      for (const auto& d :
           txn->engine().find("db", "c", bson::Document().view(), {})->to_vector()) {
        total += d.get("x").as_int64();
      }
      txn->commit();
      ++sums;
      if (total != kAccounts * kStart) ++bad_sums;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(transfer, t);
  threads.emplace_back(audit);
  for (auto& t : threads) t.join();
  int64_t total = 0;
  for (const auto& d : engine_->find("db", "c", bson::Document().view(), {})->to_vector()) {
    total += d.get("x").as_int64();
  }
  std::printf("bank: %lld transfers committed, %lld retried, %lld snapshot sums\n",
              static_cast<long long>(committed.load()), static_cast<long long>(retried.load()),
              static_cast<long long>(sums.load()));
  EXPECT_GT(committed.load(), 0);
  EXPECT_GT(sums.load(), 0);
  EXPECT_EQ(bad_sums.load(), 0);
  EXPECT_EQ(total, kAccounts * kStart);
}

INSTANTIATE_TEST_SUITE_P(Durabilities, TransactionTest,
                         ::testing::Values(Durability::kInMemory, Durability::kDurable),
                         [](const auto& info) {
                           return info.param == Durability::kInMemory ? "Memory" : "Durable";
                         });

}  // namespace
}  // namespace mongostore::engine
