// RecordKeySet with keys of mixed lengths: its flat keys' room is made for keys the length
// of the first (when that one is short), and keys shorter, longer, or a prefix of one another
// are each new once, whatever the first key's length.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/storage/record_key_set.h"

namespace mongostore::engine {
namespace {

TEST(RecordKeySetLengths, KeysOfMixedLengthsAreEachNewOnce) {
  for (size_t first : {size_t{0}, size_t{1}, size_t{12}, RecordKeySet::kReservedKeyBytes,
                       RecordKeySet::kReservedKeyBytes + 1, size_t{5000}}) {
    std::vector<std::string> keys = {std::string(first, 'k')};
    for (size_t n : {size_t{3}, size_t{13}, size_t{14}, size_t{100}, size_t{2}, size_t{70}}) {
      keys.push_back(std::string(n, 'k'));  // a prefix of, or extending, the others
      keys.push_back(std::string(n, 'k') + std::string(1, '\0'));
      keys.push_back("id" + std::to_string(n) + std::string(n, 'x'));
    }
    RecordKeySet seen;
    size_t added = 0;
    for (const std::string& k : keys) {
      const bool is_new = seen.insert(k);
      bool before = false;
      for (size_t i = 0; i < added; ++i) before = before || keys[i] == k;
      EXPECT_EQ(is_new, !before) << first << " " << k.size();
      ++added;
    }
    for (const std::string& k : keys) EXPECT_FALSE(seen.insert(k)) << first;
  }
}

}  // namespace
}  // namespace mongostore::engine
