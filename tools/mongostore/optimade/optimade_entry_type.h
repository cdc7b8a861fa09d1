// OptimadeEntryType: one entry type of `mongostore optimade`, a RecordStore entry family served
// as OPTIMADE entries, described from the store's own schema (no C++ record types).
//
// An entry is one record of the family's record collection that is not an alternative (the
// listing hides alternatives, as `records ls` does); every version of a lineage is an entry of
// its own. Its OPTIMADE `id` is "<type>-<sid>" (the form the filter translation gives related
// records' ids), `immutable_id` its content id, `last_modified` its store timestamp (RFC 3339,
// UTC). Its attributes are the record's own keys `<prefix>sid`, `<prefix>logical_id`,
// `<prefix>store_timestamp` and one `<prefix>custom_<field>` per stored field, typed as the
// filter translation types them (optimade_filter_searcher.h): int -> integer, float and
// rational -> float (the stored nearest double), str -> string, bool -> boolean, datetime ->
// timestamp, date -> string, a reference -> integer (the referenced sid), a list -> list (a
// list of records: their sids), a matrix -> list of rows of floats, bytes -> string (base64).
// An optional field that is None is null.
//
// Thread safety: immutable after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/records/schema.h"

namespace mongostore::tool::optimade {

class OptimadeEntryType {
 public:
  /// `name` is the entry type (the family's name), `table` the record collection behind it,
  /// `prefix` the database-specific property prefix ("_httk_"), `timestamp_resolution` the
  /// store's nanoseconds per store_timestamp unit.
  OptimadeEntryType(std::string name, std::string table,
                    std::shared_ptr<const records::RecordSchema> schema, std::string prefix,
                    int64_t timestamp_resolution);

  const std::string& name() const { return name_; }
  const std::string& table() const { return table_; }
  const std::shared_ptr<const records::RecordSchema>& schema() const { return schema_; }

  /// Every property an entry has, in output order (id and type first).
  const std::vector<std::string>& property_names() const { return property_names_; }
  bool has_property(const std::string& name) const;

  /// The `properties` dictionary of /info/<type>: description, type, sortable (false: the
  /// endpoint does not sort) per property.
  bson::Document properties_info() const;

  /// The entry's id for `sid`, and the sid an id names (0 when `id` is not one of ours).
  std::string id_of(int64_t sid) const;
  int64_t sid_of(const std::string& id) const;

  /// The resource object {type, id, attributes} of the stored document `stored` (as read from
  /// the record collection), with only the attributes in `fields` (all when empty).
  bson::Document resource(bson::DocumentView stored, const std::vector<std::string>& fields) const;

 private:
  std::string name_, table_;
  std::shared_ptr<const records::RecordSchema> schema_;
  std::string prefix_;
  int64_t timestamp_resolution_;
  std::vector<std::string> property_names_;
};

/// `ns` nanoseconds since the epoch as RFC 3339 UTC ("2026-12-05T08:34:11.123456789Z", the
/// fraction only as long as needed).
std::string rfc3339(int64_t ns);

}  // namespace mongostore::tool::optimade
