// RecordValidator: the `$jsonSchema` validators of the store's collections (reference §1.4),
// so that a document of the wrong shape is refused by the server whoever writes it.
//
// Record collections: the top-level keys and their types (`additionalProperties: false`),
// and under `f` one bsonType per column, the non-optional columns required, every query column
// of an encoded or fixed-array field depending on its `_exact` column, and child arrays whose
// elements hold exactly their columns. Dispatch collections: `{_id: string, record: <one of
// the family's records>, sid: int}`. The shapes are httk's; `alt_id` and `alt_kind` (seed 003's
// alternatives axis, which httk-store 8a19cd3 lacks) are allowed, not required, so documents
// that system wrote still validate.
#pragma once

#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/records/schema.h"

namespace mongostore::records {

/// `{$jsonSchema: {...}}` for the collection of `schema`.
bson::Document record_validator(const RecordSchema& schema, bool store_timestamps);

/// `{$jsonSchema: {...}}` for a dispatch collection of a family with these record names.
bson::Document dispatch_validator(const std::vector<std::string>& record_names);

}  // namespace mongostore::records
