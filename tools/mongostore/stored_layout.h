// StoredLayout: a RecordStore's shape read from the store itself, without the C++ record types
// that wrote it, for the `records` commands.
//
// `_httk_store_metadata` holds the layout document (families, the families' schema
// fingerprints, the timestamp marker, the generation) and `{_id: "mongostore/schemas"}` (the
// fingerprints of every other record type a mongostore process prepared). A fingerprint
// describes every stored field (role, codec, shape, optionality, identity, columns, index
// flags, reference targets), which is exactly what a RecordSchema holds, so the schemas are
// rebuilt from them: enough to decode documents, to reopen the store with its families, and to
// give fsck the types it needs for attribution.
//
// What the layout does not say: which collection backs a family's record (the layout names
// records, the fingerprints name collections). A family record is bound to the collection of
// the same name, or else to the one whose identity name is the record's name; a family that
// fits neither is refused by family_bindings() with a message naming it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "mongostore/records/record_store.h"

namespace mongostore::tool {

struct StoredFamily {
  std::string name, definition_id;
  struct Record {
    std::string name, definition_id;
  };
  std::vector<Record> records;
};

struct StoredLayout {
  std::string database;
  std::string protocol, document_layout, timestamps_marker;
  int64_t generation = 0;
  std::vector<StoredFamily> families;
  /// Every fingerprinted table (collection) -> its fingerprint JSON text.
  std::map<std::string, std::string> fingerprints;
  /// The tables whose fingerprint is in the layout (the families' reference closure).
  std::vector<std::string> family_tables;
  /// The schemas rebuilt from the fingerprints, by table.
  std::map<std::string, std::shared_ptr<const records::RecordSchema>> schemas;
  /// Owns what the schemas' reference targets are looked up in (they hold it weakly): keep
  /// the StoredLayout alive while a store opened with its schemas is used.
  std::shared_ptr<const void> schema_map;

  /// The schema of `table`; Error(BadValue) naming the known tables when there is none.
  std::shared_ptr<const records::RecordSchema> schema(const std::string& table) const;
  /// The families bound to their schemas, for RecordStore::open. Error(BadValue) when a
  /// family record cannot be bound (see above).
  std::vector<records::EntryFamily> family_bindings() const;
  /// Options that reopen the store as it was written (families, timestamp marker).
  records::RecordStoreOptions store_options() const;
};

/// Reads the layout of the RecordStore in `db`. Error(NamespaceNotFound) when the database
/// holds no RecordStore layout; Error(BadValue) when a fingerprint uses a codec this tool does
/// not know (e.g. httk's surds) or is unreadable.
StoredLayout read_stored_layout(const client::Database& db);

}  // namespace mongostore::tool
