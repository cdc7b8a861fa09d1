// RecordIdentity: the content id of a DynamicRecord, as httk computes it (reference §2).
//
// A record's identity node holds its identity_name and every field that is part of the
// identity (not Skip, not IdentitySkip), sorted by name; a referenced or child record enters
// as {"content_id": <its digest>, "type": "record_ref"} (a Merkle tree, independent of sids).
// One RecordIdentity memoises the digests of the records it has seen, so a graph's shared
// records are hashed once per save.
#pragma once

#include <span>
#include <string>
#include <unordered_map>

#include "mongostore/records/identity_node.h"
#include "mongostore/records/schema.h"
#include "mongostore/records/value.h"

namespace mongostore::records {

class RecordIdentity {
 public:
  /// 64 lowercase hex digits. SchemaError for a value that has no identity (a non-finite
  /// float) or a non-optional field given None.
  const std::string& content_id(const DynamicRecord& record);
  /// The content id with save-time `extras` folded into the root (not memoised): an
  /// alternative's identity carries its group's main and its kind, so it never equals its
  /// main's.
  std::string content_id(const DynamicRecord& record, std::span<const IdentityNode::Entry> extras);
  /// The identity node of one field value (records as their record_ref).
  IdentityNode node(const FieldType& type, const Value& value);
  /// The record's own identity node (fields sorted by name, identity fields only).
  IdentityNode record_node(const DynamicRecord& record);

 private:
  std::unordered_map<const DynamicRecord*, std::string> memo_;
};

}  // namespace mongostore::records
