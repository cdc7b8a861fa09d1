// IndexTable::scan_ranges over a table of plain keys, against a reference over the sorted
// key set: every plan shape (forward, reverse, bounded, unbounded, empty and inverted
// ranges, a prefix-free point) visits the same keys in the same order, and a walk stopped
// after every k entries and resumed from its position (IndexScanPosition, as the next batch
// does) visits them once each; a range that follows the one before it is read on from where
// that walk ended. The scan reads each entry's key once for both its range check
// and the position it records; this pins that it still stops and resumes where it did.
#include <gtest/gtest.h>
#include <wiredtiger.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/storage/index_table.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

constexpr const char* kTable = "table:keys";

KeyRange range(std::string start, std::string end) {
  return KeyRange{start, end, false};
}
KeyRange from(std::string start) {
  return KeyRange{start, "", true};
}

class ScanRangesResume : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(wiredtiger_open(dir_.path().c_str(), nullptr, "create,in_memory=true", &conn_), 0);
    ASSERT_EQ(conn_->open_session(conn_, nullptr, "isolation=snapshot", &s_), 0);
    ASSERT_EQ(s_->create(s_, kTable, "key_format=u,value_format=u"), 0);
    CursorHandle c(s_, kTable);
    for (const std::string& key : keys_) {
      WT_ITEM k = item_of(key.data(), key.size());
      WT_ITEM v = item_of(key.data(), key.size());
      c->set_key(c.get(), &k);
      c->set_value(c.get(), &v);
      ASSERT_EQ(c->insert(c.get()), 0);
    }
  }
  void TearDown() override {
    if (conn_ != nullptr) conn_->close(conn_, nullptr);
  }

  // What the plan should visit: each range's keys in scan order, ranges in scan order.
  std::vector<std::string> reference(const IndexPlan& plan) const {
    std::vector<std::string> out;
    const size_t n = plan.ranges.size();
    for (size_t step = 0; step < n; ++step) {
      const KeyRange& r = plan.ranges[plan.reverse ? n - 1 - step : step];
      std::vector<std::string> in;
      for (const std::string& k : keys_) {
        if (k >= r.start && (r.end_unbounded || k < r.end)) in.push_back(k);
      }
      if (plan.reverse) std::reverse(in.begin(), in.end());
      out.insert(out.end(), in.begin(), in.end());
    }
    return out;
  }

  // Scans the plan `stop_every` entries at a time (0: in one go), each part with a fresh
  // cursor as a batch in its own snapshot would.
  std::vector<std::string> scan(const IndexPlan& plan, size_t stop_every, bool prefix_free) {
    std::vector<std::string> out;
    IndexScanPosition pos;
    for (int parts = 0; parts < 1000; ++parts) {
      CursorHandle c(s_, kTable);
      size_t in_part = 0;
      bool stopped = false;
      IndexTable::scan_ranges(
          s_, c.get(), plan, pos,
          [&](WT_CURSOR* cursor) {
            WT_ITEM v{};
            cursor->get_value(cursor, &v);
            out.emplace_back(static_cast<const char*>(v.data), v.size);
            if (stop_every != 0 && ++in_part == stop_every) {
              stopped = true;
              return false;
            }
            return true;
          },
          prefix_free);
      if (!stopped) return out;
    }
    ADD_FAILURE() << "the scan did not end";
    return out;
  }

  void expect_same(const IndexPlan& plan, bool prefix_free = false) {
    const std::vector<std::string> want = reference(plan);
    for (size_t stop_every : {0, 1, 2, 3, 7}) {
      SCOPED_TRACE("stop every " + std::to_string(stop_every));
      EXPECT_EQ(scan(plan, stop_every, prefix_free), want);
    }
  }

  testing::TempDir dir_;
  WT_CONNECTION* conn_ = nullptr;
  WT_SESSION* s_ = nullptr;
  const std::vector<std::string> keys_ = {"a", "ab", "abc", "b", "ba", "c", "d", "da", "e"};
};

TEST_F(ScanRangesResume, EachPlanShapeMatchesTheReference) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    IndexPlan plan;
    plan.reverse = reverse;
    plan.ranges = {range("a", "b"), range("ba", "d"), from("da")};
    expect_same(plan);
    plan.ranges = {from("0")};
    expect_same(plan);
    plan.ranges = {range("0", "z")};
    expect_same(plan);
    plan.ranges = {range("ab", "ab"), range("c", "b"), range("c", "ca"), range("x", "y")};
    expect_same(plan);
    plan.ranges = {range("0", "a"), range("abc", "abd"), range("e", "f")};
    expect_same(plan);
  }
}

TEST_F(ScanRangesResume, ARangeAfterAnotherStartsWhereTheWalkBeforeItEnded) {
  // A forward walk that ends at a key at or past its range's end goes on from that key when
  // the next range holds it, without a search. Every way the next range can lie: touching
  // the last one, beyond a gap the key after the last one is in, beyond a gap it is not in,
  // after the end of the table, and out of order (not a planner's shape).
  IndexPlan plan;
  for (const std::vector<KeyRange>& ranges : std::vector<std::vector<KeyRange>>{
           {range("a", "ab"), range("ab", "b"), range("b", "c"), from("c")},
           {range("a", "aa"), range("aaa", "abc"), range("abd", "b"), range("b", "bb")},
           {range("a", "ab"), range("c", "d"), range("d", "e")},
           {range("da", "e"), range("e", "f"), range("f", "g"), range("x", "z"), from("z")},
           {range("0", "1"), range("1", "2"), range("a", "ab")},
           {range("c", "d"), range("a", "b"), range("b", "ba"), range("ba", "c")},
           {range("b", "b"), range("a", "b"), range("ab", "ab"), range("b", "c")},
       }) {
    plan.ranges = ranges;
    SCOPED_TRACE(::testing::PrintToString(reference(plan)));
    expect_same(plan);
  }
  // With prefix-free points between walks: a point read by an exact search leaves the
  // cursor where the range after it must search again.
  plan.ranges = {range("a", "ab"), range("bb", "bc"), range("c", "d"), range("e", "f"), from("f")};
  expect_same(plan, /*prefix_free=*/true);
}

TEST_F(ScanRangesResume, PrefixFreePointsMatchTheReference) {
  // Points of keys present ("c", "e") and absent ("bb"), each the range of the keys starting
  // with it; "c" and "e" start no other key, as in a prefix-free table.
  IndexPlan plan;
  plan.ranges = {range("bb", "bc"), range("c", "d"), range("e", "f")};
  expect_same(plan, /*prefix_free=*/true);
}

}  // namespace
}  // namespace mongostore::engine
