// The checks MongoDB applies to a document before storing it.
#pragma once

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// Validates `_id` (not an array, regex or undefined; no '$'-prefixed names inside) and the
/// size limit. Throws Error with MongoDB's code.
void validate_id_value(const bson::Value& id);
void validate_document_size(size_t size, const char* what);

/// Returns `document` ready to store: `_id` first (generated when absent). Validates size,
/// nesting depth (Overflow, 15) and `_id`.
bson::Document prepare_for_insert(bson::DocumentView document);

/// Names must follow MongoDB's namespace rules; throws InvalidNamespace (73).
void validate_database_name(std::string_view db);
void validate_collection_name(std::string_view coll);

}  // namespace mongostore::engine
