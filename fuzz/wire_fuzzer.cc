// Fuzzes the decoding of a request as the server does it (Server's `handle`): the header's
// length check, OP_COMPRESSED unwrapped (snappy, zlib, zstd), then OP_MSG or OP_QUERY parsed
// into a command document. The input is one whole message.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mongostore/error.h"
#include "mongostore/server/server.h"
#include "mongostore/server/wire_protocol.h"
#include "server/message_compression.h"

using namespace mongostore;
using namespace mongostore::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderSize) return 0;  // the server reads the header before anything else
  // The server reads exactly message_length bytes; a fuzzed length that disagrees with the
  // input is set right so the decoders see what the server would have read.
  std::vector<uint8_t> message(data, data + size);
  write_int32_at(message.data(), static_cast<int32_t>(size));
  if (size > static_cast<size_t>(kMaxMessageSize)) return 0;
  try {
    if (parse_header(message.data()).op_code == kOpCompressed) {
      Compressor used = Compressor::kNoop;
      message = decompress_message(message, kMaxMessageSize, &used);
      if (parse_header(message.data()).message_length != static_cast<int32_t>(message.size())) {
        __builtin_trap();  // the decompressed message's header must describe it
      }
    }
    Request request = parse_request(message);
    (void)request.command.to_json();
    // A reply to it encodes (the server answers every request it parsed).
    (void)encode_op_msg(1, request.header.request_id, request.command);
  } catch (const Error&) {
  }
  return 0;
}
