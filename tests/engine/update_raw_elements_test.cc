// RawElements (bson/raw_elements.h), the inline walk the update paths use instead of
// DocumentView's iterator, yields the same elements (keys, types, payload bytes) in the same
// order, for every BSON type and for empty and nested documents; first_values reads what get()
// does.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "bson/raw_elements.h"
#include "mongostore/bson/builder.h"
#include "support/json.h"

namespace mongostore::engine::update_detail {
namespace {

using bson::RawElements;
using mongostore::testing::J;

void expect_same_walk(bson::DocumentView doc) {
  std::vector<bson::Element> iterated(doc.begin(), doc.end());
  std::vector<bson::Element> walked;
  RawElements raw(doc);
  bson::Element e;
  while (raw.next(e)) walked.push_back(e);
  ASSERT_EQ(walked.size(), iterated.size()) << doc.to_json();
  for (size_t i = 0; i < walked.size(); ++i) {
    EXPECT_EQ(walked[i].key, iterated[i].key);
    EXPECT_EQ(walked[i].value.type(), iterated[i].value.type());
    EXPECT_EQ(walked[i].value.data(), iterated[i].value.data());
    EXPECT_EQ(walked[i].value.size(), iterated[i].value.size());
    if (walked[i].value.is_document() || walked[i].value.is_array()) {
      expect_same_walk(walked[i].value.is_document() ? walked[i].value.as_document()
                                                     : walked[i].value.as_array());
    }
  }
}

TEST(UpdateRawElements, WalksWhatTheIteratorWalks) {
  expect_same_walk(bson::Document().view());
  // Every type, an empty key, nested documents and arrays, both binary forms.
  const char* const kAllTypes = R"json({
    "d": 1.5, "s": "str", "e": "", "o": {"a": {"b": []}}, "a": [1, "x", {"y": null}],
    "bin": {"$binary": {"base64": "AQID", "subType": "00"}},
    "old": {"$binary": {"base64": "AQID", "subType": "02"}},
    "u": {"$undefined": true}, "oid": {"$oid": "0123456789abcdef01234567"},
    "t": true, "f": false, "date": {"$date": 5}, "n": null,
    "re": {"$regularExpression": {"pattern": "a.*b", "options": "i"}},
    "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}},
    "code": {"$code": "f(x)"}, "sym": {"$symbol": "q"},
    "cws": {"$code": "g(y)", "$scope": {"x": 1}},
    "i": 7, "ts": {"$timestamp": {"t": 1, "i": 2}}, "l": {"$numberLong": "9"},
    "dec": {"$numberDecimal": "1.25"}, "min": {"$minKey": 1}, "max": {"$maxKey": 1},
    "": "empty key"
  })json";
  expect_same_walk(J(kAllTypes).view());
}

// first_values reads what get() reads for each key: the first of a repeated key, missing for
// an absent one, whatever order the keys are asked in.
TEST(UpdateRawElements, FirstValuesAreWhatGetReturns) {
  const bson::Document doc = J(R"({"a": 1, "b": "x", "a": 2, "c": {"d": 3}, "b": null, "": 4})");
  auto expect_as_get = [&](bson::DocumentView d, const auto& keys) {
    const auto values = bson::first_values(d, keys);
    for (size_t i = 0; i < keys.size(); ++i) {
      const bson::Value want = d.get(keys[i]);
      EXPECT_EQ(values[i].type(), want.type()) << keys[i];
      EXPECT_EQ(values[i].data(), want.data()) << keys[i];
      EXPECT_EQ(values[i].size(), want.size()) << keys[i];
    }
  };
  expect_as_get(doc.view(), std::array<std::string_view, 4>{"a", "b", "c", ""});
  expect_as_get(doc.view(), std::array<std::string_view, 3>{"", "missing", "a"});
  expect_as_get(doc.view(), std::array<std::string_view, 2>{"d", "c"});
  expect_as_get(bson::Document().view(), std::array<std::string_view, 2>{"a", "b"});
  EXPECT_EQ(bson::first_values(doc.view(), std::array<std::string_view, 1>{"a"})[0].as_int32(), 1);
}

}  // namespace
}  // namespace mongostore::engine::update_detail
