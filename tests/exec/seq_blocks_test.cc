// SeqBlocks: seqs handed out in process from blocks reserved in the counter.
#include "exec/seq_blocks.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mongostore/client/client.h"

namespace mongostore::exec {
namespace {

// A counter document in memory: `n` is the highest seq reserved.
struct FakeCounter {
  int64_t n = 0;
  int reservations = 0;
  SeqBlocks::Reserve reserve() {
    return [this](const std::string&, int64_t count) {
      ++reservations;
      n += count;
      return n - count + 1;
    };
  }
};

TEST(SeqBlocks, HandsOutABlockInOrderAndReservesOnlyWhenItRunsOut) {
  SeqBlocks blocks;
  FakeCounter counter;
  int64_t last = 0;
  for (int i = 0; i < 341; ++i) {
    EXPECT_EQ(blocks.next("outbox", 3, counter.reserve()), last + 1);
    last += 3;
  }
  EXPECT_EQ(counter.reservations, 1);
  EXPECT_EQ(counter.n, 1024);
  // One seq is left of the first block (1024), not enough for 3: the next block starts at
  // 1025 and 1024 is a gap.
  EXPECT_EQ(blocks.next("outbox", 3, counter.reserve()), 1025);
  EXPECT_EQ(counter.reservations, 2);
  EXPECT_EQ(blocks.next("outbox", 3, counter.reserve()), 1028);
  EXPECT_EQ(counter.reservations, 2);
}

TEST(SeqBlocks, ABatchLargerThanABlockGetsABlockOfItsOwnSize) {
  SeqBlocks blocks;
  FakeCounter counter;
  EXPECT_EQ(blocks.next("spawn", 5000, counter.reserve()), 1);
  EXPECT_EQ(counter.n, 5000);
  EXPECT_EQ(blocks.next("spawn", 1, counter.reserve()), 5001);
}

TEST(SeqBlocks, CountersAreIndependent) {
  SeqBlocks blocks;
  FakeCounter outbox, spawn;
  EXPECT_EQ(blocks.next("outbox", 1, outbox.reserve()), 1);
  EXPECT_EQ(blocks.next("spawn", 1, spawn.reserve()), 1);
  EXPECT_EQ(blocks.next("outbox", 1, outbox.reserve()), 2);
}

TEST(SeqBlocks, AFailedReservationHandsOutNothing) {
  SeqBlocks blocks;
  FakeCounter counter;
  auto failing = [](const std::string&, int64_t) -> int64_t {
    throw std::runtime_error("counter unreachable");
  };
  EXPECT_THROW(blocks.next("outbox", 1, failing), std::runtime_error);
  EXPECT_EQ(blocks.next("outbox", 1, counter.reserve()), 1);
  EXPECT_EQ(counter.reservations, 1);
}

TEST(SeqBlocks, ConcurrentCallersGetDistinctSeqs) {
  SeqBlocks blocks;
  FakeCounter counter;
  std::vector<std::vector<int64_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) got[t].push_back(blocks.next("outbox", 1, counter.reserve()));
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<int64_t> all;
  for (const auto& seqs : got) {
    for (size_t i = 1; i < seqs.size(); ++i) EXPECT_LT(seqs[i - 1], seqs[i]);
    all.insert(seqs.begin(), seqs.end());
  }
  EXPECT_EQ(all.size(), 4000u);
  EXPECT_EQ(*all.rbegin(), 4000);  // no gap without a restart or a batch that did not fit
}

TEST(SeqBlocks, OneInstancePerClientAndDatabase) {
  auto a = client::connect("embedded:memory");
  auto b = client::connect("embedded:memory");
  std::shared_ptr<SeqBlocks> a1 = SeqBlocks::for_client(a, "harel");
  EXPECT_EQ(SeqBlocks::for_client(a, "harel"), a1);
  EXPECT_NE(SeqBlocks::for_client(a, "other"), a1);
  EXPECT_NE(SeqBlocks::for_client(b, "harel"), a1);
}

}  // namespace
}  // namespace mongostore::exec
