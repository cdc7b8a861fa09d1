// OperationRegistry: what currentOp lists and killOp checks. An operation is listed exactly
// while its handle lives, with its command (cut past 1 KB), namespace and kind.
#include "server/operation_registry.h"

#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"

namespace mongostore::server {
namespace {

using bson::make_document;

TEST(OperationRegistry, ListsAnOperationWhileItRuns) {
  OperationRegistry registry;
  bson::Document find = make_document("find", "c", "filter", make_document("a", 1));
  int64_t opid = 0;
  {
    auto op = registry.enter(find.view(), "db", "find", 7, "127.0.0.1:5000");
    opid = op.opid();
    EXPECT_TRUE(registry.running(opid));
    auto described = registry.describe();
    ASSERT_EQ(described.size(), 1u);
    const bson::Document& d = described[0];
    EXPECT_EQ(d.get("opid").as_int64(), opid);
    EXPECT_EQ(d.get("op").as_string(), "query");
    EXPECT_EQ(d.get("ns").as_string(), "db.c");
    EXPECT_EQ(d.get("connectionId").as_int64(), 7);
    EXPECT_EQ(d.get("client").as_string(), "127.0.0.1:5000");
    EXPECT_TRUE(d.get("active").as_bool());
    EXPECT_EQ(bson::Document::copy_of(d.get("command").as_document()), find);
  }
  EXPECT_FALSE(registry.running(opid));
  EXPECT_TRUE(registry.describe().empty());
}

TEST(OperationRegistry, OpidsAreDistinctAndLargeCommandsAreCut) {
  OperationRegistry registry;
  bson::Document insert = make_document(
      "insert", "c", "documents", bson::make_array(make_document("x", std::string(4096, 'x'))));
  auto first = registry.enter(insert.view(), "db", "insert", 1, "a");
  auto second = registry.enter(insert.view(), "db", "insert", 2, "b");
  EXPECT_NE(first.opid(), second.opid());
  auto described = registry.describe();
  ASSERT_EQ(described.size(), 2u);
  bson::DocumentView shown = described[0].get("command").as_document();
  EXPECT_EQ(shown.get("insert").as_string(), "c");
  EXPECT_TRUE(shown.get("$truncated").is_string());
  EXPECT_FALSE(shown.has("documents"));
  EXPECT_EQ(described[0].get("op").as_string(), "insert");
}

}  // namespace
}  // namespace mongostore::server
