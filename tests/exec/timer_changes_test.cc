// net_timer_changes (src/exec/timer_path.h): the net effect of a commit's timer ops, netted
// by a linear search for a few paths and through a hash table past them. Both must give the
// same answer: the last op of each path, in the order of each path's first op. And the
// encoding of a path's dots in its key, undone by decode_timer_path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/timer_path.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

TEST(TimerChanges, OneTimerIsItsField) {
  std::vector<TimerChange> changes = net_timer_changes({TimerOp::schedule("Fork.A", 12.5)});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].field,
            "timers.Fork\xEF\xBC\x8E"
            "A");
  EXPECT_EQ(changes[0].key(),
            "Fork\xEF\xBC\x8E"
            "A");
  ASSERT_TRUE(changes[0].fire_at.has_value());
  EXPECT_EQ(*changes[0].fire_at, 12.5);
}

TEST(TimerChanges, LastOpPerPathInFirstOpOrder) {
  std::vector<TimerChange> changes =
      net_timer_changes({TimerOp::schedule("X", 1), TimerOp::cancel("Y"), TimerOp::schedule("Y", 2),
                         TimerOp::cancel("X")});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].key(), "X");
  EXPECT_FALSE(changes[0].fire_at.has_value());
  EXPECT_EQ(changes[1].key(), "Y");
  EXPECT_EQ(changes[1].fire_at, 2.0);
}

// Many distinct paths cross from the linear search to the hash table mid-batch: repeats of
// paths seen before and after the switch must still land on their first entry.
TEST(TimerChanges, ManyPathsNetLikeFew) {
  constexpr int kPaths = 40;
  std::vector<TimerOp> ops;
  for (int i = 0; i < kPaths; ++i) ops.push_back(TimerOp::schedule("P" + std::to_string(i), i));
  for (int i = kPaths - 1; i >= 0; i -= 3) ops.push_back(TimerOp::cancel("P" + std::to_string(i)));
  for (int i = 0; i < kPaths; i += 5)
    ops.push_back(TimerOp::schedule("P" + std::to_string(i), 1000 + i));
  std::vector<TimerChange> changes = net_timer_changes(ops);
  ASSERT_EQ(changes.size(), static_cast<size_t>(kPaths));
  for (int i = 0; i < kPaths; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(changes[i].key(), "P" + std::to_string(i));
    if (i % 5 == 0) {
      EXPECT_EQ(changes[i].fire_at, 1000.0 + i);
    } else if ((kPaths - 1 - i) % 3 == 0) {
      EXPECT_FALSE(changes[i].fire_at.has_value());
    } else {
      EXPECT_EQ(changes[i].fire_at, static_cast<double>(i));
    }
  }
}

TEST(TimerChanges, EveryPathIsChecked) {
  std::vector<TimerOp> ops;
  for (int i = 0; i < 20; ++i) ops.push_back(TimerOp::schedule("P" + std::to_string(i), i));
  ops.push_back(TimerOp::cancel("$bad"));
  try {
    net_timer_changes(ops);
    FAIL() << "a $-path was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kBadValue));
  }
}

TEST(TimerChanges, DecodingAKeyGivesBackItsPath) {
  // Dots anywhere, several and adjacent: each run between them is copied whole.
  for (std::string_view path : {"A", "Fork.A", "Checkout.Payment.Retry", "a..b", ".a.", ".",
                                "\xC3\xA9t\xC3\xA9.\xE2\x82\xAC", "a.very.long.path.beyond.sso"}) {
    EXPECT_EQ(decode_timer_path(encode_timer_path(path)), path);
  }
  EXPECT_EQ(decode_timer_path(""), "");
  EXPECT_EQ(decode_timer_path("x\xEF\xBC\x8E\xEF\xBC\x8Ey"), "x..y");
  // An incomplete encoded dot is kept as it is.
  EXPECT_EQ(decode_timer_path("x\xEF\xBC"), "x\xEF\xBC");
}

}  // namespace
}  // namespace mongostore::exec
