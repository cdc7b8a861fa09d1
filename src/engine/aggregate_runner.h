// Runs an aggregation pipeline on the engine, through its public operations only.
#pragma once

#include "mongostore/engine/engine.h"

namespace mongostore::engine {

/// See Engine::aggregate. The pipeline reads the collection through a find (with the leading
/// $match, if any, as its filter), $lookup reads other collections through finds, $out
/// replaces its target with Engine::replace_collection_documents (atomic) and $merge
/// applies each document with find + replace/insert.
std::unique_ptr<Cursor> run_aggregate(Engine& engine, std::string_view db, std::string_view coll,
                                      const std::vector<bson::Document>& pipeline,
                                      const AggregateOptions& options);

}  // namespace mongostore::engine
