// The `cursor` part of a reply ({cursor: {firstBatch | nextBatch, id, ns}}), shared by find,
// aggregate, getMore and the listing commands (listCollections, listIndexes): takes a batch
// from an open cursor and keeps the cursor in the CursorRegistry while it may have more.
// A batch stops at its size and past 16 MiB (mongod's), so a reply always fits in
// maxMessageSizeBytes however large the documents are. Errors are the engine cursor's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "server/cursor_registry.h"

namespace mongostore::server {

/// A reply batch stops growing past this many bytes (mongod's 16 MiB).
inline constexpr size_t kMaxBatchBytes = 16 * 1024 * 1024;
/// The first batch of a find or aggregate without a batchSize (mongod's 101).
inline constexpr int64_t kDefaultBatchSize = 101;

/// Moves up to `batch_size` documents (0 or less: whatever the engine's next batch holds) and
/// at most kMaxBatchBytes from the cursor into the returned batch.
std::vector<bson::Document> take_batch(OpenCursor& open, int64_t batch_size);

/// Appends {cursor: {<batch_field>, id, ns}} with up to `batch_size` documents (0: none, as a
/// find with batchSize 0 answers) and keeps the cursor in `cursors` (under `id`, a new id when
/// 0) while it may have more; a single batch or an exhausted cursor answers id 0.
void reply_with_cursor(CursorRegistry& cursors, bson::DocumentBuilder& b, OpenCursor open,
                       int64_t batch_size, bool single_batch, const char* batch_field,
                       int64_t id = 0);

/// The `cursor: {batchSize: n}` of a listing command; 0 (the default) is everything at once.
int64_t listing_batch_size(const bson::DocumentView& cmd);

/// Replies to a listing command with documents already in hand, through a cursor so they
/// page with cursor.batchSize and getMore as mongod's do.
void reply_with_list(CursorRegistry& cursors, bson::DocumentBuilder& b,
                     std::vector<bson::Document> docs, std::string ns, int64_t batch_size,
                     std::vector<std::string> owners);

}  // namespace mongostore::server
