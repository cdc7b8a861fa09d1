// NamespaceLess orders a "db.coll" string against (db, coll) parts exactly as std::string's
// operator< orders it against the built "db.coll": these compare the two over names that
// share prefixes, end at the dot, or hold bytes before and after '.' and above 0x7f.
#include "engine/catalog/namespace_less.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/catalog/collection_entry.h"

namespace mongostore::engine {
namespace {

TEST(NamespaceLess, PartsOrderAsTheBuiltNamespace) {
  const std::vector<std::string> pieces = {"",  "a",  "ab", "a.b", "a-", "a/",       "a.",
                                           "b", "aa", ".",  "-",   "/",  "\xc3\xa9", "a\x7f"};
  NamespaceLess less;
  size_t checked = 0;
  for (const std::string& ns : pieces) {
    for (const std::string& prefix : pieces) {
      for (const std::string& db : pieces) {
        for (const std::string& coll : pieces) {
          const std::string key = prefix + ns;
          const std::string built = ns_of(db, coll);
          const NamespaceParts parts{db, coll};
          ASSERT_EQ(less(key, parts), key < built) << key << " vs " << built;
          ASSERT_EQ(less(parts, key), built < key) << built << " vs " << key;
          ASSERT_EQ(NamespaceLess::compare(key, parts) == 0, key == built);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace mongostore::engine
