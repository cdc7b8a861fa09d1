#include "exec/list_cursor.h"

#include <cstdint>

#include "exec/utf8.h"
#include "mongostore/error.h"

namespace mongostore::exec {
namespace {

constexpr std::string_view kTag = "x1";
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

[[noreturn]] void bad_cursor(std::string_view cursor) {
  throw Error(ErrorCode::kBadValue,
              "list_executions: '" + std::string(cursor.substr(0, 64)) +
                  "' is not a cursor returned by list_executions (pass next_cursor as is)");
}

}  // namespace

std::string encode_list_cursor(std::string_view last_id) {
  std::string out(kTag);
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : last_id) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  return out;
}

std::string decode_list_cursor(std::string_view cursor) {
  if (!cursor.starts_with(kTag)) bad_cursor(cursor);
  std::string_view body = cursor.substr(kTag.size());
  if (body.size() % 4 == 1) bad_cursor(cursor);  // no byte count encodes to 4k+1 sextets
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : body) {
    int v = sextet(c);
    if (v < 0) bad_cursor(cursor);
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  // Leftover bits must be the zero padding encode wrote: anything else was not made here.
  if ((bits & ((1u << count) - 1)) != 0) bad_cursor(cursor);
  if (!is_valid_utf8(out) || out.find('\0') != std::string::npos) bad_cursor(cursor);
  return out;
}

}  // namespace mongostore::exec
