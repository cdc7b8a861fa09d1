// all_of / any_of (mongostore/records/query.h): a chain of conditions as one balanced tree of
// `&` or `|`, with its parts in order, and the neutral condition for none.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mongostore/records/query.h"

namespace mongostore::records {
namespace {

// The leaves of a tree of `kind` nodes, left to right, and its depth.
void leaves(const CondNode& n, CondNode::Kind kind, std::vector<const CondNode*>& out, int depth,
            int* deepest) {
  *deepest = std::max(*deepest, depth);
  if (n.kind != kind) {
    out.push_back(&n);
    return;
  }
  ASSERT_EQ(n.children.size(), 2u);
  for (const auto& c : n.children) leaves(*c, kind, out, depth + 1, deepest);
}

std::vector<Condition> unknowns(size_t n) {
  std::vector<Condition> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(~always_unknown());
  return parts;
}

TEST(ConditionCombine, NoneIsTheNeutralCondition) {
  EXPECT_EQ(all_of({}).node().kind, CondNode::Kind::kTrue);
  EXPECT_EQ(any_of({}).node().kind, CondNode::Kind::kFalse);
}

TEST(ConditionCombine, OneIsItself) {
  Condition only = ~always_unknown();
  EXPECT_EQ(all_of({only}).ptr(), only.ptr());
  EXPECT_EQ(any_of({only}).ptr(), only.ptr());
}

TEST(ConditionCombine, AChainIsOneBalancedTreeWithItsPartsInOrder) {
  for (size_t n : {2u, 3u, 7u, 1000u}) {
    std::vector<Condition> parts = unknowns(n);
    for (bool conjunction : {true, false}) {
      Condition tree = conjunction ? all_of(parts) : any_of(parts);
      std::vector<const CondNode*> found;
      int depth = 0;
      leaves(tree.node(), conjunction ? CondNode::Kind::kAnd : CondNode::Kind::kOr, found, 0,
             &depth);
      ASSERT_EQ(found.size(), n);
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(found[i], parts[i].ptr().get()) << i;
      int log2_ceil = 0;
      while ((size_t{1} << log2_ceil) < n) ++log2_ceil;
      EXPECT_EQ(depth, log2_ceil) << n;
    }
  }
}

}  // namespace
}  // namespace mongostore::records
