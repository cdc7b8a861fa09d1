#include "server/network_commands.h"

#include <string_view>

#include "mongostore/server/wire_protocol.h"

namespace mongostore::server {

bool runs_on_network_thread(std::span<const uint8_t> message) {
  if (message.size() < kHeaderSize) return false;
  const int32_t op_code = read_int32(message.data() + 12);
  if (op_code == kOpQuery) return true;
  if (op_code != kOpMsg) return false;
  // flagBits (4), then the first section: kind 0 is the body document (int32 size, then the
  // first element: type byte, name as a C string). A body that comes after a document
  // sequence is not looked for: such a request is a write, run on the workers.
  size_t at = kHeaderSize + 4;
  if (message.size() < at + 1 + 4 + 1 || message[at] != 0) return false;
  at += 1 + 4 + 1;
  std::string_view rest(reinterpret_cast<const char*>(message.data() + at), message.size() - at);
  size_t end = rest.find('\0');
  if (end == std::string_view::npos) return false;
  std::string_view name = rest.substr(0, end);
  return name == "hello" || name == "isMaster" || name == "ismaster" || name == "ping" ||
         name == "buildInfo" || name == "buildinfo";
}

}  // namespace mongostore::server
