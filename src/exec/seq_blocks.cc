#include "exec/seq_blocks.h"

#include <algorithm>
#include <vector>

#include "mongostore/client/client.h"

namespace mongostore::exec {

std::shared_ptr<SeqBlocks> SeqBlocks::for_client(const std::shared_ptr<client::Client>& client,
                                                 std::string_view database) {
  struct Entry {
    std::weak_ptr<client::Client> client;
    std::string database;
    std::weak_ptr<SeqBlocks> blocks;
  };
  static std::mutex mutex;
  static std::vector<Entry> entries;
  std::lock_guard lock(mutex);
  // Entries of gone clients or stores are dropped here, so the registry stays as small as
  // the live stores (a Client address may be reused after the old one is gone).
  std::erase_if(entries, [](const Entry& e) { return e.client.expired() || e.blocks.expired(); });
  for (const Entry& e : entries) {
    if (e.database == database && e.client.lock() == client) {
      if (std::shared_ptr<SeqBlocks> blocks = e.blocks.lock()) return blocks;
    }
  }
  auto blocks = std::make_shared<SeqBlocks>();
  entries.push_back({client, std::string(database), blocks});
  return blocks;
}

int64_t SeqBlocks::next(const std::string& name, int64_t count, const Reserve& reserve) {
  std::lock_guard lock(mutex_);
  Block& block = blocks_[name];
  if (block.end - block.next < count) {
    // Under the lock: the seqs of one counter go out in reservation order.
    const int64_t size = std::max(count, kSeqBlock);
    const int64_t first = reserve(name, size);
    block = Block{first, first + size};
  }
  const int64_t first = block.next;
  block.next += count;
  return first;
}

}  // namespace mongostore::exec
