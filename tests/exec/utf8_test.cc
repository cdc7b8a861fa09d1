// is_valid_utf8 (src/exec/utf8.h): what the store refuses before writing. ASCII takes a fast
// path (issue 29); everything else still goes through the full validation.
#include "exec/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace mongostore::exec {
namespace {

TEST(Utf8, AcceptsAsciiIncludingNulAndWellFormedMultiByte) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii {\"k\": 1}"));
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_TRUE(is_valid_utf8(std::string(1000, 'x') + "\xC3\xA9"));
}

TEST(Utf8, RefusesMalformedBytesAnywhere) {
  EXPECT_FALSE(is_valid_utf8("\x80"));
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));      // truncated
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));  // a UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8(std::string(1000, 'x') + "\xC3"));
  EXPECT_FALSE(is_valid_utf8("\xC3" + std::string(1000, 'x')));
}

}  // namespace
}  // namespace mongostore::exec
