// Validation of deeply nested BSON never recurses: any depth is answered, and more than
// kMaxBsonDepth levels is Overflow (15), not a crash. Also the UTF-8 repair error replies use.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>

#include "mongostore/bson/builder.h"
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

// The nesting the contract describes, recursively (the documents below are shallow).
size_t reference_nesting(DocumentView doc) {
  size_t deepest = 0;
  for (const Element& e : doc) {
    if ((e.value.is_document() || e.value.is_array()) && e.value.size() > 5) {
      deepest =
          std::max(deepest, 1 + reference_nesting(DocumentView(e.value.data(), e.value.size())));
    }
  }
  return deepest;
}

// The smallest document nesting `levels` levels: {"": {"": ... {"": null}}}, 7 bytes a level.
Document minimal_chain(size_t levels) {
  DocumentBuilder b;
  for (size_t i = 0; i < levels; ++i) b.open_document("");
  b.append("", Null{});
  for (size_t i = 0; i < levels; ++i) b.close();
  return b.finish();
}

// nesting_exceeds skips subtrees too small to reach past the limit: at the smallest size
// a depth can take, the answer must still be exact on both sides of the limit.
TEST(NestingDepth, TheSmallestDocumentsOfADepthAreJudgedExactly) {
  for (size_t levels = 0; levels < 40; ++levels) {
    Document d = minimal_chain(levels);
    ASSERT_EQ(reference_nesting(d.view()), levels);
    ASSERT_EQ(d.view().size(), 7 * (levels + 1));
    for (size_t max = 0; max < 42; ++max) {
      EXPECT_EQ(nesting_exceeds(d.view(), max), levels > max) << levels << " levels, max " << max;
    }
  }
}

// Random small documents (empty keys, empty containers, arrays, padding) against the
// recursive definition, for every limit around their depth.
TEST(NestingDepth, AgreesWithTheRecursiveDefinitionOnRandomDocuments) {
  std::mt19937 rng(29);
  std::function<void(DocumentBuilder&, size_t)> fill = [&](DocumentBuilder& b, size_t depth) {
    const int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const std::string key = rng() % 2 ? "" : std::string(1 + rng() % 3, 'k');
      const unsigned kind = rng() % 6;
      if (depth < 14 && kind < 3) {
        if (kind == 0) {
          b.open_array(key);
          DocumentBuilder inner;
          fill(inner, depth + 1);
          Document elements = inner.finish();
          for (const Element& e : elements.view()) b.push(e.value);
        } else {
          b.open_document(key);
          fill(b, depth + 1);
        }
        b.close();
      } else if (kind == 3) {
        b.append(key, Null{});
      } else if (kind == 4) {
        b.append(key, std::string(rng() % 40, 'x'));
      } else {
        b.append(key, static_cast<int32_t>(rng()));
      }
    }
  };
  for (int round = 0; round < 3000; ++round) {
    DocumentBuilder b;
    fill(b, 0);
    Document d = b.finish();
    const size_t depth = reference_nesting(d.view());
    for (size_t max = 0; max <= depth + 2; ++max) {
      ASSERT_EQ(nesting_exceeds(d.view(), max), depth > max)
          << d.view().to_json() << " max " << max;
    }
  }
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
