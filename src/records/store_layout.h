// StoreLayout: the metadata that pins a store's shape (reference §1.3, §8).
//
// `_httk_store_metadata` holds `{_id: "layout"}` with exactly: protocol "2", the entry
// declaration (canonical JSON of the families), entry_schemas (canonical JSON of the schema
// fingerprints of every family record and its reference closure), document_layout
// "mongo-v2", generation 0 and the store_timestamps marker. Opening compares what is stored
// with what the process declares and explains every difference in a diff, so a changed record
// type can never silently read or write documents of the old shape.
//
// Record types that are not part of a family are fingerprinted too, the first time a process
// prepares them, in a document of our own (`{_id: "mongostore/schemas"}`): httk checks only
// the family closure, and keeping the layout document byte-equal to httk's keeps the two
// systems able to open each other's stores.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/records/record_store.h"
#include "records/canonical_json.h"

namespace mongostore::records {

inline constexpr const char* kMetadataCollection = "_httk_store_metadata";
inline constexpr const char* kCountersCollection = "_httk_counters";
inline constexpr const char* kLayoutId = "layout";
inline constexpr const char* kExtraSchemasId = "mongostore/schemas";

/// The fingerprint of one record type's table: what its documents look like and what its
/// identity is made of (reference §8's shape).
CanonicalJson table_fingerprint(const RecordSchema& schema);

/// Every schema reachable from `roots` through references and child records, by table name;
/// SchemaError when two different types claim one table.
std::map<std::string, std::shared_ptr<const RecordSchema>> reference_closure(
    const std::vector<std::shared_ptr<const RecordSchema>>& roots);

/// `entry_schemas`: {"tables":{<table>: fingerprint}} of the families' closure.
std::string entry_schemas_json(const std::vector<EntryFamily>& families);
std::string entry_schemas_json(
    const std::map<std::string, std::shared_ptr<const RecordSchema>>& tables);
/// `entry_declaration`: {"families":[...],"format":2}, families sorted by name.
std::string entry_declaration_json(const std::vector<EntryFamily>& families);
/// "v1:<resolution>" or "off".
std::string timestamps_marker(const RecordStoreOptions& options);

/// The layout document a first open writes (`families` as declared).
bson::Document layout_document(const RecordStoreOptions& options,
                               const std::vector<EntryFamily>& families);

/// Compares a stored layout document with the declared one. Returns the diff (empty when they
/// agree) as JSON text; sets *additive when the only differences are new tables or additive
/// field changes in `entry_schemas` (reference §8's upgrade rule).
std::string layout_diff(bson::DocumentView stored, const RecordStoreOptions& options,
                        const std::vector<EntryFamily>& families, bool* additive);
/// The diff of one table's stored fingerprint against the declared one ("" when equal), as
/// {"schema": {<table>: {"expected", "actual"}}}; sets *additive as layout_diff does.
std::string table_diff(const std::string& table, const std::string& stored,
                       const std::string& declared, bool* additive);

/// True when `actual` (a table's new fingerprint) only adds nullable IdentitySkip, non-child
/// fields to `expected` (the stored one) with everything else equal.
bool additive_change(const std::string& expected, const std::string& actual);

}  // namespace mongostore::records
