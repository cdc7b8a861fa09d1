// Runs an aggregation pipeline on the engine, through its public operations only.
#pragma once

#include <string>

#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

/// See Engine::aggregate. The pipeline reads the collection through a find (with the leading
/// $match, if any, as its filter), $lookup reads other collections through finds, $out
/// replaces its target with Engine::replace_collection_documents (atomic) and $merge
/// applies each document with find + replace/insert.
/// Spilling stages (allow_disk_use) put their files in `spill_directory`.
std::unique_ptr<Cursor> run_aggregate(Engine& engine, std::string_view db, std::string_view coll,
                                      const std::vector<bson::Document>& pipeline,
                                      const AggregateOptions& options,
                                      const std::string& spill_directory);

/// A find cursor seen as a pipeline input: its documents one at a time, batch after batch.
std::unique_ptr<DocumentSource> cursor_source(std::unique_ptr<Cursor> cursor);

}  // namespace mongostore::engine
