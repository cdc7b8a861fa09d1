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

// The ASCII pass reads eight bytes at a time, then the tail one by one: a non-ASCII byte is
// seen at every offset of every length around those boundaries.
TEST(Utf8, SeesANonAsciiByteAtEveryOffset) {
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      std::string s(len, 'x');
      s[at] = '\x80';
      EXPECT_FALSE(is_valid_utf8(s)) << len << " bytes, 0x80 at " << at;
      s[at] = '\x7F';
      EXPECT_TRUE(is_valid_utf8(s)) << len << " bytes, 0x7F at " << at;
      if (at + 1 < len) {
        s[at] = '\xC3';
        s[at + 1] = '\xA9';
        EXPECT_TRUE(is_valid_utf8(s)) << len << " bytes, U+00E9 at " << at;
      }
    }
  }
}

}  // namespace
}  // namespace mongostore::exec
