#include "records/sid_allocator.h"

#include <algorithm>

#include "mongostore/bson/builder.h"

namespace mongostore::records {

int64_t SidAllocator::next(const std::string& collection) {
  std::lock_guard lock(mu_);
  Block& block = blocks_[collection];
  if (block.next == block.end) {
    client::FindAndModifyOptions options;
    options.upsert = true;
    options.return_document = client::ReturnDocument::kAfter;
    std::optional<bson::Document> doc = counters_.find_one_and_update(
        bson::make_document("_id", collection),
        bson::make_document("$inc", bson::make_document("next", block.size)), options);
    int64_t last = 0;
    if (!doc || !doc->get("next").number_as_exact_int64(&last) || last < block.size) {
      throw Error(ErrorCode::kInternalError, "the sid counter of '" + collection +
                                                 "' in _httk_counters is not a positive integer");
    }
    block.next = last - block.size + 1;
    block.end = last + 1;
    block.size = std::min(block.size * 2, kMaxBlock);
  }
  return block.next++;
}

}  // namespace mongostore::records
