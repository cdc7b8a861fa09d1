// SeqBlocks: outbox and spawn seqs handed out in process from blocks of the counters.
//
// Reserving seqs from the counter document on every commit is one engine write more per
// commit, on a document every committer shares. On the embedded engine the stores of the
// process that owns the data are its only writers, so they reserve kSeqBlock seqs at a time
// from the same counter (`{_id: "outbox" | "spawn", n}`, same meaning: n is the highest seq handed
// out or reserved) and hands them out from memory. Seqs stay unique and grow in the order
// they are handed out, exactly as with one reservation per commit, as long as every store of
// the process writing that database shares one SeqBlocks (for_client() does, per Client and
// database). The unused rest of a block is a gap after a restart, as a lost CAS is.
//
// Crash safety is the counter's own argument (ExecutionStore::next_seq): the block is
// reserved by an unjournaled write that precedes, in the same ordered log, every journaled
// commit using one of its seqs.
//
// Thread safety: all members may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace mongostore::client {
class Client;
}

namespace mongostore::exec {

/// Seqs reserved per trip to the counter document.
inline constexpr int64_t kSeqBlock = 1024;

class SeqBlocks {
 public:
  /// Reserves `count` consecutive seqs from counter `name` and returns the first.
  using Reserve = std::function<int64_t(const std::string& name, int64_t count)>;

  /// The blocks every store of this process shares for `database` through `client`.
  static std::shared_ptr<SeqBlocks> for_client(const std::shared_ptr<client::Client>& client,
                                               std::string_view database);

  /// `count` consecutive seqs of counter `name`; returns the first. Takes a new block (at
  /// least `count` long) through `reserve` when the current one has fewer left; errors of
  /// `reserve` propagate and hand out nothing.
  int64_t next(const std::string& name, int64_t count, const Reserve& reserve);

 private:
  struct Block {
    int64_t next = 0;  // the next seq to hand out
    int64_t end = 0;   // one past the block's last seq
  };
  std::mutex mutex_;
  std::map<std::string, Block, std::less<>> blocks_;
};

}  // namespace mongostore::exec
