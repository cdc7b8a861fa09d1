// The content id of a record: SHA-256 of httk's canonical identity JSON (reference §2).
//
// canonical_form() writes exactly the bytes httk-core's `canonical_form` produces (format
// version 2; json.dumps with ensure_ascii, sort_keys and separators "," ":"):
//   {["extras":[[key,node],…],]"fields":[[name,node],…],"identity_name":…,"type":"record",
//    "version":2}
// with every value node type-tagged, keys sorted, everything outside space…'~' escaped as
// lowercase \uXXXX (surrogate pairs above the BMP) except \" \\ \n \r \t \b \f, floats as
// Python's float.hex text, and nested records as {"content_id":…,"type":"record_ref"}.
// content_id() is the lowercase hex SHA-256 of those bytes. Both write straight into one
// growing buffer (no JSON document in between): this runs on every save.
//
// `extras` are save-time contributions folded into the ROOT record only, under "extras"
// (sorted by key; nested records never see them); empty extras give the same bytes as none.
//
// Errors: mongostore::Error BadValue (2) when `record` is not a record node, when extras
// repeat a key or a key is not valid UTF-8, or when nodes nest deeper than kMaxIdentityDepth.
// Thread safety: pure functions of their arguments; safe from any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mongostore/records/identity_node.h"

namespace mongostore::records {

/// How deeply value nodes may nest (records, containers); deeper trees are refused rather
/// than exhausting the stack.
inline constexpr int kMaxIdentityDepth = 256;

/// The canonical JSON of a record node (with root-only extras).
std::string canonical_form(const IdentityNode& record,
                           std::span<const IdentityNode::Entry> extras = {});
/// Appends canonical_form(record, extras) to `out`.
void append_canonical_form(std::string& out, const IdentityNode& record,
                           std::span<const IdentityNode::Entry> extras = {});

/// 64 lowercase hex digits: SHA-256 of canonical_form(record, extras).
std::string content_id(const IdentityNode& record,
                       std::span<const IdentityNode::Entry> extras = {});

/// The canonical JSON of one value node as it appears inside a record (a record node becomes
/// its record_ref). For tests and diagnostics.
std::string canonical_value(const IdentityNode& value);

/// Python's float.hex text of a finite double: "0x1.8000000000000p+0", "-0x0.0p+0",
/// "0x0.0000000000001p-1022" (BadValue for NaN and infinities).
std::string float_hex(double value);

/// Appends `utf8` as a JSON string literal escaped as json.dumps(ensure_ascii=True) does.
/// The text must be valid UTF-8 (BadValue otherwise).
void append_json_string(std::string& out, std::string_view utf8);

/// Lowercase hex SHA-256 of `bytes` (OpenSSL).
std::string sha256_hex(std::string_view bytes);

}  // namespace mongostore::records
