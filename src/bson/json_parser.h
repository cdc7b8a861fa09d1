// The plain-JSON fast path of Document::from_json.
//
// libbson's reader (bson_json_data_reader_new) allocates and zeroes its buffers on every call,
// ~16,000 instructions before it reads a byte; the execution store parses two small plain-JSON
// documents per event per sweep with it. parse_plain_json reads the common subset of JSON
// straight into a DocumentBuilder and declines everything else, so that the caller can fall
// back to libbson: what it returns is byte for byte what libbson returns for the same text, and
// what it declines is answered by libbson, errors included. Behaviour can therefore only match.
//
// Accepted (RFC 8259 JSON, top level an object):
//   - objects, arrays (keys "0", "1", ...), duplicate keys kept in order as libbson keeps them;
//   - true, false, null;
//   - integer literals: int32 when they fit, else int64 (libbson's rule; "-0" is int32 0, as
//     libbson's tokenizer drops the sign of a lone zero);
//   - numbers with a fraction or exponent: double, correctly rounded (std::from_chars, as
//     glibc's strtod, which libbson uses, is), "-0.0" keeping its sign;
//   - strings with every JSON escape, \uXXXX included, surrogate pairs joined;
//   - the four JSON whitespace bytes between tokens.
// Declined (libbson answers): any key beginning with '$' (extended JSON), a key holding NUL,
// integers beyond int64 (libbson wraps or refuses them), doubles that overflow or underflow,
// lone surrogates, invalid UTF-8 (and the overlong NUL libbson tolerates in values), raw
// control bytes in strings, nesting deeper than kMaxPlainJsonDepth, input of kMaxPlainJsonBytes
// or more, anything not strictly JSON (leading zeros, trailing commas, NaN, comments, ...),
// empty input and anything after the document.
//
// Iterative: the nesting depth is checked before each level is opened, so no input recurses.
// Thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::bson {

/// Containers (the top-level object included) the fast path opens before declining. libbson's
/// reader accepts 98; kept below it so that everything declined for depth still reaches
/// libbson's own limit and message.
inline constexpr size_t kMaxPlainJsonDepth = 90;

/// Input size from which the fast path declines: the BSON written (at most ~7.5 bytes per input
/// byte, for arrays of one-digit numbers) then stays inside int32 lengths (under ~1.9 GB).
inline constexpr size_t kMaxPlainJsonBytes = size_t{256} << 20;

/// The document `json` denotes, or nullopt when `json` is not plain JSON this parser is sure
/// libbson reads the same way (see above): the caller then asks libbson. Never throws
/// mongostore::Error (only std::bad_alloc).
std::optional<Document> parse_plain_json(std::string_view json);

/// The general reader the fast path falls back to: libbson's extended JSON reader, exactly one
/// document (defined in document.cc). Throws Error(FailedToParse) with libbson's message.
Document parse_extended_json(std::string_view json);

}  // namespace mongostore::bson
