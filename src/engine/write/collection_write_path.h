// The write path of ONE document (MongoDB's collection_write_path): the record and its
// index entries change together, in the caller's unit of work.
//
//   insert_document: the record (the `_id` uniqueness check is the B-tree insert itself)
//                    and an entry per index key;
//   update_document: the new version, after checking it (size, depth, unchanged `_id`), and
//                    only the index entries whose keys differ between the two versions, of
//                    the indexes the update can affect (UpdateIndexData); an index whose
//                    fields are byte-identical is skipped, and one on an array that only
//                    grew gets the added elements' keys alone (IndexKeyDelta);
//   delete_document: the record and the entries of its keys.
// The first array key an index sees marks it multikey: in memory at once (the planner must
// stop trusting tight bounds before the document is visible) and in the durable catalog
// record within the same unit of work.
//
// The caller holds the collection's WriteGate shared, so the index list and the validator
// are stable for the whole unit of work. Errors: DuplicateKeyError (11000),
// NamespaceNotFound (26) when the collection's table is gone, ImmutableField (66),
// BSONObjectTooLarge (10334), DocumentValidationError (121) from validate_write;
// WriteConflictException propagates to write_conflict_retry.
#pragma once

#include <wiredtiger.h>

#include <string>

#include "engine/catalog/collection_entry.h"
#include "engine/catalog/durable_catalog.h"
#include "engine/operation_context.h"
#include "engine/write/update_index_data.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// The collection's validator on the document a write would store (`before`: the document
/// an update replaces, for validationLevel moderate). Nothing with `bypass`.
void validate_write(const CollectionEntry& entry, bson::DocumentView document,
                    const bson::DocumentView* before, bool bypass);

/// Inserts `doc` (whose `_id` is `id`, with record key `key`).
void insert_document(OperationContext& op, DurableCatalog& durable, const CollectionEntry& entry,
                     const std::string& key, bson::DocumentView doc, const bson::Value& id);

/// Replaces `before` (read under `key` in this unit of work) with `after`. The indexes
/// `index_data` says the update cannot affect keep their entries untouched (their keys are
/// not even generated); null: every index is diffed. `record_cursor`: a cursor of the
/// collection's table the caller read `before` with (`before` may be a view of its value:
/// the record is written last, through that cursor, after every use of `before`), or null
/// to open one.
void update_document(OperationContext& op, DurableCatalog& durable, const CollectionEntry& entry,
                     const std::string& key, bson::DocumentView before, bson::DocumentView after,
                     const UpdateIndexData* index_data = nullptr,
                     WT_CURSOR* record_cursor = nullptr);

/// Deletes `doc` (read under `key` in this unit of work).
void delete_document(OperationContext& op, const CollectionEntry& entry, const std::string& key,
                     bson::DocumentView doc);

}  // namespace mongostore::engine
