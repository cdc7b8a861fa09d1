// RecordKeySet: each key is new once, before and after the set turns from a flat vector into a
// hash set (past kFlatKeys keys), with keys that share prefixes and hold zero bytes.
#include "engine/storage/record_key_set.h"

#include <gtest/gtest.h>

#include <string>

namespace mongostore::engine {
namespace {

std::string key_of(int i) {
  std::string k("\x10\x00rec", 5);  // a zero byte: keys are bytes, not C strings
  return k + std::to_string(i);
}

TEST(RecordKeySet, EachKeyIsNewOnceOnBothSidesOfTheSwitch) {
  RecordKeySet seen;
  const int n = static_cast<int>(RecordKeySet::kFlatKeys) * 3;
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(seen.insert(key_of(i))) << i;
    // Every key met so far, again: never new.
    for (int j = 0; j <= i; j += 7) EXPECT_FALSE(seen.insert(key_of(j))) << i << " " << j;
    EXPECT_FALSE(seen.insert(key_of(i)));
    EXPECT_EQ(seen.size(), static_cast<size_t>(i + 1));
  }
  EXPECT_TRUE(seen.insert(std::string("\x10", 1)));  // a prefix of every key
  EXPECT_TRUE(seen.insert(""));
  EXPECT_FALSE(seen.insert(""));
}

}  // namespace
}  // namespace mongostore::engine
