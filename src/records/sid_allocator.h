// SidAllocator: store-local integer ids from `_httk_counters` (reference §3).
//
// `{_id: <collection>, next: <last issued>}`, advanced with one findAndModify ($inc, upsert,
// return the new value): the first sid is 1, a sid is never issued twice and never reused
// (nothing ever decrements a counter; fsck leaves them alone).
//
// Departure, for speed: a process reserves sids in blocks ($inc by the block size) and hands
// them out from memory. The block starts at 1 and doubles with each reservation of a
// collection, up to kMaxBlock, so a process saving one record burns no extra sid while a bulk
// import reserves once per 64 records instead of once per record (each reservation is a
// durable write). Other writers, httk's included, keep their own $inc and never collide; what
// a process exits without using is a gap, which the reference allows (degraded mode already
// leaves gaps), and sids stay unique and increasing within one process.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "mongostore/client/client.h"

namespace mongostore::records {

class SidAllocator {
 public:
  static constexpr int64_t kMaxBlock = 64;

  explicit SidAllocator(client::Collection counters) : counters_(std::move(counters)) {}
  /// The next sid of `collection`.
  int64_t next(const std::string& collection);

 private:
  struct Block {
    int64_t next = 0, end = 0;  // [next, end) reserved and unused
    int64_t size = 1;           // the next reservation's size
  };
  client::Collection counters_;
  std::mutex mu_;
  std::map<std::string, Block> blocks_;
};

}  // namespace mongostore::records
