// The wire format of MongoDB messages
// (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/): the 16-byte header,
// OP_MSG (2013) with its body and document-sequence sections, and the legacy OP_QUERY (2004) /
// OP_REPLY (1) pair that drivers still use for the first hello.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::server {

inline constexpr int32_t kOpReply = 1;
inline constexpr int32_t kOpQuery = 2004;
inline constexpr int32_t kOpMsg = 2013;
inline constexpr size_t kHeaderSize = 16;

/// OP_MSG flagBits.
inline constexpr uint32_t kChecksumPresent = 1u << 0;
inline constexpr uint32_t kMoreToCome = 1u << 1;
inline constexpr uint32_t kExhaustAllowed = 1u << 16;

struct MessageHeader {
  int32_t message_length = 0;
  int32_t request_id = 0;
  int32_t response_to = 0;
  int32_t op_code = 0;
};

/// The wire format's integers are little-endian int32s.
int32_t read_int32(const uint8_t* bytes);
void write_int32_at(uint8_t* bytes, int32_t value);

/// Decodes the 16 header bytes (little-endian).
MessageHeader parse_header(const uint8_t* bytes);

/// A request, decoded. For OP_MSG, `command` is the body with each document sequence merged
/// in as an array field named by its identifier. For OP_QUERY, it is the query document
/// (unwrapped from `$query`) and `full_collection_name` the target ("admin.$cmd").
struct Request {
  MessageHeader header;
  uint32_t flag_bits = 0;
  bson::Document command;
  std::string full_collection_name;
};

/// Parses a whole message (header included). Throws Error(InvalidBSON / FailedToParse) naming
/// the problem when it is malformed; the caller then closes the connection. A document nested
/// deeper than bson::kMaxBsonDepth throws Overflow (15) without any recursion; the caller
/// answers it with that error.
Request parse_request(std::span<const uint8_t> message);

/// An OP_MSG reply (flagBits 0, no checksum) with one body section.
std::vector<uint8_t> encode_op_msg(int32_t request_id, int32_t response_to,
                                   const bson::Document& body);
/// An OP_REPLY with one document.
std::vector<uint8_t> encode_op_reply(int32_t request_id, int32_t response_to,
                                     const bson::Document& document);

}  // namespace mongostore::server
