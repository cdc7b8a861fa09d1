// Validation of deeply nested BSON never recurses: any depth is answered, and more than
// kMaxBsonDepth levels is Overflow (15), not a crash. Also the UTF-8 repair error replies use.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/document.h"
#include "mongostore/bson/utf8.h"
#include "mongostore/error.h"
#include "support/error_code.h"
#include "support/nested_bson.h"

namespace mongostore::bson {
namespace {

using testing::code_of;
using testing::nested_bytes;

TEST(NestingDepth, ValidationAcceptsTheLimitAndRefusesOneMore) {
  std::vector<uint8_t> at = nested_bytes({}, {{"a"}}, kMaxBsonDepth);
  std::vector<uint8_t> over = nested_bytes({}, {{"a"}, {"b", true}}, kMaxBsonDepth + 1);
  std::string reason;
  EXPECT_TRUE(validate_bson(at, &reason)) << reason;
  EXPECT_FALSE(validate_bson(over, &reason));
  EXPECT_EQ(code_of([&] { Document::from_bytes(at); }), 0);
  EXPECT_EQ(code_of([&] { Document::from_bytes(over); }), 15);
}

TEST(NestingDepth, HundredsOfThousandsOfLevelsDoNotOverflowTheStack) {
  std::vector<uint8_t> deep = nested_bytes({}, {{"a"}, {"0", true}}, 500000);
  EXPECT_EQ(code_of([&] { Document::from_bytes(deep); }), 15);
  DocumentView view(deep.data(), deep.size());
  EXPECT_TRUE(nesting_exceeds(view, 100));
  EXPECT_FALSE(nesting_exceeds(view, 500000));
  // Damage deep inside is still found, as InvalidBSON.
  std::vector<uint8_t> bad = nested_bytes({}, {{"a"}}, 150);
  // The leaf {x: 1} is 12 bytes followed by 150 terminators; its type byte is its fifth.
  bad[bad.size() - 150 - 12 + 4] = 0x7F;  // a type nothing defines
  std::string reason;
  EXPECT_FALSE(validate_bson(bad, &reason));
}

TEST(NestingDepth, EmptyDocumentsAndArraysAddNoLevel) {
  Document d = Document::from_json(R"({"a": {"b": {}}, "c": [[]]})");
  EXPECT_FALSE(nesting_exceeds(d.view(), 1));
  EXPECT_TRUE(nesting_exceeds(Document::from_json(R"({"a": {"b": {"c": 1}}})").view(), 1));
}

TEST(Utf8Repair, InvalidSequencesBecomeReplacementCharacters) {
  EXPECT_EQ(to_valid_utf8("plain \xC3\xA9 text"), "plain \xC3\xA9 text");
  EXPECT_EQ(to_valid_utf8("flag: \xC3"), "flag: \xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(to_valid_utf8("\xF4\x90\x80\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // above U+10FFFF
  EXPECT_EQ(to_valid_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_char_at("x\xC3\xA9y", 1), "\xC3\xA9");
  EXPECT_EQ(utf8_char_at("x\xC3", 1), "\xC3");
}

}  // namespace
}  // namespace mongostore::bson
