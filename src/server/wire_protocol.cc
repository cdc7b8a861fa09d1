#include "mongostore/server/wire_protocol.h"

#include <cstring>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/crc32c.h"

namespace mongostore::server {

int32_t read_int32(const uint8_t* p) {
  uint32_t v = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
               (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
  return static_cast<int32_t>(v);
}

void write_int32_at(uint8_t* p, int32_t value) {
  auto v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

namespace {

void write_int32(std::vector<uint8_t>& out, int32_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

[[noreturn]] void malformed(const std::string& what) {
  throw Error(ErrorCode::kFailedToParse, "malformed message: " + what);
}

// Reads one BSON document at `pos` (bounded by `end`), validating it.
bson::Document read_document(const uint8_t*& pos, const uint8_t* end) {
  if (end - pos < 5) malformed("truncated document");
  int32_t size = read_int32(pos);
  if (size < 5 || size > end - pos) malformed("document length out of bounds");
  bson::Document doc = bson::Document::from_bytes({pos, static_cast<size_t>(size)});
  pos += size;
  return doc;
}

std::string read_cstring(const uint8_t*& pos, const uint8_t* end) {
  const void* nul = std::memchr(pos, 0, static_cast<size_t>(end - pos));
  if (nul == nullptr) malformed("unterminated string");
  std::string s(reinterpret_cast<const char*>(pos), static_cast<const uint8_t*>(nul) - pos);
  pos = static_cast<const uint8_t*>(nul) + 1;
  return s;
}

void finish_header(std::vector<uint8_t>& out) {
  int32_t size = static_cast<int32_t>(out.size());
  std::memcpy(out.data(), &size, 4);  // little-endian hosts only, as mongod itself
}

std::vector<uint8_t> start_message(int32_t request_id, int32_t response_to, int32_t op_code,
                                   size_t body_hint) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + body_hint + 32);
  write_int32(out, 0);
  write_int32(out, request_id);
  write_int32(out, response_to);
  write_int32(out, op_code);
  return out;
}

Request parse_op_msg(Request request, const uint8_t* message_start, const uint8_t* pos,
                     const uint8_t* end) {
  if (end - pos < 4) malformed("OP_MSG without flagBits");
  request.flag_bits = static_cast<uint32_t>(read_int32(pos));
  pos += 4;
  // Bits 0-15 are required: a receiver must reject ones it does not know.
  uint32_t required = request.flag_bits & 0xFFFFu;
  if ((required & ~(kChecksumPresent | kMoreToCome)) != 0) malformed("unknown required flag bits");
  if (request.flag_bits & kChecksumPresent) {
    // The last four bytes are the CRC-32C of everything before them, header included. A
    // mismatch means the bytes were damaged on the way: the message is refused, not guessed at.
    if (end - pos < 4) malformed("checksum flag without checksum");
    end -= 4;
    uint32_t expected = static_cast<uint32_t>(read_int32(end));
    uint32_t actual = crc32c(message_start, static_cast<size_t>(end - message_start));
    if (expected != actual) malformed("OP_MSG checksum mismatch");
  }
  std::optional<bson::Document> body;
  std::vector<std::pair<std::string, std::vector<bson::Document>>> sequences;
  while (pos < end) {
    uint8_t kind = *pos++;
    if (kind == 0) {
      if (body) malformed("two body sections");
      body = read_document(pos, end);
    } else if (kind == 1) {
      if (end - pos < 4) malformed("truncated document sequence");
      int32_t size = read_int32(pos);
      if (size < 4 || size > end - pos) malformed("document sequence length out of bounds");
      const uint8_t* seq_end = pos + size;
      pos += 4;
      std::string identifier = read_cstring(pos, seq_end);
      std::vector<bson::Document> docs;
      while (pos < seq_end) docs.push_back(read_document(pos, seq_end));
      sequences.emplace_back(std::move(identifier), std::move(docs));
    } else {
      malformed("unknown section kind " + std::to_string(kind));
    }
  }
  if (!body) malformed("OP_MSG without a body section");
  if (sequences.empty()) {
    request.command = std::move(*body);
    return request;
  }
  bson::DocumentBuilder b;
  for (const bson::Element& e : *body) {
    for (const auto& [identifier, docs] : sequences) {
      if (identifier == e.key) malformed("field '" + identifier + "' in both body and sequence");
    }
    b.append(e.key, e.value);
  }
  for (const auto& [identifier, docs] : sequences) {
    b.open_array(identifier);
    for (const bson::Document& d : docs) b.push(d.view());
    b.close();
  }
  request.command = b.finish();
  return request;
}

Request parse_op_query(Request request, const uint8_t* pos, const uint8_t* end) {
  if (end - pos < 4) malformed("truncated OP_QUERY");
  pos += 4;  // flags
  request.full_collection_name = read_cstring(pos, end);
  if (end - pos < 8) malformed("truncated OP_QUERY");
  pos += 8;  // numberToSkip, numberToReturn
  bson::Document query = read_document(pos, end);
  if (pos < end) read_document(pos, end);  // returnFieldsSelector, unused
  if (pos != end) malformed("trailing bytes after OP_QUERY");
  bson::Value wrapped = query.get("$query");
  if (wrapped.is_missing()) wrapped = query.get("query");
  if (wrapped.is_document()) {
    request.command = bson::Document::copy_of(wrapped.as_document());
  } else {
    request.command = std::move(query);
  }
  return request;
}

}  // namespace

MessageHeader parse_header(const uint8_t* bytes) {
  return {read_int32(bytes), read_int32(bytes + 4), read_int32(bytes + 8), read_int32(bytes + 12)};
}

Request parse_request(std::span<const uint8_t> message) {
  if (message.size() < kHeaderSize) malformed("shorter than its header");
  Request request;
  request.header = parse_header(message.data());
  if (request.header.message_length != static_cast<int32_t>(message.size())) {
    malformed("length does not match header");
  }
  const uint8_t* pos = message.data() + kHeaderSize;
  const uint8_t* end = message.data() + message.size();
  switch (request.header.op_code) {
    case kOpMsg:
      return parse_op_msg(std::move(request), message.data(), pos, end);
    case kOpQuery:
      return parse_op_query(std::move(request), pos, end);
    default:
      malformed("unsupported opCode " + std::to_string(request.header.op_code));
  }
}

std::vector<uint8_t> encode_op_msg(int32_t request_id, int32_t response_to,
                                   const bson::Document& body) {
  std::vector<uint8_t> out = start_message(request_id, response_to, kOpMsg, body.size());
  write_int32(out, 0);  // flagBits: no checksum, no moreToCome
  out.push_back(0);     // section kind 0: body
  out.insert(out.end(), body.data(), body.data() + body.size());
  finish_header(out);
  return out;
}

std::vector<uint8_t> encode_op_reply(int32_t request_id, int32_t response_to,
                                     const bson::Document& document) {
  std::vector<uint8_t> out = start_message(request_id, response_to, kOpReply, document.size());
  write_int32(out, 0);  // responseFlags
  write_int32(out, 0);  // cursorID (int64)
  write_int32(out, 0);
  write_int32(out, 0);  // startingFrom
  write_int32(out, 1);  // numberReturned
  out.insert(out.end(), document.data(), document.data() + document.size());
  finish_header(out);
  return out;
}

}  // namespace mongostore::server
