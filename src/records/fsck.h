// The fsck run behind RecordStore::fsck (the steps are documented in the public
// include/mongostore/records/fsck.h).
#pragma once

#include <memory>
#include <vector>

#include "mongostore/records/fsck.h"
#include "records/store_context.h"

namespace mongostore::records {

/// Runs fsck on `store` (the caller holds its write mutex). `prepared` are the record types
/// this process saved (attributed like the families' records).
FsckSummary run_fsck(StoreContext& store,
                     const std::vector<std::shared_ptr<const RecordSchema>>& prepared,
                     const FsckOptions& options);

}  // namespace mongostore::records
