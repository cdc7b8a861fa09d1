// validate_collection: MongoDB's validate command. Walks a collection and each of its
// indexes in one snapshot (a read-only unit of work on `op`) and checks that every index
// holds exactly the keys its documents give. The comparison is by count and by an
// order-independent fingerprint of (entry key, primary key), so it needs no memory per
// document. Thread-safe (reads only).
#pragma once

#include "engine/catalog/collection_entry.h"
#include "engine/operation_context.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

ValidateResult validate_collection(OperationContext& op, const CollectionEntry& entry);

}  // namespace mongostore::engine
