// Timer keys encode '.' as U+FF0E (exec/timer_path.h): encode_timer_path and the commit's
// `timers.<key>` field (net_timer_changes), which append the runs between dots whole, against
// a byte-at-a-time reference, dots leading, trailing and doubled included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/timer_path.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

std::string reference(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '.') {
      out += kEncodedDot;
    } else {
      out += c;
    }
  }
  return out;
}

TEST(TimerPathEncoding, RunsBetweenDotsMatchTheByteAtATimeEncoding) {
  for (std::string_view path : {"a", "Checkout.Payment", ".a", "a.", "a..b", "...", ".", "x.y.z.w",
                                "Caf\xC3\xA9.\xE2\x82\xAC", "long-region-name-without-dots"}) {
    EXPECT_EQ(encode_timer_path(path), reference(path)) << path;
    std::vector<TimerChange> changes = net_timer_changes({TimerOp::schedule(std::string(path), 1)});
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].field, "timers." + reference(path)) << path;
    EXPECT_EQ(decode_timer_path(changes[0].key()), path);
  }
}

}  // namespace
}  // namespace mongostore::exec
