// SessionCatalog on its own: sessions made on first use, one command at a time per session,
// ending (now, or when the command holding it returns it), the cleanup running once per
// ended session, expiry of idle sessions, and the bound on their number.
#include "server/sessions/session_catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "mongostore/error.h"

namespace mongostore::server {
namespace {

struct Cleanups {
  std::atomic<int> count{0};
  std::function<void(Session&)> fn() {
    return [this](Session& s) {
      if (!s.cursors.empty()) ++count;  // the catalog empties the state after the cleanup
    };
  }
};

TEST(SessionCatalog, MakesASessionOnFirstUseAndKeepsItsState) {
  SessionCatalog catalog(std::chrono::minutes(30), 10, nullptr);
  {
    auto s = catalog.check_out("a");
    EXPECT_EQ(s->txn_number, -1);
    s->txn_number = 4;
  }
  EXPECT_EQ(catalog.check_out("a")->txn_number, 4);
  EXPECT_EQ(catalog.size(), 1u);
}

TEST(SessionCatalog, EndingCleansAtOnceOrWhenTheHolderReturnsIt) {
  Cleanups cleanups;
  SessionCatalog catalog(std::chrono::minutes(30), 10, cleanups.fn());
  catalog.check_out("idle")->cursors.insert(1);
  catalog.end("idle");
  EXPECT_EQ(cleanups.count, 1);
  {
    auto held = catalog.check_out("busy");
    held->cursors.insert(2);
    catalog.end("busy");
    EXPECT_EQ(cleanups.count, 1);  // still held
    EXPECT_TRUE(held->ended);
  }
  EXPECT_EQ(cleanups.count, 2);
  // The next command naming the lsid gets a new session.
  EXPECT_TRUE(catalog.check_out("busy")->cursors.empty());
  catalog.end("unknown");  // a no-op
}

// Sessions belong to their owner: the same lsid of another user is another session, and
// ending by owner leaves the others' (killSessions without killAnySession).
TEST(SessionCatalog, TheSameLsidOfAnotherOwnerIsAnotherSession) {
  SessionCatalog catalog(std::chrono::minutes(30), 10, nullptr);
  catalog.check_out("x", "ann@shop")->txn_number = 1;
  catalog.check_out("x", "bob@shop")->txn_number = 2;
  catalog.check_out("y", "bob@shop")->txn_number = 3;
  EXPECT_EQ(catalog.size(), 3u);
  EXPECT_EQ(catalog.check_out("x", "ann@shop")->txn_number, 1);
  EXPECT_EQ(catalog.check_out("x", "bob@shop")->txn_number, 2);
  EXPECT_EQ(catalog.check_out("x", "bob@shop")->owner, "bob@shop");

  catalog.end("x", "ann@shop");  // ann ends her own "x" only
  EXPECT_EQ(catalog.size(), 2u);
  EXPECT_EQ(catalog.check_out("x", "bob@shop")->txn_number, 2);
  catalog.end_all_of("ann@shop");  // ann has none left: bob's stay
  EXPECT_EQ(catalog.size(), 2u);
  catalog.end_all_of("bob@shop");
  EXPECT_EQ(catalog.size(), 0u);

  catalog.start("z", "ann@shop");
  catalog.start("z", "bob@shop");
  catalog.start("w", "bob@shop");
  catalog.end_of_any_owner("z");  // killAnySession: every owner's "z"
  EXPECT_EQ(catalog.size(), 1u);
  // An owner whose name spells another (owner, lsid) pair's key is still another session.
  catalog.start("b", "a");
  catalog.start("", "ab");
  EXPECT_EQ(catalog.size(), 3u);
}

TEST(SessionCatalog, ASessionRunsOneCommandAtATime) {
  SessionCatalog catalog(std::chrono::minutes(30), 10, nullptr);
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  auto work = [&] {
    for (int i = 0; i < 200; ++i) {
      auto s = catalog.check_out("shared");
      int now = ++inside;
      most = std::max(most.load(), now);
      ++s->txn_number;
      --inside;
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(most, 1);
  EXPECT_EQ(catalog.check_out("shared")->txn_number, 399);
}

TEST(SessionCatalog, IdleSessionsExpire) {
  Cleanups cleanups;
  SessionCatalog catalog(std::chrono::milliseconds(1), 10, cleanups.fn());
  catalog.check_out("old")->cursors.insert(7);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(catalog.expire_idle(), 1u);
  EXPECT_EQ(cleanups.count, 1);
  EXPECT_EQ(catalog.size(), 0u);
}

TEST(SessionCatalog, TheNumberOfSessionsIsBounded) {
  SessionCatalog catalog(std::chrono::minutes(30), 2, nullptr);
  catalog.start("a");
  catalog.start("b");
  catalog.start("a");  // exists: fine
  try {
    catalog.check_out("c");
    FAIL() << "a third session was made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 261);
    EXPECT_EQ(e.code_name(), "TooManyLogicalSessions");
  }
  catalog.end_all();
  EXPECT_EQ(catalog.size(), 0u);
}

}  // namespace
}  // namespace mongostore::server
