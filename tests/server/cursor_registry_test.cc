// CursorRegistry: ids, a getMore's check-out (one at a time, within its namespace),
// killCursors, the memory cap and idle expiry, without a server around it.
#include "server/cursor_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/error.h"

namespace mongostore::server {
namespace {

// An engine cursor that never ends and says it holds `bytes`.
class FakeCursor : public engine::Cursor {
 public:
  explicit FakeCursor(size_t bytes) : bytes_(bytes) {}
  std::vector<bson::Document> next_batch() override { return {}; }
  bool exhausted() const override { return false; }
  size_t memory_bytes() const override { return bytes_; }

 private:
  size_t bytes_;
};

OpenCursor open_on(std::string ns, size_t bytes = 0) {
  OpenCursor open;
  open.cursor = std::make_unique<FakeCursor>(bytes);
  open.ns = std::move(ns);
  return open;
}

int32_t code_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

// Returns once the steady clock has moved on, so the next cursor kept is strictly more
// recently used than the last (least-recently-used order without waiting on a timer).
void next_clock_tick() {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() == start) {
  }
}

CursorRegistry unlimited(std::vector<std::string>* log = nullptr) {
  return CursorRegistry(std::chrono::minutes(10), size_t{1} << 40, [log](const std::string& line) {
    if (log) log->push_back(line);
  });
}

TEST(CursorRegistry, KeepGivesDistinctPositiveIds) {
  CursorRegistry cursors = unlimited();
  int64_t a = cursors.keep(open_on("db.c"));
  int64_t b = cursors.keep(open_on("db.c"));
  EXPECT_GT(a, 0);
  EXPECT_GT(b, 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(cursors.size(), 2u);
}

TEST(CursorRegistry, CheckOutTakesTheCursorUntilKeptAgainUnderItsId) {
  CursorRegistry cursors = unlimited();
  int64_t id = cursors.keep(open_on("db.c"));
  OpenCursor open = cursors.check_out(id, "db.c");
  EXPECT_EQ(open.ns, "db.c");
  EXPECT_EQ(cursors.size(), 0u);
  // In use: a second getMore on the same id finds nothing.
  EXPECT_EQ(code_of([&] { cursors.check_out(id, "db.c"); }), 43);
  EXPECT_EQ(cursors.keep(std::move(open), id), id);
  EXPECT_EQ(cursors.check_out(id, "db.c").ns, "db.c");
}

TEST(CursorRegistry, CheckOutFromAnotherNamespaceIsUnauthorizedAndLeavesTheCursor) {
  CursorRegistry cursors = unlimited();
  int64_t id = cursors.keep(open_on("db.c"));
  try {
    cursors.check_out(id, "db.other");
    FAIL() << "checked out from another namespace";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 13);
    EXPECT_STREQ(e.what(),
                 "Requested getMore on namespace 'db.other', but cursor belongs to 'db.c'");
  }
  EXPECT_EQ(cursors.size(), 1u);
  EXPECT_EQ(cursors.check_out(id, "db.c").ns, "db.c");
}

TEST(CursorRegistry, UnknownIdIsCursorNotFound) {
  CursorRegistry cursors = unlimited();
  try {
    cursors.check_out(12345, "db.c");
    FAIL() << "checked out a cursor never opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 43);
    EXPECT_STREQ(e.what(), "cursor id 12345 not found");
  }
}

TEST(CursorRegistry, KillClosesOnce) {
  CursorRegistry cursors = unlimited();
  int64_t id = cursors.keep(open_on("db.c"));
  EXPECT_TRUE(cursors.kill(id));
  EXPECT_FALSE(cursors.kill(id));
  EXPECT_EQ(cursors.size(), 0u);
  EXPECT_EQ(code_of([&] { cursors.check_out(id, "db.c"); }), 43);
}

TEST(CursorRegistry, PastTheMemoryLimitTheLeastRecentlyUsedCloseButNeverTheOneJustKept) {
  std::vector<std::string> log;
  CursorRegistry cursors(std::chrono::minutes(10), 250,
                         [&](const std::string& line) { log.push_back(line); });
  int64_t first = cursors.keep(open_on("db.a", 100));
  next_clock_tick();
  int64_t second = cursors.keep(open_on("db.b", 100));
  next_clock_tick();
  EXPECT_EQ(cursors.size(), 2u);
  int64_t third = cursors.keep(open_on("db.c", 100));  // 300 > 250: the oldest goes
  EXPECT_EQ(cursors.size(), 2u);
  EXPECT_EQ(code_of([&] { cursors.check_out(first, "db.a"); }), 43);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "cursor " + std::to_string(first) +
                        " on db.a closed: open cursors hold more than 250 bytes");
  // One cursor alone above the limit stays: it is the one just kept.
  int64_t huge = cursors.keep(open_on("db.d", 1000));
  EXPECT_EQ(cursors.size(), 1u);
  EXPECT_EQ(cursors.check_out(huge, "db.d").ns, "db.d");
  EXPECT_EQ(code_of([&] { cursors.check_out(second, "db.b"); }), 43);
  EXPECT_EQ(code_of([&] { cursors.check_out(third, "db.c"); }), 43);
}

TEST(CursorRegistry, IdleCursorsExpireUnlessNoCursorTimeout) {
  // A negative timeout makes every kept cursor idle too long at the next look, whatever the
  // clock says: the expiry rule is tested without waiting.
  std::vector<std::string> log;
  CursorRegistry cursors(std::chrono::milliseconds(-1), size_t{1} << 40,
                         [&](const std::string& line) { log.push_back(line); });
  int64_t idle = cursors.keep(open_on("db.a"));
  OpenCursor pinned = open_on("db.b");
  pinned.no_timeout = true;
  int64_t kept = cursors.keep(std::move(pinned));  // expires `idle` first
  EXPECT_EQ(cursors.size(), 1u);
  EXPECT_EQ(code_of([&] { cursors.check_out(idle, "db.a"); }), 43);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "cursor " + std::to_string(idle) + " on db.a timed out after -1 ms idle");
  EXPECT_EQ(cursors.check_out(kept, "db.b").ns, "db.b");
}

}  // namespace
}  // namespace mongostore::server
