// The ClientSession contract (mongostore/client/client_session.h) on every backend: embedded
// in memory, embedded durable, and remote through `mongostore serve` (a one-node replica
// set). Transactions commit all-or-nothing and are invisible before commit, abort leaves
// nothing, a conflict carries TransientTransactionError, with_transaction retries exactly
// what drivers retry, a session used out of order fails as documented, and racing
// transfers between accounts never change the total.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/backend.h"

namespace mongostore::testing {
namespace {

using bson::make_document;

class SessionContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    client_->database("bank").collection("accounts").drop();
  }
  client::Collection accounts(client::Client& c) {
    return c.database("bank").collection("accounts");
  }
  int64_t balance(client::Client& c, int id) {
    auto d = accounts(c).find_one(make_document("_id", id));
    return d ? d->get("x").as_int64() : -1;
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
  static bool has(const std::vector<std::string>& labels, std::string_view label) {
    return std::find(labels.begin(), labels.end(), label) != labels.end();
  }

  BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
};

TEST_P(SessionContract, ATransactionIsInvisibleUntilCommitThenWhole) {
  auto session = client_->start_session();
  session->start_transaction();
  EXPECT_TRUE(session->in_transaction());
  accounts(session->client()).insert_one(make_document("_id", 1, "x", int64_t{10}));
  accounts(session->client()).insert_one(make_document("_id", 2, "x", int64_t{20}));
  EXPECT_EQ(accounts(session->client()).count_documents(bson::Document()), 2);
  EXPECT_EQ(accounts(*client_).count_documents(bson::Document()), 0);
  session->commit_transaction();
  EXPECT_FALSE(session->in_transaction());
  EXPECT_EQ(accounts(*client_).count_documents(bson::Document()), 2);
  session->commit_transaction();  // a retried commit succeeds
  // Outside a transaction the session's operations apply at once.
  accounts(session->client()).insert_one(make_document("_id", 3, "x", int64_t{0}));
  EXPECT_EQ(accounts(*client_).count_documents(bson::Document()), 3);
}

TEST_P(SessionContract, AbortLeavesNothing) {
  accounts(*client_).insert_one(make_document("_id", 1, "x", int64_t{10}));
  auto session = client_->start_session();
  session->start_transaction();
  accounts(session->client()).insert_one(make_document("_id", 2, "x", int64_t{20}));
  accounts(session->client())
      .update_one(make_document("_id", 1), make_document("$inc", make_document("x", int64_t{5})));
  session->abort_transaction();
  EXPECT_EQ(accounts(*client_).count_documents(bson::Document()), 1);
  EXPECT_EQ(balance(*client_, 1), 10);
  EXPECT_EQ(code_of([&] { session->abort_transaction(); }), 0) << "aborting twice is a no-op";
}

TEST_P(SessionContract, TheSecondWriterConflictsWithATransientLabel) {
  accounts(*client_).insert_one(make_document("_id", 1, "x", int64_t{0}));
  auto first = client_->start_session(), second = client_->start_session();
  auto inc = make_document("$inc", make_document("x", int64_t{1}));
  first->start_transaction();
  second->start_transaction();
  accounts(first->client()).update_one(make_document("_id", 1), inc.view());
  std::vector<std::string> labels;
  EXPECT_EQ(
      code_of([&] { accounts(second->client()).update_one(make_document("_id", 1), inc.view()); },
              &labels),
      112);
  EXPECT_TRUE(has(labels, kTransientTransactionError));
  second->abort_transaction();
  first->commit_transaction();
  EXPECT_EQ(balance(*client_, 1), 1);
}

TEST_P(SessionContract, WithTransactionRetriesATransientFailure) {
  accounts(*client_).insert_one(make_document("_id", 1, "x", int64_t{0}));
  auto holder = client_->start_session(), session = client_->start_session();
  auto inc = make_document("$inc", make_document("x", int64_t{1}));
  holder->start_transaction();
  accounts(holder->client()).update_one(make_document("_id", 1), inc.view());
  int attempts = 0;
  session->with_transaction([&](client::ClientSession& s) {
    ++attempts;
    try {
      accounts(s.client()).update_one(make_document("_id", 1), inc.view());
    } catch (const Error&) {
      if (attempts == 1) holder->commit_transaction();  // the retry will find it committed
      throw;
    }
  });
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(balance(*client_, 1), 2);
}

TEST_P(SessionContract, WithTransactionStopsAtAnErrorThatIsNotTransient) {
  accounts(*client_).insert_one(make_document("_id", 1, "x", int64_t{0}));
  auto session = client_->start_session();
  int attempts = 0;
  EXPECT_EQ(code_of([&] {
              session->with_transaction([&](client::ClientSession& s) {
                ++attempts;
                accounts(s.client()).insert_one(make_document("_id", 2, "x", int64_t{0}));
                accounts(s.client()).insert_one(make_document("_id", 1, "x", int64_t{0}));
              });
            }),
            11000);
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(session->in_transaction());
  EXPECT_EQ(accounts(*client_).count_documents(bson::Document()), 1);
}

TEST_P(SessionContract, ASessionUsedOutOfOrderFailsAsDocumented) {
  auto session = client_->start_session();
  EXPECT_EQ(code_of([&] { session->commit_transaction(); }), 251);
  EXPECT_EQ(code_of([&] { session->abort_transaction(); }), 251);
  session->start_transaction();
  EXPECT_EQ(code_of([&] { session->start_transaction(); }), 263);
  accounts(session->client()).insert_one(make_document("_id", 1, "x", int64_t{0}));
  session->commit_transaction();
  EXPECT_EQ(code_of([&] { session->abort_transaction(); }), 256);
}

// Racing transfers in with_transaction, one session per thread; a snapshot reader checks the
// total. Bounded: MONGOSTORE_BANK_SECONDS (default 1).
TEST_P(SessionContract, RacingTransfersNeverChangeTheTotal) {
  constexpr int kAccounts = 10;
  constexpr int64_t kStart = 1000;
  for (int i = 0; i < kAccounts; ++i) {
    accounts(*client_).insert_one(make_document("_id", i, "x", kStart));
  }
  const char* env = std::getenv("MONGOSTORE_BANK_SECONDS");
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int>(1000 * (env ? std::atof(env) : 1)));
  std::atomic<int64_t> transfers{0}, sums{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto session = client_->start_session();
      uint32_t state = static_cast<uint32_t>(t) * 2654435761u + 7;
      auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 16) % kAccounts; };
      while (std::chrono::steady_clock::now() < until) {
        int from = static_cast<int>(next()), to = static_cast<int>(next());
        if (from == to) continue;
        int64_t amount = static_cast<int64_t>(next()) + 1;
        session->with_transaction([&](client::ClientSession& s) {
          accounts(s.client())
              .update_one(make_document("_id", from),
                          make_document("$inc", make_document("x", -amount)));
          accounts(s.client())
              .update_one(make_document("_id", to),
                          make_document("$inc", make_document("x", amount)));
        });
        ++transfers;
      }
    });
  }
  threads.emplace_back([&] {
    auto session = client_->start_session();
    while (std::chrono::steady_clock::now() < until) {
      int64_t total = 0;
      session->with_transaction([&](client::ClientSession& s) {
        total = 0;
        for (const auto& d : accounts(s.client()).find(bson::Document())->to_vector()) {
          total += d.get("x").as_int64();
        }
      });
      ++sums;
      if (total != kAccounts * kStart) ++bad;
    }
  });
  for (auto& t : threads) t.join();
  int64_t total = 0;
  for (int i = 0; i < kAccounts; ++i) total += balance(*client_, i);
  EXPECT_GT(transfers.load(), 0);
  EXPECT_GT(sums.load(), 0);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(total, kAccounts * kStart);
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionContract, all_backends(), backend_test_name);

}  // namespace
}  // namespace mongostore::testing
