// Document, DocumentView, Value, DocumentBuilder, OwnedValue and extended JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/error.h"

namespace mongostore::bson {
namespace {

using namespace std::string_literals;

// Runs `f`, which must throw mongostore::Error with `code`; returns the message.
template <class F>
std::string expect_error(int32_t code, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected mongostore::Error " << code << ", got std::exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected mongostore::Error " << code << ", nothing was thrown";
  return {};
}

constexpr int32_t kInvalidBSON = 22;
constexpr int32_t kFailedToParse = 9;
constexpr int32_t kTypeMismatch = 14;
constexpr int32_t kBadValue = 2;

std::vector<uint8_t> bytes_of(const Document& d) {
  return {d.data(), d.data() + d.size()};
}

// A document from its element bytes: the length prefix and terminator are added.
std::vector<uint8_t> raw_doc(const std::vector<uint8_t>& elements) {
  std::vector<uint8_t> out(4);
  out.insert(out.end(), elements.begin(), elements.end());
  out.push_back(0);
  uint32_t n = static_cast<uint32_t>(out.size());
  std::memcpy(out.data(), &n, 4);
  return out;
}

std::vector<uint8_t> le32(uint32_t v) {
  return {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
          static_cast<uint8_t>(v >> 24)};
}

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// One document holding a value of every type mongostore can build.
Document every_type_document() {
  static const uint8_t kBin[] = {0x00, 0x01, 0xff};
  DocumentBuilder b;
  b.append("double", 1.5)
      .append("string", "h\xc3\xa9llo")
      .append("nul", "a\0b"s)
      .append("doc", make_document("x", 1))
      .append("arr", make_array(1, "two", 3.0))
      .append("bin", BinaryView{0x80, kBin})
      .append("undef", Undefined{})
      .append("oid", ObjectId::from_hex("5f1d7c3e9a1b2c3d4e5f6071"))
      .append("t", true)
      .append("f", false)
      .append("date", DateTime{-86400000})
      .append("null", Null{})
      .append("regex", RegexView{"^a.*b$", "im"})
      .append("int32", int32_t{-7})
      .append("ts", Timestamp{1700000000, 42})
      .append("int64", int64_t{1} << 40)
      .append("dec", Decimal128::from_string("1.00"))
      .append("min", MinKey{})
      .append("max", MaxKey{});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Builder round trips
// ---------------------------------------------------------------------------------------------

TEST(Builder, RoundTripsEveryType) {
  Document d = every_type_document();
  // The bytes are valid BSON in libbson's eyes, too.
  Document copy = Document::from_bytes(d.view().bytes());
  EXPECT_EQ(copy, d);

  EXPECT_EQ(d.get("double").type(), BsonType::kDouble);
  EXPECT_EQ(d.get("double").as_double(), 1.5);
  EXPECT_EQ(d.get("string").as_string(), "h\xc3\xa9llo");
  EXPECT_EQ(d.get("nul").as_string(), "a\0b"s);
  EXPECT_EQ(d.get("nul").as_string().size(), 3u);
  EXPECT_EQ(d.get("doc").as_document().get("x").as_int32(), 1);
  DocumentView arr = d.get("arr").as_array();
  EXPECT_EQ(arr.count(), 3u);
  EXPECT_EQ(arr.get("0").as_int32(), 1);
  EXPECT_EQ(arr.get("1").as_string(), "two");
  EXPECT_EQ(arr.get("2").as_double(), 3.0);
  BinaryView bin = d.get("bin").as_binary();
  EXPECT_EQ(bin.subtype, 0x80);
  EXPECT_EQ(std::vector<uint8_t>(bin.bytes.begin(), bin.bytes.end()),
            (std::vector<uint8_t>{0x00, 0x01, 0xff}));
  EXPECT_EQ(d.get("undef").type(), BsonType::kUndefined);
  EXPECT_EQ(d.get("oid").as_object_id().to_hex(), "5f1d7c3e9a1b2c3d4e5f6071");
  EXPECT_TRUE(d.get("t").as_bool());
  EXPECT_FALSE(d.get("f").as_bool());
  EXPECT_EQ(d.get("date").as_datetime().millis, -86400000);
  EXPECT_TRUE(d.get("null").is_null());
  EXPECT_EQ(d.get("regex").as_regex().pattern, "^a.*b$");
  EXPECT_EQ(d.get("regex").as_regex().options, "im");
  EXPECT_EQ(d.get("int32").as_int32(), -7);
  EXPECT_EQ(d.get("ts").as_timestamp().seconds, 1700000000u);
  EXPECT_EQ(d.get("ts").as_timestamp().increment, 42u);
  EXPECT_EQ(d.get("int64").as_int64(), int64_t{1} << 40);
  EXPECT_EQ(d.get("dec").as_decimal128().to_string(), "1.00");
  EXPECT_EQ(d.get("min").type(), BsonType::kMinKey);
  EXPECT_EQ(d.get("max").type(), BsonType::kMaxKey);
  EXPECT_EQ(d.view().count(), 19u);
}

TEST(Builder, MatchesLibbsonsEncoding) {
  // The same document through the JSON parser (libbson's own encoder) has identical bytes.
  Document built =
      make_document("a", 1, "b", int64_t{2}, "c", 2.5, "d", "x", "e", true, "f", Null{});
  Document parsed = Document::from_json(
      R"({"a": 1, "b": {"$numberLong": "2"}, "c": 2.5, "d": "x", "e": true, "f": null})");
  EXPECT_EQ(built, parsed);
  EXPECT_EQ(make_document(), Document());
  EXPECT_EQ(Document().size(), 5u);
  EXPECT_EQ(bytes_of(Document()), (std::vector<uint8_t>{5, 0, 0, 0, 0}));
  Document ts = make_document("ts", Timestamp{1, 2});
  EXPECT_EQ(ts, Document::from_json(R"({"ts": {"$timestamp": {"t": 1, "i": 2}}})"));
  Document date = make_document("d", DateTime{-1});
  EXPECT_EQ(date, Document::from_json(R"({"d": {"$date": {"$numberLong": "-1"}}})"));
  Document dec = make_document("x", Decimal128::from_string("-1.5E+3"));
  EXPECT_EQ(dec, Document::from_json(R"({"x": {"$numberDecimal": "-1.5E+3"}})"));
}

TEST(Builder, OldBinarySubtypeRoundTrips) {
  // Subtype 2 carries an inner length prefix; the builder must write it so libbson accepts it.
  static const uint8_t kBytes[] = {1, 2, 3};
  Document d = make_document("b", BinaryView{0x02, kBytes});
  Document checked = Document::from_bytes(d.view().bytes());
  BinaryView bin = checked.get("b").as_binary();
  EXPECT_EQ(bin.subtype, 0x02);
  EXPECT_EQ(std::vector<uint8_t>(bin.bytes.begin(), bin.bytes.end()),
            (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(d, Document::from_json(R"({"b": {"$binary": {"base64": "AQID", "subType": "02"}}})"));
}

TEST(Builder, NestedLevels) {
  DocumentBuilder b;
  b.append("name", "ada");
  b.open_document("address").append("city", "Paris").open_array("zips").push(75001).push("75002");
  b.close().close();
  b.open_array("tags").push("x").push(2).push_document().append("k", "v").close();
  b.push_array().push(true).close().close();
  b.append("after", 1);
  Document d = b.finish();

  EXPECT_EQ(d.to_json(),
            R"({ "name" : "ada", "address" : { "city" : "Paris", "zips" : [ 75001, "75002" ] }, )"
            R"("tags" : [ "x", 2, { "k" : "v" }, [ true ] ], "after" : 1 })");
  EXPECT_EQ(d.get("address").type(), BsonType::kDocument);
  EXPECT_EQ(d.get("tags").type(), BsonType::kArray);
  DocumentView tags = d.get("tags").as_array();
  std::vector<std::string> keys;
  for (const Element& e : tags) keys.emplace_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(tags.get("3").as_array().get("0").as_bool(), true);
  EXPECT_NO_THROW(Document::from_bytes(d.view().bytes()));
}

TEST(Builder, FinishClosesOpenLevelsAndResets) {
  DocumentBuilder b;
  b.open_document("a").open_array("b").push(1);
  Document d = b.finish();
  EXPECT_EQ(d.to_json(), R"({ "a" : { "b" : [ 1 ] } })");
  EXPECT_NO_THROW(Document::from_bytes(d.view().bytes()));
  // The builder is empty again and reusable.
  EXPECT_EQ(b.finish(), Document());
  b.append("x", 1);
  EXPECT_EQ(b.finish(), make_document("x", 1));
}

TEST(Builder, CloseWithoutOpenLevelThrows) {
  DocumentBuilder b;
  expect_error(1, [&] { b.close(); });
}

TEST(Builder, RejectsNulInKeysAndRegexes) {
  DocumentBuilder b;
  expect_error(kBadValue, [&] { b.append("a\0b"s, 1); });
  expect_error(kBadValue, [&] { b.append("r", RegexView{"a\0"s, ""}); });
  expect_error(kBadValue, [&] { b.append("r", RegexView{"a", "\0"s}); });
  expect_error(kBadValue, [&] { b.append("m", Value()); });
}

TEST(Builder, MakeArrayAndAppendArray) {
  Array a = make_array(1, "x", make_document("a", 1), make_array(9));
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(a.view().to_json_array(), R"([1, "x", { "a" : 1 }, [ 9 ]])");
  Document d = make_document("arr", a);
  EXPECT_EQ(d.get("arr").type(), BsonType::kArray);
  DocumentBuilder b;
  b.append_array("arr", a.view());
  EXPECT_EQ(b.finish(), d);
  EXPECT_EQ(make_array().count(), 0u);
}

TEST(Builder, AppendElementsAndValues) {
  Document src = make_document("a", 1, "b", "two");
  DocumentBuilder b;
  b.append("first", 0).append_elements(src).append("copy", src.get("b"));
  Document d = b.finish();
  EXPECT_EQ(d.to_json(), R"({ "first" : 0, "a" : 1, "b" : "two", "copy" : "two" })");
  EXPECT_NO_THROW(Document::from_bytes(d.view().bytes()));
  DocumentBuilder e;
  e.append_elements(Document());
  EXPECT_EQ(e.finish(), Document());
}

TEST(Builder, SizeGrows) {
  DocumentBuilder b;
  size_t s0 = b.size();
  b.append("a", 1);
  EXPECT_EQ(b.size(), s0 + 1 + 2 + 4);
}

// ---------------------------------------------------------------------------------------------
// Views, iteration, lookups
// ---------------------------------------------------------------------------------------------

TEST(DocumentView, IterationYieldsKeysAndValuesInOrder) {
  Document d = make_document("z", 1, "a", "x", "m", 2.5);
  std::vector<std::string> keys;
  std::vector<BsonType> types;
  for (const Element& e : d) {
    keys.emplace_back(e.key);
    types.push_back(e.value.type());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ(types, (std::vector<BsonType>{BsonType::kInt32, BsonType::kString, BsonType::kDouble}));
  auto it = d.begin();
  EXPECT_EQ(it->key, "z");
  auto old = it++;
  EXPECT_EQ(old->key, "z");
  EXPECT_EQ((*it).key, "a");
  ++it;
  ++it;
  EXPECT_TRUE(it == d.end());
  EXPECT_EQ(std::distance(d.begin(), d.end()), 3);
  EXPECT_EQ(d.view().count(), 3u);
  EXPECT_FALSE(d.empty());
}

TEST(DocumentView, EmptyDocuments) {
  DocumentView v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.count(), 0u);
  EXPECT_TRUE(v.begin() == v.end());
  EXPECT_EQ(v.size(), 5u);
  EXPECT_TRUE(v.get("a").is_missing());
  EXPECT_EQ(v.to_json(), "{ }");
  EXPECT_TRUE(Document().empty());
  EXPECT_TRUE(v == Document().view());
}

TEST(DocumentView, GetAndGetPath) {
  Document d = Document::from_json(
      R"({"a": {"b": {"c": 5}, "arr": [{"x": 1}]}, "a.b": "literal", "dup": 1, "dup": 2, "n": null})");
  EXPECT_EQ(d.get_path("a.b.c").as_int32(), 5);
  EXPECT_TRUE(d.get_path("a.b").is_document());
  EXPECT_EQ(d.get("a.b").as_string(), "literal");  // get does not split on dots
  EXPECT_TRUE(d.get_path("a.b.c.d").is_missing());
  EXPECT_TRUE(d.get_path("a.x.c").is_missing());
  EXPECT_TRUE(d.get_path("a.arr.0.x").is_missing());  // arrays are not traversed
  EXPECT_TRUE(d.get_path("a.arr").is_array());
  EXPECT_EQ(d.get("dup").as_int32(), 1);  // the first of duplicate keys
  EXPECT_TRUE(d.get("n").is_null());
  EXPECT_FALSE(d.get("n").is_missing());
  EXPECT_TRUE(d.has("n"));
  EXPECT_FALSE(d.has("nope"));
  EXPECT_TRUE(d.get("nope").is_missing());
  EXPECT_TRUE(d.get("").is_missing());
  EXPECT_TRUE(d.get_path("").is_missing());
  EXPECT_EQ(d.view().get_path("a").as_document().get_path("b.c").as_int32(), 5);
}

TEST(DocumentView, EqualityIsBytewise) {
  EXPECT_EQ(make_document("a", 1), make_document("a", 1));
  EXPECT_FALSE(make_document("a", 1) == make_document("a", 1.0));  // equal values, other types
  EXPECT_EQ(compare_documents(make_document("a", 1), make_document("a", 1.0)), 0);
  EXPECT_FALSE(make_document("a", 1, "b", 2) == make_document("b", 2, "a", 1));
  Value v1 = make_document("a", 1).get("a");
  (void)v1;
}

TEST(DocumentView, ReleaseAndAdopt) {
  Document d = make_document("a", 1);
  std::vector<uint8_t> bytes = d.release();
  EXPECT_EQ(d, Document());
  Document back = Document::adopt(bytes);
  EXPECT_EQ(back.get("a").as_int32(), 1);
  Document copy = Document::copy_of(back.view());
  EXPECT_EQ(copy, back);
  EXPECT_NE(copy.data(), back.data());
}

// ---------------------------------------------------------------------------------------------
// Validation of outside bytes
// ---------------------------------------------------------------------------------------------

TEST(FromBytes, AcceptsValidDocuments) {
  Document d = every_type_document();
  std::vector<uint8_t> bytes = bytes_of(d);
  Document copy = Document::from_bytes(bytes);
  EXPECT_EQ(copy, d);
  EXPECT_NE(copy.data(), bytes.data());  // copied
  EXPECT_EQ(Document::from_bytes(std::vector<uint8_t>{5, 0, 0, 0, 0}), Document());
  // Embedded NUL in a string value is allowed, as in MongoDB.
  EXPECT_EQ(Document::from_bytes(raw_doc(cat({{0x02, 'a', 0}, le32(4), {'x', 0, 'y', 0}})))
                .get("a")
                .as_string(),
            "x\0y"s);
  // Deprecated types are readable.
  Document old = Document::from_bytes(raw_doc(
      cat({{0x06, 'u', 0}, {0x0E, 's', 0}, le32(2), {'q', 0}, {0x0D, 'c', 0}, le32(1), {0}})));
  EXPECT_EQ(old.get("u").type(), BsonType::kUndefined);
  EXPECT_EQ(old.get("s").as_string(), "q");
  EXPECT_EQ(old.get("c").as_string(), "");
}

TEST(FromBytes, RejectsTruncatedInput) {
  Document doc = make_document("a", 1, "b", "hello");
  std::vector<uint8_t> good = bytes_of(doc);
  std::vector<size_t> starts;  // offsets of the elements' type bytes
  for (const Element& e : doc) {
    starts.push_back(
        static_cast<size_t>(reinterpret_cast<const uint8_t*>(e.key.data()) - 1 - doc.data()));
  }
  ASSERT_EQ(starts, (std::vector<size_t>{4, 11}));
  expect_error(kInvalidBSON, [] { Document::from_bytes({}); });
  expect_error(kInvalidBSON, [] { Document::from_bytes(std::vector<uint8_t>{5, 0, 0, 0}); });
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> prefix(good.begin(), good.begin() + n);
    expect_error(kInvalidBSON, [&] { Document::from_bytes(prefix); });
    // Even with the length prefix patched to match, a cut document is not valid BSON, unless
    // the new terminator lands exactly where an element started.
    if (n >= 5 && std::find(starts.begin(), starts.end(), n - 1) == starts.end()) {
      std::vector<uint8_t> patched = prefix;
      uint32_t len = static_cast<uint32_t>(n);
      std::memcpy(patched.data(), &len, 4);
      patched.back() = 0;
      expect_error(kInvalidBSON, [&] { Document::from_bytes(patched); });
    }
  }
}

TEST(FromBytes, RejectsBadLengths) {
  std::vector<uint8_t> good = bytes_of(make_document("a", 1));
  for (uint32_t declared : {0u, 4u, 5u, static_cast<uint32_t>(good.size() - 1),
                            static_cast<uint32_t>(good.size() + 1), 0xffffffffu, 0x80000000u}) {
    std::vector<uint8_t> bad = good;
    std::memcpy(bad.data(), &declared, 4);
    std::string msg = expect_error(kInvalidBSON, [&] { Document::from_bytes(bad); });
    EXPECT_FALSE(msg.empty());
  }
}

TEST(FromBytes, RejectsTrailingGarbage) {
  std::vector<uint8_t> bytes = bytes_of(make_document("a", 1));
  bytes.push_back(0);
  expect_error(kInvalidBSON, [&] { Document::from_bytes(bytes); });
  // Two documents back to back are not one document.
  std::vector<uint8_t> two = bytes_of(make_document("a", 1));
  std::vector<uint8_t> second = bytes_of(make_document("b", 2));
  two.insert(two.end(), second.begin(), second.end());
  expect_error(kInvalidBSON, [&] { Document::from_bytes(two); });
  // Bytes after an early terminator, inside the declared length.
  std::vector<uint8_t> early = raw_doc({0x00, 0x10, 'a', 0, 1, 0, 0, 0});
  expect_error(kInvalidBSON, [&] { Document::from_bytes(early); });
}

TEST(FromBytes, RejectsCorruptElements) {
  std::vector<std::pair<const char*, std::vector<uint8_t>>> cases = {
      {"missing terminator", {5, 0, 0, 0, 1}},
      {"unknown type", raw_doc({0x20, 'a', 0, 0})},
      {"type 0x14", raw_doc({0x14, 'a', 0, 0, 0, 0, 0})},
      {"short int32", raw_doc({0x10, 'a', 0, 1, 0})},
      {"short double", raw_doc({0x01, 'a', 0, 0, 0, 0, 0, 0, 0})},
      {"key without NUL", raw_doc({0x0A, 'a', 'b'})},
      {"string length 0", raw_doc(cat({{0x02, 'a', 0}, le32(0), {0}}))},
      {"string length too long", raw_doc(cat({{0x02, 'a', 0}, le32(100), {'x', 0}}))},
      {"string not NUL-terminated", raw_doc(cat({{0x02, 'a', 0}, le32(2), {'x', 'y'}}))},
      {"negative string length", raw_doc(cat({{0x02, 'a', 0}, le32(0xfffffffe), {'x', 0}}))},
      {"bool 2", raw_doc({0x08, 'a', 0, 2})},
      {"nested length too big", raw_doc(cat({{0x03, 'd', 0}, le32(50), {0x0A, 'x', 0, 0}}))},
      {"nested length too small", raw_doc(cat({{0x03, 'd', 0}, le32(4), {0x0A, 'x', 0, 0}}))},
      {"nested not terminated", raw_doc(cat({{0x03, 'd', 0}, le32(8), {0x0A, 'x', 0, 1}}))},
      {"nested unknown type",
       raw_doc(cat({{0x04, 'd', 0}, raw_doc({0x21, '0', 0}), {0x0A, 'z', 0}}))},
      {"binary length too long", raw_doc(cat({{0x05, 'b', 0}, le32(10), {0x00, 1, 2}}))},
      {"old binary bad inner length",
       raw_doc(cat({{0x05, 'b', 0}, le32(5), {0x02}, le32(3), {7}}))},
      {"short ObjectId", raw_doc({0x07, 'o', 0, 1, 2, 3, 4, 5})},
      {"regex options missing", raw_doc({0x0B, 'r', 0, 'a', 0})},
      {"code with scope bad length",
       raw_doc(cat({{0x0F, 'c', 0}, le32(100), le32(2), {'x', 0}, raw_doc({})}))},
      {"dbpointer truncated", raw_doc(cat({{0x0C, 'p', 0}, le32(2), {'n', 0}, {1, 2, 3}}))},
  };
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    std::string reason;
    EXPECT_FALSE(validate_bson(bytes, &reason));
    EXPECT_FALSE(reason.empty());
    expect_error(kInvalidBSON, [&] { Document::from_bytes(bytes); });
  }
}

TEST(FromBytes, RejectsInvalidUtf8) {
  std::vector<std::pair<const char*, std::vector<uint8_t>>> cases = {
      {"0xff in string", raw_doc(cat({{0x02, 'a', 0}, le32(2), {0xff, 0}}))},
      {"truncated sequence", raw_doc(cat({{0x02, 'a', 0}, le32(2), {0xc3, 0}}))},
      {"lone continuation", raw_doc(cat({{0x02, 'a', 0}, le32(3), {'x', 0x80, 0}}))},
      {"surrogate", raw_doc(cat({{0x02, 'a', 0}, le32(4), {0xed, 0xa0, 0x80, 0}}))},
      {"invalid key", raw_doc({0x0A, 0xff, 0})},
      {"nested string",
       raw_doc(cat({{0x03, 'd', 0}, raw_doc(cat({{0x02, 'x', 0}, le32(2), {0xfe, 0}}))}))},
      {"array string",
       raw_doc(cat({{0x04, 'd', 0}, raw_doc(cat({{0x02, '0', 0}, le32(2), {0xfe, 0}}))}))},
  };
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    std::string msg = expect_error(kInvalidBSON, [&] { Document::from_bytes(bytes); });
    EXPECT_NE(msg.find("UTF"), std::string::npos) << msg;
  }
  // Multi-byte UTF-8 is fine: two, three and four bytes, in values, keys, regexes, code.
  EXPECT_NO_THROW(
      Document::from_bytes(raw_doc(cat({{0x02, 'a', 0}, le32(4), {0xe2, 0x82, 0xac, 0}}))));
  EXPECT_NO_THROW(Document::from_bytes(
      raw_doc(cat({{0x02, 0xc3, 0xa9, 0}, le32(5), {0xf0, 0x9f, 0x90, 0xb6, 0}}))));
  EXPECT_NO_THROW(Document::from_bytes(raw_doc({0x0B, 'r', 0, 0xc3, 0xa9, 0, 'i', 0})));
  EXPECT_NO_THROW(Document::from_bytes(raw_doc(cat({{0x0D, 'c', 0}, le32(3), {0xc3, 0xa9, 0}}))));
  // Invalid UTF-8 elsewhere: regex, code, symbol, DBPointer namespace, code with scope.
  std::vector<std::pair<const char*, std::vector<uint8_t>>> more = {
      {"regex pattern", raw_doc({0x0B, 'r', 0, 0xff, 0, 0})},
      {"code", raw_doc(cat({{0x0D, 'c', 0}, le32(2), {0xff, 0}}))},
      {"symbol", raw_doc(cat({{0x0E, 's', 0}, le32(2), {0xff, 0}}))},
      {"dbpointer",
       raw_doc(cat({{0x0C, 'p', 0}, le32(2), {0xff, 0}, std::vector<uint8_t>(12, 1)}))},
      {"code with scope",
       raw_doc(cat({{0x0F, 'c', 0}, le32(4 + 6 + 5), le32(2), {0xff, 0}, raw_doc({})}))},
      {"scope string", raw_doc(cat({{0x0F, 'c', 0},
                                    le32(4 + 6 + 14),
                                    le32(2),
                                    {'x', 0},
                                    raw_doc(cat({{0x02, 'y', 0}, le32(2), {0xff, 0}}))}))},
  };
  for (const auto& [what, bytes] : more) {
    SCOPED_TRACE(what);
    expect_error(kInvalidBSON, [&] { Document::from_bytes(bytes); });
  }
  // The same shapes with valid text are accepted (so the cases above fail for the UTF-8).
  EXPECT_NO_THROW(
      Document::from_bytes(raw_doc(cat({{0x0F, 'c', 0},
                                        le32(4 + 6 + 14),
                                        le32(2),
                                        {'x', 0},
                                        raw_doc(cat({{0x02, 'y', 0}, le32(2), {'z', 0}}))}))));
  EXPECT_NO_THROW(Document::from_bytes(
      raw_doc(cat({{0x0C, 'p', 0}, le32(2), {'n', 0}, std::vector<uint8_t>(12, 1)}))));
}

TEST(FromBytes, RejectsEveryCorruptionOfAValidDocument) {
  // Flipping the length prefix or the final terminator of each nested level must be caught.
  Document d = make_document("a", make_document("b", make_array(1, "x")), "s", "str");
  std::vector<uint8_t> good = bytes_of(d);
  {
    std::vector<uint8_t> bad = good;
    bad.back() = 1;
    expect_error(kInvalidBSON, [&] { Document::from_bytes(bad); });
  }
  // Corrupt each length byte of the sub-document (which starts after type 03, "a", NUL).
  for (size_t i = 7; i < 11; ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x40;
    expect_error(kInvalidBSON, [&] { Document::from_bytes(bad); });
  }
}

// Walks everything reachable from `v` (what the engine would do with accepted bytes).
void touch(const Value& v, int depth = 0) {
  (void)encode_index_key(v);
  EXPECT_EQ(compare_values(v, v), 0);
  (void)v.truthy();
  if (v.is_document() || v.is_array()) {
    for (const Element& e : DocumentView(v.data(), v.size())) touch(e.value, depth + 1);
  }
  switch (v.type()) {
    case BsonType::kString:
    case BsonType::kSymbol:
    case BsonType::kCode:
      (void)v.as_string();
      break;
    case BsonType::kBinary:
      (void)v.as_binary();
      break;
    case BsonType::kRegex:
      (void)v.as_regex();
      break;
    case BsonType::kCodeWithScope:
      (void)v.code_with_scope_code();
      for (const Element& e : v.code_with_scope_scope()) touch(e.value, depth + 1);
      break;
    default:
      break;
  }
}

TEST(FromBytes, RandomCorruptionIsRejectedOrSafe) {
  // Flip, drop and insert bytes of valid documents: from_bytes either throws InvalidBSON or
  // returns a document that can be walked (run under ASan to check memory safety).
  Document base = every_type_document();
  Document old = Document::from_json(
      R"J({"s": {"$symbol": "sym"}, "c": {"$code": "f()"}, "cws": {"$code": "g()", "$scope": {"x": 1}},)J"
      R"J( "p": {"$dbPointer": {"$ref": "db.c", "$id": {"$oid": "000000000000000000000001"}}},)J"
      R"J( "b2": {"$binary": {"base64": "AQID", "subType": "02"}}})J");
  std::mt19937_64 rng(12345);
  int accepted = 0, rejected = 0;
  for (const Document* src : {&base, &old}) {
    std::vector<uint8_t> good = bytes_of(*src);
    for (int iter = 0; iter < 20000; ++iter) {
      std::vector<uint8_t> bad = good;
      int edits = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < edits; ++k) {
        size_t at = rng() % bad.size();
        switch (rng() % 4) {
          case 0:
            bad[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
          case 1:
            bad[at] = static_cast<uint8_t>(rng());
            break;
          case 2:
            bad.erase(bad.begin() + static_cast<std::ptrdiff_t>(at));
            break;
          default:
            bad.insert(bad.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng()));
            break;
        }
        if (bad.empty()) bad.push_back(0);
      }
      if (rng() % 2 == 0 && bad.size() >= 4) {
        // Keep the outer length consistent so the inner checks are exercised.
        uint32_t n = static_cast<uint32_t>(bad.size());
        std::memcpy(bad.data(), &n, 4);
      }
      try {
        Document d = Document::from_bytes(bad);
        ++accepted;
        for (const Element& e : d) touch(e.value);
        (void)d.to_json();
        (void)d.to_json(JsonMode::kCanonical);
      } catch (const Error& e) {
        ASSERT_EQ(e.code(), kInvalidBSON);
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 10000);
  EXPECT_GT(accepted, 100);
}

// ---------------------------------------------------------------------------------------------
// Extended JSON
// ---------------------------------------------------------------------------------------------

TEST(Json, RelaxedAndCanonicalRendering) {
  Document d = make_document("a", 1, "b", int64_t{2}, "c", 1.5, "s", "x");
  EXPECT_EQ(d.to_json(), R"({ "a" : 1, "b" : 2, "c" : 1.5, "s" : "x" })");
  EXPECT_EQ(d.to_json(JsonMode::kRelaxed), d.to_json());
  EXPECT_EQ(d.to_json(JsonMode::kCanonical),
            R"({ "a" : { "$numberInt" : "1" }, "b" : { "$numberLong" : "2" }, )"
            R"("c" : { "$numberDouble" : "1.5" }, "s" : "x" })");
  Document one = make_document("a", 1);
  EXPECT_NE(one.to_json(JsonMode::kCanonical).find(R"({ "$numberInt" : "1" })"), std::string::npos);
  EXPECT_EQ(make_document("d", DateTime{0}).to_json(),
            R"({ "d" : { "$date" : "1970-01-01T00:00:00Z" } })");
  EXPECT_EQ(make_document("d", DateTime{0}).to_json(JsonMode::kCanonical),
            R"({ "d" : { "$date" : { "$numberLong" : "0" } } })");
  EXPECT_EQ(make_document("o", ObjectId::from_hex("000000000000000000000001")).to_json(),
            R"({ "o" : { "$oid" : "000000000000000000000001" } })");
}

TEST(Json, ParsesRelaxedAndCanonical) {
  Document relaxed = Document::from_json(
      R"({"a": 1, "b": 2147483648, "c": 1.0, "d": "x", "e": [1, {"f": null}]})");
  EXPECT_EQ(relaxed.get("a").type(), BsonType::kInt32);
  EXPECT_EQ(relaxed.get("b").type(), BsonType::kInt64);
  EXPECT_EQ(relaxed.get("b").as_int64(), 2147483648LL);
  EXPECT_EQ(relaxed.get("c").type(), BsonType::kDouble);
  EXPECT_EQ(relaxed.get("e").type(), BsonType::kArray);
  Document canonical = Document::from_json(
      R"({"a": {"$numberInt": "1"}, "b": {"$numberLong": "2147483648"}, "c": {"$numberDouble": "1.0"},)"
      R"( "d": "x", "e": [{"$numberInt": "1"}, {"f": null}]})");
  EXPECT_EQ(canonical, relaxed);
  Document special = Document::from_json(
      R"({"inf": {"$numberDouble": "-Infinity"}, "nan": {"$numberDouble": "NaN"}, "z": {"$numberDouble": "-0.0"}})");
  EXPECT_TRUE(std::isinf(special.get("inf").as_double()));
  EXPECT_TRUE(std::isnan(special.get("nan").as_double()));
  EXPECT_TRUE(std::signbit(special.get("z").as_double()));
}

TEST(Json, CanonicalRoundTripIsExact) {
  Document d = every_type_document();
  std::string canonical = d.to_json(JsonMode::kCanonical);
  Document back = Document::from_json(canonical);
  EXPECT_EQ(back, d) << canonical << "\n" << back.to_json(JsonMode::kCanonical);
  EXPECT_EQ(back.to_json(JsonMode::kCanonical), canonical);
  // Deprecated and JavaScript types, too.
  Document old = Document::from_json(
      R"J({"s": {"$symbol": "sym"}, "c": {"$code": "f()"}, "cws": {"$code": "g()", "$scope": {"x": 1}},)J"
      R"J( "p": {"$dbPointer": {"$ref": "db.c", "$id": {"$oid": "000000000000000000000001"}}}})J");
  EXPECT_EQ(old.get("s").type(), BsonType::kSymbol);
  EXPECT_EQ(old.get("c").type(), BsonType::kCode);
  EXPECT_EQ(old.get("cws").code_with_scope_code(), "g()");
  EXPECT_EQ(old.get("cws").code_with_scope_scope().get("x").as_int32(), 1);
  EXPECT_EQ(old.get("p").type(), BsonType::kDbPointer);
  EXPECT_EQ(Document::from_json(old.to_json(JsonMode::kCanonical)), old);
}

TEST(Json, RelaxedRoundTripPreservesValues) {
  Document d = every_type_document();
  std::string relaxed = d.to_json(JsonMode::kRelaxed);
  Document back = Document::from_json(relaxed);
  // Relaxed JSON may narrow number types (a small int64 comes back as int32) but no value
  // changes.
  EXPECT_EQ(compare_documents(back, d), 0) << relaxed << "\n" << back.to_json();
  EXPECT_EQ(back.get("int64").as_int64(), int64_t{1} << 40);
  EXPECT_EQ(back.get("nul").as_string(), "a\0b"s);
  EXPECT_EQ(back.get("date").as_datetime().millis, -86400000);
  EXPECT_EQ(back.get("dec").as_decimal128().to_string(), "1.00");
}

TEST(Json, ValueAndArrayRendering) {
  Document d =
      make_document("i", 1, "s", "x:y", "o", make_document("a", 1), "arr", make_array(1, 2));
  EXPECT_EQ(d.get("i").to_json(), "1");
  EXPECT_EQ(d.get("s").to_json(), R"("x:y")");
  EXPECT_EQ(d.get("o").to_json(), R"({ "a" : 1 })");
  EXPECT_EQ(d.get("arr").to_json(), "[ 1, 2 ]");
  EXPECT_EQ(Value().to_json(), "<missing>");
  Array a = make_array(1, int64_t{2}, "x");
  EXPECT_EQ(a.view().to_json_array(), R"([1, 2, "x"])");
  EXPECT_EQ(a.view().to_json_array(JsonMode::kCanonical),
            R"([{ "$numberInt" : "1" }, { "$numberLong" : "2" }, "x"])");
  EXPECT_EQ(Array().view().to_json_array(), "[]");
}

TEST(Json, ErrorsAreFailedToParse) {
  for (const char* bad : {"", "{", "not json", "{\"a\": }", "{\"a\": 1,}", "{'a': 1}",
                          "{\"a\": {\"$numberInt\": \"x\"}}", "{\"a\": {\"$oid\": \"123\"}}",
                          "{\"a\": 1e400}", "{\"a\": 1} trailing", "{\"a\\u0000b\": 1}",
                          "{\"a\": \"\xff\"}", "{\"a\": 1}{\"b\": 2}", "{\"a\": 1} {}"}) {
    SCOPED_TRACE(bad);
    std::string msg = expect_error(kFailedToParse, [&] { Document::from_json(bad); });
    EXPECT_FALSE(msg.empty());
  }
}

TEST(Json, LargeInputAndWhitespace) {
  // Input far larger than the JSON reader's buffer, with values spanning its chunks.
  std::string big(200000, 'x');
  std::string json = "{";
  for (int i = 0; i < 3000; ++i)
    json += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  json += "\"big\": \"" + big + "\"}";
  Document d = Document::from_json(json);
  EXPECT_EQ(d.view().count(), 3001u);
  EXPECT_EQ(d.get("k2999").as_int32(), 2999);
  EXPECT_EQ(d.get("big").as_string(), big);
  // Whitespace around the document is fine.
  EXPECT_EQ(Document::from_json(" \n\t{\"a\": 1}\n  "), make_document("a", 1));
  EXPECT_EQ(Document::from_json("{}"), Document());
}

TEST(Json, StringsWithNul) {
  Document d = Document::from_json(R"({"a": "x\u0000y"})");
  EXPECT_EQ(d.get("a").as_string(), "x\0y"s);
  EXPECT_EQ(Document::from_json(d.to_json()), d);
}

// ---------------------------------------------------------------------------------------------
// ObjectId and Decimal128
// ---------------------------------------------------------------------------------------------

TEST(ObjectIdTest, HexRoundTrip) {
  for (const char* hex : {"000000000000000000000000", "ffffffffffffffffffffffff",
                          "5f1d7c3e9a1b2c3d4e5f6071", "0123456789abcdef01234567"}) {
    EXPECT_EQ(ObjectId::from_hex(hex).to_hex(), hex);
  }
  ObjectId upper = ObjectId::from_hex("ABCDEF0123456789ABCDEF01");
  EXPECT_EQ(upper.to_hex(), "abcdef0123456789abcdef01");
  ObjectId id = ObjectId::from_hex("5f1d7c3e9a1b2c3d4e5f6071");
  EXPECT_EQ(id.bytes[0], 0x5f);
  EXPECT_EQ(id.bytes[11], 0x71);
  EXPECT_EQ(id.timestamp(), 0x5f1d7c3eu);
  EXPECT_LT(ObjectId::from_hex("000000000000000000000001"),
            ObjectId::from_hex("000000000000000000000002"));
}

TEST(ObjectIdTest, BadHexIsBadValue) {
  for (const char* bad : {"", "123", "5f1d7c3e9a1b2c3d4e5f607", "5f1d7c3e9a1b2c3d4e5f60711",
                          "5f1d7c3e9a1b2c3d4e5f607g", "zzzzzzzzzzzzzzzzzzzzzzzz"}) {
    SCOPED_TRACE(bad);
    expect_error(kBadValue, [&] { ObjectId::from_hex(bad); });
  }
  expect_error(kBadValue, [] { ObjectId::from_hex("5f1d7c3e9a1b2c3d4e5f60\0"s + "1"); });
}

TEST(ObjectIdTest, GenerateIsUniqueAndRecent) {
  std::set<std::string> seen;
  uint32_t now = static_cast<uint32_t>(std::time(nullptr));
  for (int i = 0; i < 20000; ++i) {
    ObjectId id = ObjectId::generate();
    EXPECT_TRUE(seen.insert(id.to_hex()).second) << id.to_hex();
    if (i == 0) {
      EXPECT_LE(id.timestamp(), now + 2);
      EXPECT_GE(id.timestamp() + 2, now);
    }
  }
  EXPECT_EQ(seen.size(), 20000u);
}

TEST(ObjectIdTest, GenerateIsUniqueAcrossThreads) {
  constexpr int kThreads = 4, kEach = 5000;
  std::vector<std::vector<ObjectId>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ids, t] {
      for (int i = 0; i < kEach; ++i) ids[t].push_back(ObjectId::generate());
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> seen;
  for (const auto& v : ids) {
    for (const ObjectId& id : v) seen.insert(id.to_hex());
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kEach));
}

TEST(Decimal128Test, StringRoundTrip) {
  for (const char* s :
       {"0", "-0", "1", "-1", "1.5", "1.00", "0.001", "1.50E+3", "1E+10", "NaN", "Infinity",
        "-Infinity", "123456789012345678901234567890123.4",
        "9.999999999999999999999999999999999E+6144", "1E-6176", "0E-6176", "-1.2345E-100"}) {
    EXPECT_EQ(Decimal128::from_string(s).to_string(), s);
  }
  EXPECT_EQ(Decimal128::from_string("+2.5").to_string(), "2.5");
  EXPECT_EQ(Decimal128::from_string("inf").to_string(), "Infinity");
  EXPECT_TRUE(Decimal128::from_string("NaN").is_nan());
  EXPECT_FALSE(Decimal128::from_string("1").is_nan());
  EXPECT_TRUE(Decimal128::from_string("-Infinity").is_infinite());
  EXPECT_TRUE(Decimal128::from_string("-Infinity").is_negative());
  EXPECT_TRUE(Decimal128::from_string("-0").is_negative());
  EXPECT_FALSE(Decimal128::from_string("0").is_negative());
  EXPECT_FALSE(Decimal128::from_string("Infinity").is_nan());
  // Different representations of one value are different Decimal128s.
  EXPECT_FALSE(Decimal128::from_string("1.0") == Decimal128::from_string("1"));
  // The well-known bit pattern of 1: coefficient 1, exponent 0 (biased 6176).
  Decimal128 one = Decimal128::from_string("1");
  EXPECT_EQ(one.low, 1u);
  EXPECT_EQ(one.high, uint64_t{0x3040000000000000});
}

TEST(Decimal128Test, BadStringsAreBadValue) {
  for (const char* bad : {"", "abc", "1.2.3", "1e", "--1", "1E+99999"}) {
    SCOPED_TRACE(bad);
    expect_error(kBadValue, [&] { Decimal128::from_string(bad); });
  }
}

// ---------------------------------------------------------------------------------------------
// OwnedValue
// ---------------------------------------------------------------------------------------------

TEST(OwnedValueTest, OutlivesItsSource) {
  OwnedValue owned_str, owned_doc, owned_num;
  {
    Document src = make_document("s", "a long enough string to live on the heap", "d",
                                 make_document("x", make_array(1, 2)), "n", 7);
    owned_str = OwnedValue(src.get("s"));
    owned_doc = OwnedValue(src.get("d"));
    owned_num = OwnedValue(src.get("n"));
    // Overwrite the source buffer before it goes away.
    std::vector<uint8_t> bytes = src.release();
    std::fill(bytes.begin(), bytes.end(), 0xAB);
  }
  EXPECT_EQ(owned_str.view().as_string(), "a long enough string to live on the heap");
  Value d = owned_doc;
  EXPECT_EQ(d.as_document().get("x").as_array().count(), 2u);
  EXPECT_EQ(owned_num.view().as_int32(), 7);
  // Copies are independent.
  OwnedValue copy = owned_str;
  owned_str = OwnedValue();
  EXPECT_TRUE(owned_str.view().is_missing());
  EXPECT_EQ(copy.view().as_string(), "a long enough string to live on the heap");
  EXPECT_TRUE(OwnedValue().view().is_missing());
  EXPECT_TRUE(OwnedValue(Value()).view().is_missing());
}

TEST(OwnedValueTest, PreservesTypeAndBytes) {
  Document src = every_type_document();
  for (const Element& e : src) {
    OwnedValue o(e.value);
    EXPECT_TRUE(o.view().identical(e.value)) << e.key;
    EXPECT_NE(o.view().data(), e.value.data());
  }
}

// ---------------------------------------------------------------------------------------------
// Value accessors
// ---------------------------------------------------------------------------------------------

TEST(ValueTest, TypedAccessorsThrowTypeMismatch) {
  Document d = every_type_document();
  Value s = d.get("string"), i = d.get("int32");
  expect_error(kTypeMismatch, [&] { (void)s.as_double(); });
  expect_error(kTypeMismatch, [&] { (void)s.as_int32(); });
  expect_error(kTypeMismatch, [&] { (void)i.as_int64(); });  // no implicit widening
  expect_error(kTypeMismatch, [&] { (void)d.get("int64").as_int32(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("double").as_int32(); });
  expect_error(kTypeMismatch, [&] { (void)i.as_double(); });
  expect_error(kTypeMismatch, [&] { (void)i.as_bool(); });
  expect_error(kTypeMismatch, [&] { (void)i.as_string(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("arr").as_document(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("doc").as_array(); });
  expect_error(kTypeMismatch, [&] { (void)s.as_object_id(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("ts").as_datetime(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("date").as_timestamp(); });
  expect_error(kTypeMismatch, [&] { (void)d.get("double").as_decimal128(); });
  expect_error(kTypeMismatch, [&] { (void)s.as_binary(); });
  expect_error(kTypeMismatch, [&] { (void)s.as_regex(); });
  expect_error(kTypeMismatch, [&] { (void)s.code_with_scope_code(); });
  expect_error(kTypeMismatch, [&] { (void)s.code_with_scope_scope(); });
  expect_error(kTypeMismatch, [&] { (void)s.number_as_double(); });
  std::string msg = expect_error(kTypeMismatch, [&] { (void)Value().as_int32(); });
  EXPECT_NE(msg.find("int"), std::string::npos);
  expect_error(kTypeMismatch, [&] { (void)d.get("null").as_bool(); });
}

TEST(ValueTest, TypePredicates) {
  Document d = every_type_document();
  EXPECT_TRUE(Value().is_missing());
  EXPECT_FALSE(d.get("null").is_missing());
  EXPECT_TRUE(d.get("null").is_null());
  EXPECT_TRUE(d.get("int32").is_number());
  EXPECT_TRUE(d.get("int64").is_number());
  EXPECT_TRUE(d.get("double").is_number());
  EXPECT_TRUE(d.get("dec").is_number());
  EXPECT_FALSE(d.get("string").is_number());
  EXPECT_TRUE(d.get("doc").is_document());
  EXPECT_TRUE(d.get("arr").is_array());
  EXPECT_TRUE(d.get("string").is_string());
  EXPECT_TRUE(d.get("int32").identical(make_document("x", -7).get("x")));
  EXPECT_FALSE(d.get("int32").identical(make_document("x", int64_t{-7}).get("x")));
  EXPECT_EQ(type_alias(BsonType::kInt32), "int");
  EXPECT_EQ(type_alias(BsonType::kDocument), "object");
  EXPECT_EQ(type_alias(BsonType::kCodeWithScope), "javascriptWithScope");
  EXPECT_EQ(type_alias(BsonType::kDecimal128), "decimal");
}

TEST(ValueTest, NumberConversions) {
  Document d = Document::from_json(
      R"({"i": 3, "l": {"$numberLong": "9007199254740993"}, "d": 2.5, "di": 4.0, "big": 1e19,)"
      R"( "dec": {"$numberDecimal": "1.25"}, "dec1": {"$numberDecimal": "1.00"},)"
      R"( "dec100": {"$numberDecimal": "1E+2"}, "decneg": {"$numberDecimal": "-42"},)"
      R"( "dechuge": {"$numberDecimal": "1E+6144"}, "dectiny": {"$numberDecimal": "1E-6176"},)"
      R"( "decnan": {"$numberDecimal": "NaN"}, "decfrac": {"$numberDecimal": "1.5"},)"
      R"( "decbig": {"$numberDecimal": "9223372036854775808"}, "s": "x"})");
  EXPECT_EQ(d.get("i").number_as_double(), 3.0);
  EXPECT_EQ(d.get("l").number_as_double(), 9007199254740992.0);
  EXPECT_EQ(d.get("d").number_as_double(), 2.5);
  EXPECT_EQ(d.get("dec").number_as_double(), 1.25);
  EXPECT_EQ(d.get("dechuge").number_as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(d.get("dectiny").number_as_double(), 0.0);
  EXPECT_TRUE(std::isnan(d.get("decnan").number_as_double()));

  int64_t out = 0;
  EXPECT_TRUE(d.get("i").number_as_exact_int64(&out));
  EXPECT_EQ(out, 3);
  EXPECT_TRUE(d.get("l").number_as_exact_int64(&out));
  EXPECT_EQ(out, 9007199254740993);
  EXPECT_FALSE(d.get("d").number_as_exact_int64(&out));
  EXPECT_TRUE(d.get("di").number_as_exact_int64(&out));
  EXPECT_EQ(out, 4);
  EXPECT_FALSE(d.get("big").number_as_exact_int64(&out));
  EXPECT_TRUE(d.get("dec1").number_as_exact_int64(&out));
  EXPECT_EQ(out, 1);
  EXPECT_TRUE(d.get("dec100").number_as_exact_int64(&out));
  EXPECT_EQ(out, 100);
  EXPECT_TRUE(d.get("decneg").number_as_exact_int64(&out));
  EXPECT_EQ(out, -42);
  EXPECT_FALSE(d.get("decfrac").number_as_exact_int64(&out));
  EXPECT_FALSE(d.get("decnan").number_as_exact_int64(&out));
  EXPECT_FALSE(d.get("dechuge").number_as_exact_int64(&out));
  EXPECT_FALSE(d.get("dectiny").number_as_exact_int64(&out));
  EXPECT_FALSE(d.get("decbig").number_as_exact_int64(&out));
  EXPECT_FALSE(d.get("s").number_as_exact_int64(&out));
  double minus = -9223372036854775808.0;
  EXPECT_TRUE(make_document("x", minus).get("x").number_as_exact_int64(&out));
  EXPECT_EQ(out, std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(make_document("x", -minus).get("x").number_as_exact_int64(&out));
  EXPECT_TRUE(make_document("x", Decimal128::from_string("-9223372036854775808"))
                  .get("x")
                  .number_as_exact_int64(&out));
  EXPECT_EQ(out, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(
      make_document("x", Decimal128::from_string("-0")).get("x").number_as_exact_int64(&out));
  EXPECT_EQ(out, 0);
  EXPECT_TRUE(
      make_document("x", Decimal128::from_string("0E+20")).get("x").number_as_exact_int64(&out));
  EXPECT_EQ(out, 0);
}

TEST(ValueTest, Truthiness) {
  Document d = Document::from_json(
      R"({"f": false, "t": true, "n": null, "z": 0, "zl": {"$numberLong": "0"}, "zd": -0.0,)"
      R"( "zdec": {"$numberDecimal": "0E+5"}, "one": 1, "nan": {"$numberDouble": "NaN"},)"
      R"( "dec": {"$numberDecimal": "1E-10"}, "decnan": {"$numberDecimal": "NaN"}, "s": "",)"
      R"( "o": {}, "a": [], "u": {"$undefined": true}})");
  for (const char* falsy : {"f", "n", "z", "zl", "zd", "zdec", "u", "missing"}) {
    EXPECT_FALSE(d.get(falsy).truthy()) << falsy;
  }
  for (const char* truthy : {"t", "one", "nan", "dec", "decnan", "s", "o", "a"}) {
    EXPECT_TRUE(d.get(truthy).truthy()) << truthy;
  }
}

TEST(ValueTest, CodeWithScopeAccessors) {
  Document d =
      Document::from_json(R"({"c": {"$code": "function() {}", "$scope": {"x": 1, "y": "z"}}})");
  Value c = d.get("c");
  EXPECT_EQ(c.code_with_scope_code(), "function() {}");
  DocumentView scope = c.code_with_scope_scope();
  EXPECT_EQ(scope.count(), 2u);
  EXPECT_EQ(scope.get("y").as_string(), "z");
  Document code = Document::from_json(R"({"c": {"$code": "return 1"}})");
  EXPECT_EQ(code.get("c").as_string(), "return 1");
}

TEST(ErrorTest, CodesAndNames) {
  Error e(ErrorCode::kInvalidBSON, "bad");
  EXPECT_EQ(e.code(), 22);
  EXPECT_EQ(e.code_name(), "InvalidBSON");
  EXPECT_EQ(std::string(e.what()), "bad");
  EXPECT_EQ(code_name(ErrorCode::kFailedToParse), "FailedToParse");
  EXPECT_EQ(code_name(ErrorCode::kTypeMismatch), "TypeMismatch");
  EXPECT_EQ(code_name(ErrorCode::kDuplicateKey), "DuplicateKey");
  EXPECT_EQ(code_name(999), "UnknownError");
  EXPECT_EQ(code_name(278), "UnsatisfiableCommitQuorum");
  // Named codes above 10000 are not locations (a failCommand fail point raises them).
  EXPECT_EQ(code_name(11601), "Interrupted");
  EXPECT_EQ(code_name(11602), "InterruptedDueToReplStateChange");
  // Codes mongod raises from one place in its source are named by that location.
  EXPECT_EQ(code_name(123456), "Location123456");
  EXPECT_EQ(code_name(40415), "Location40415");
  EXPECT_EQ(code_name(17276), "Location17276");
}

}  // namespace
}  // namespace mongostore::bson
