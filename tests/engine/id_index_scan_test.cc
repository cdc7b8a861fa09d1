// id_index_scan (engine/query/document_scan.h) over a record table where many keys were
// deleted between the live ones, as a RecordStore's metadata collection after its writer
// leases were released: an `_id` point is read by one exact search, so the scan never walks
// on over the deleted keys (WiredTiger's cursor steps over each one; in memory they stay until
// their page is reconciled, docs/benchmarks.md). WiredTiger's own count of cursor `next`
// calls says whether a scan walked; the documents read say that it still reads what it must.
#include <gtest/gtest.h>
#include <wiredtiger.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/query/document_scan.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

constexpr const char* kTable = "table:records";

std::string key_of(const std::string& id) {
  return bson::encode_index_key(make_document("_id", id).get("_id"));
}

// The range of the keys that start with `key` (the planner's point of an `_id` equality).
KeyRange point(const std::string& key) {
  KeyRange r;
  r.start = key;
  r.end = key;
  while (static_cast<uint8_t>(r.end.back()) == 0xFF) r.end.pop_back();
  r.end.back() = static_cast<char>(static_cast<uint8_t>(r.end.back()) + 1);
  return r;
}

class IdIndexScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(wiredtiger_open(dir_.path().c_str(), nullptr,
                              "create,in_memory=true,statistics=(fast)", &conn_),
              0);
    ASSERT_EQ(conn_->open_session(conn_, nullptr, "isolation=snapshot", &s_), 0);
    ASSERT_EQ(s_->create(s_, kTable, kRecordTableConfig), 0);
  }
  void TearDown() override {
    if (conn_ != nullptr) conn_->close(conn_, nullptr);
  }

  void put(const std::string& key, const bson::Document& doc) {
    CursorHandle c(s_, kTable);
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(doc.data(), doc.size());
    c->set_key(c.get(), &k);
    c->set_value(c.get(), &v);
    ASSERT_EQ(c->insert(c.get()), 0);
  }
  void remove(const std::string& key) {
    CursorHandle c(s_, kTable);
    WT_ITEM k = item_of(key.data(), key.size());
    c->set_key(c.get(), &k);
    ASSERT_EQ(c->remove(c.get()), 0);
  }
  void put_id(const std::string& id) { put(key_of(id), make_document("_id", id)); }

  // The live documents `layout` and `mongostore/schemas`, and between them `n` released
  // leases: keys inserted, then deleted.
  void metadata_with_released_leases(int n) {
    put_id("layout");
    put_id("mongostore/schemas");
    for (int i = 0; i < n; ++i) {
      std::string id = "lease/" + std::to_string(100000 + i);
      put_id(id);
      remove(key_of(id));
    }
  }

  int64_t cursor_next_calls() {
    CursorHandle stats(s_, "statistics:");
    stats->set_key(stats.get(), WT_STAT_CONN_CURSOR_NEXT);
    EXPECT_EQ(stats->search(stats.get()), 0);
    const char* description = nullptr;
    const char* text = nullptr;
    int64_t value = 0;
    EXPECT_EQ(stats->get_value(stats.get(), &description, &text, &value), 0);
    return value;
  }

  // The `_id`s the scan of `plan` reads (from `*resume` when given), stopping after `stop_after`.
  std::vector<std::string> scan(const IndexPlan& plan, IndexScanPosition* resume = nullptr,
                                size_t stop_after = SIZE_MAX) {
    std::vector<std::string> ids;
    CursorHandle c(s_, kTable);
    Matcher all = Matcher::compile(bson::Document().view());
    ExecutionStats stats;
    auto visit = [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
      ids.emplace_back(doc.get("_id").as_string());
      return ids.size() < stop_after;
    };
    id_index_scan(s_, c.get(), all, plan, visit, &stats, resume);
    return ids;
  }

  testing::TempDir dir_;
  WT_CONNECTION* conn_ = nullptr;
  WT_SESSION* s_ = nullptr;
};

TEST_F(IdIndexScanTest, PointsAreReadWithoutWalkingOverDeletedKeys) {
  metadata_with_released_leases(2000);
  IndexPlan plan;  // {_id: {$in: ["lease/fsck", "layout"]}}: ranges in key order
  plan.ranges = {point(key_of("layout")), point(key_of("lease/fsck"))};
  int64_t before = cursor_next_calls();
  EXPECT_EQ(scan(plan), std::vector<std::string>{"layout"});
  // The old walk called next after `layout` and stepped over the 2,000 deleted leases.
  EXPECT_EQ(cursor_next_calls(), before);

  plan.reverse = true;
  EXPECT_EQ(scan(plan), std::vector<std::string>{"layout"});
}

TEST_F(IdIndexScanTest, AScanStoppedAtAPointResumesAfterIt) {
  metadata_with_released_leases(10);
  IndexPlan plan;
  plan.ranges = {point(key_of("layout")), point(key_of("lease/100003")),
                 point(key_of("mongostore/schemas"))};
  IndexScanPosition pos;
  EXPECT_EQ(scan(plan, &pos, 1), std::vector<std::string>{"layout"});
  EXPECT_EQ(scan(plan, &pos), std::vector<std::string>{"mongostore/schemas"});
  plan.reverse = true;
  IndexScanPosition back;
  EXPECT_EQ(scan(plan, &back, 1), std::vector<std::string>{"mongostore/schemas"});
  EXPECT_EQ(scan(plan, &back), std::vector<std::string>{"layout"});
}

// A range of the keys starting with bytes that are no key (not a planner point) is still
// walked: the exact search misses, and the keys it covers are read.
TEST_F(IdIndexScanTest, APrefixThatIsNoKeyIsStillWalked) {
  put(std::string("ab\x01", 3), make_document("_id", "abc"));
  put(std::string("ab\x02", 3), make_document("_id", "abd"));
  put(std::string("ac", 2), make_document("_id", "ac"));
  IndexPlan plan;
  plan.ranges = {point("ab")};
  EXPECT_EQ(scan(plan), (std::vector<std::string>{"abc", "abd"}));
}

}  // namespace
}  // namespace mongostore::engine
