// PageToken: the continuation token of a keyset page (reference §9), signed by its store.
//
// A token is base64url (no padding) of the canonical JSON
//   {"a":[<typed anchors>],"d":"forward"|"backward","f":"<fingerprint>","m":"<mac>","s":<sid>,
//    "v":3}
// where the anchors are the order-key values of the row the next page starts after, typed:
//   {"type":"null"} {"type":"bool","value":true} {"type":"int","value":"<decimal>"}
//   {"type":"float","value":"<hex float>"} {"type":"str","value":"…"}
//   {"type":"bytes","value":"<base64url>"} {"type":"datetime","value":"<ISO 8601>"}
//   {"type":"date","value":"YYYY-MM-DD"}
// (datetimes and dates in the canonical text their column stores), the fingerprint is the
// SHA-256 of the query (search_page.cc), so a token is refused by any other query, and the
// mac is the lowercase hex HMAC-SHA256, under the store's page token key, of the same JSON
// without "m": a token nobody but the store made (an anchor edited by hand, a token of another
// store) is refused. httk's tokens ("v":2, unsigned) are refused too. Decoding is strict: the
// text must be exactly what encoding the decoded token gives back (so no two texts name one
// token), within size limits (token <= 12,000 characters, JSON <= 9,000 bytes, strings <= 4,096
// bytes, ints <= 128 digits, sid >= 1), with one anchor per order key of the key's column
// kind (or null). Anything else is PaginationCursorError; decoding never recurses past the
// token's fixed shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::records {

/// The kind of value an order key's column holds (its anchors' type, null aside).
enum class AnchorKind { kInt, kFloat, kString, kBool, kBytes, kDateTime, kDate };

struct PageToken {
  bool forward = true;
  bson::Document anchors;  // {"0": v0, "1": v1, ...}: one value per order key (null allowed)
  int64_t sid = 0;
  std::string fingerprint;
};

/// The token's text, signed with `secret` (the store's page token key); anchors typed by
/// `kinds` (one per anchor). BadValue when an anchor's BSON type has no token type.
std::string encode_page_token(const PageToken& token, const std::vector<AnchorKind>& kinds,
                              std::string_view secret);

/// The token `text` names, checked against the query's fingerprint, the signature under
/// `secret` and the order-key kinds.
PageToken decode_page_token(std::string_view text, std::string_view fingerprint,
                            const std::vector<AnchorKind>& kinds, std::string_view secret);

std::string base64url_encode(std::string_view bytes);
/// Strict: only the URL-safe alphabet, no padding, no stray bits; false otherwise.
bool base64url_decode(std::string_view text, std::string* out);

}  // namespace mongostore::records
