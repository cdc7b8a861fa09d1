// The canonical form's building blocks beyond the golden vectors: JSON string escaping as
// json.dumps(ensure_ascii=True), Python's float.hex, node validation, datetimes converted to
// UTC, decimals, frac_vector, extras and Merkle references.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/error.h"
#include "mongostore/records/content_id.h"
#include "mongostore/records/identity_node.h"

namespace mongostore::records {
namespace {

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(CanonicalJsonString, EscapesAsPythonEnsureAscii) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("plain ~ text /"), "\"plain ~ text /\"");
  EXPECT_EQ(json_string("\"\\"), "\"\\\"\\\\\"");
  EXPECT_EQ(json_string("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(json_string(std::string("\0\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json_string("\u00e9\u00ff\u0100"), "\"\\u00e9\\u00ff\\u0100\"");
  EXPECT_EQ(json_string("\u20ac\uffff\ufeff"), "\"\\u20ac\\uffff\\ufeff\"");
  EXPECT_EQ(json_string("\U00010000"), "\"\\ud800\\udc00\"");
  EXPECT_EQ(json_string("\U0001F600"), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(json_string("\U0010FFFF"), "\"\\udbff\\udfff\"");
  EXPECT_EQ(json_string("a\u00e9b\U0001F600c"), "\"a\\u00e9b\\ud83d\\ude00c\"");
}

TEST(CanonicalJsonString, RefusesInvalidUtf8) {
  for (std::string bad :
       {std::string("\x80"), std::string("\xc3"), std::string("\xc0\xaf"),
        std::string("\xe0\x80\xaf"), std::string("\xed\xa0\x80"),  // surrogate
        std::string("\xf4\x90\x80\x80"), std::string("\xff"), std::string("ok\xe2\x82")}) {
    EXPECT_THROW(json_string(bad), Error);
    EXPECT_THROW(IdentityNode::string(bad), Error);
  }
}

TEST(FloatHex, MatchesPythonFloatHex) {
  EXPECT_EQ(float_hex(0.0), "0x0.0p+0");
  EXPECT_EQ(float_hex(-0.0), "-0x0.0p+0");
  EXPECT_EQ(float_hex(1.0), "0x1.0000000000000p+0");
  EXPECT_EQ(float_hex(1.5), "0x1.8000000000000p+0");
  EXPECT_EQ(float_hex(-2.5), "-0x1.4000000000000p+1");
  EXPECT_EQ(float_hex(0.1), "0x1.999999999999ap-4");
  EXPECT_EQ(float_hex(1e300), "0x1.7e43c8800759cp+996");
  EXPECT_EQ(float_hex(DBL_MAX), "0x1.fffffffffffffp+1023");
  EXPECT_EQ(float_hex(DBL_MIN), "0x1.0000000000000p-1022");
  EXPECT_EQ(float_hex(std::ldexp(1.0, -1074)), "0x0.0000000000001p-1022");
  EXPECT_EQ(float_hex(DBL_MIN - std::ldexp(1.0, -1074)), "0x0.fffffffffffffp-1022");
  EXPECT_EQ(float_hex(-std::ldexp(1.0, -1030)), "-0x0.0100000000000p-1022");
  EXPECT_THROW(float_hex(std::numeric_limits<double>::infinity()), Error);
  EXPECT_THROW(float_hex(std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_THROW(IdentityNode::floating(-std::numeric_limits<double>::infinity()), Error);
}

TEST(IdentityNodes, ScalarsWriteTheirTaggedForms) {
  EXPECT_EQ(canonical_value(IdentityNode::null()), R"({"type":"null"})");
  EXPECT_EQ(canonical_value(IdentityNode::boolean(false)), R"({"type":"bool","value":false})");
  EXPECT_EQ(canonical_value(IdentityNode::integer(INT64_MIN)),
            R"({"type":"int","value":"-9223372036854775808"})");
  EXPECT_EQ(canonical_value(IdentityNode::integer("-000")), R"({"type":"int","value":"0"})");
  EXPECT_EQ(canonical_value(IdentityNode::integer("00120")), R"({"type":"int","value":"120"})");
  EXPECT_THROW(IdentityNode::integer("1.0"), Error);
  EXPECT_THROW(IdentityNode::integer(""), Error);
  EXPECT_THROW(IdentityNode::integer("+1"), Error);
  EXPECT_EQ(canonical_value(IdentityNode::bytes(std::string("\x00\xff", 2))),
            R"({"type":"bytes","value":"00ff"})");
  EXPECT_EQ(canonical_value(IdentityNode::rational(Rational(-10, 4))),
            R"({"type":"rational","value":"-5/2"})");
  EXPECT_EQ(canonical_value(IdentityNode::record_ref(std::string(64, 'a'))),
            R"({"content_id":")" + std::string(64, 'a') + R"(","type":"record_ref"})");
  EXPECT_THROW(IdentityNode::record_ref(std::string(64, 'A')), Error);
  EXPECT_THROW(IdentityNode::record_ref(std::string(63, 'a')), Error);
  EXPECT_EQ(canonical_value(IdentityNode::custom("pkg.Type", IdentityNode::integer(1))),
            R"({"python_type":"pkg.Type","type":"custom","value":{"type":"int","value":"1"}})");
}

TEST(IdentityNodes, DecimalsEncodeAsReducedRationals) {
  auto text = [](std::string_view d) { return IdentityNode::decimal(d).as_rational().to_string(); };
  EXPECT_EQ(text("1.50"), "3/2");
  EXPECT_EQ(text("-0.125"), "-1/8");
  EXPECT_EQ(text("-0"), "0/1");
  EXPECT_EQ(text("+7"), "7/1");
  EXPECT_EQ(text(".5"), "1/2");
  EXPECT_EQ(text("5."), "5/1");
  EXPECT_EQ(text("1E+3"), "1000/1");
  EXPECT_EQ(text("2.5e-3"), "1/400");
  EXPECT_EQ(text("12e-0"), "12/1");
  for (const char* bad :
       {"", ".", "e3", "1e", "1.2.3", "NaN", "Infinity", "1_000", " 1", "1e999999999", "--1"}) {
    EXPECT_THROW(IdentityNode::decimal(bad), Error) << bad;
  }
}

TEST(IdentityNodes, DatetimesAndDates) {
  IdentityNode::Datetime naive{2026, 3, 4, 5, 6, 7, 123};
  EXPECT_EQ(IdentityNode::datetime(naive).text(), "2026-03-04T05:06:07.000123");
  IdentityNode::Datetime aware{2026, 1, 1, 0, 0, 0, 0, true, 7200};
  EXPECT_EQ(canonical_value(IdentityNode::datetime(aware)),
            R"({"aware":true,"type":"datetime","value":"2025-12-31T22:00:00.000000+00:00"})");
  // A negative offset crossing into the next day, month and year.
  IdentityNode::Datetime west{2024, 12, 31, 23, 30, 0, 5, true, -(5 * 3600 + 30 * 60)};
  EXPECT_EQ(IdentityNode::datetime(west).text(), "2025-01-01T05:00:00.000005+00:00");
  // Into a leap day, with an offset in seconds.
  IdentityNode::Datetime leap{2024, 3, 1, 0, 0, 30, 0, true, 45};
  EXPECT_EQ(IdentityNode::datetime(leap).text(), "2024-02-29T23:59:45.000000+00:00");
  IdentityNode::Datetime first{1, 1, 1, 0, 0, 0, 0, true, 3600};  // before year 1 in UTC
  EXPECT_THROW(IdentityNode::datetime(first), Error);
  IdentityNode::Datetime bad_offset{2024, 1, 1, 0, 0, 0, 0, true, 86400};
  EXPECT_THROW(IdentityNode::datetime(bad_offset), Error);
  EXPECT_THROW(IdentityNode::datetime({2023, 2, 29}), Error);
  EXPECT_THROW(IdentityNode::datetime({2024, 1, 1, 24}), Error);
  EXPECT_THROW(IdentityNode::datetime({2024, 1, 1, 0, 0, 0, 1000000}), Error);
  EXPECT_EQ(canonical_value(IdentityNode::date(2000, 2, 29)),
            R"({"type":"date","value":"2000-02-29"})");
  EXPECT_EQ(IdentityNode::date(7, 1, 9).text(), "0007-01-09");
  EXPECT_THROW(IdentityNode::date(1900, 2, 29), Error);
  EXPECT_THROW(IdentityNode::date(10000, 1, 1), Error);
}

TEST(IdentityNodes, FracVectorUsesTheLeastCommonDenominator) {
  std::vector<Rational> cell = {Rational(1, 2), Rational(0),    Rational(0),
                                Rational(0),    Rational(1, 3), Rational(0),
                                Rational(0),    Rational(0),    Rational(-5, 6)};
  EXPECT_EQ(canonical_value(IdentityNode::frac_vector(cell, {3, 3})),
            R"({"type":"frac_vector","value":{"denominator":6,"nominators":)"
            R"([[3,0,0],[0,2,0],[0,0,-5]]}})");
  std::vector<Rational> ints = {Rational(2), Rational(4)};
  EXPECT_EQ(canonical_value(IdentityNode::frac_vector(ints, {2})),
            R"({"type":"frac_vector","value":{"denominator":1,"nominators":[2,4]}})");
  std::vector<Rational> scalar = {Rational(-3, 4)};
  EXPECT_EQ(canonical_value(IdentityNode::frac_vector(scalar, {})),
            R"({"type":"frac_vector","value":{"denominator":4,"nominators":-3}})");
  EXPECT_EQ(canonical_value(IdentityNode::frac_vector({}, {2, 0})),
            R"({"type":"frac_vector","value":{"denominator":1,"nominators":[[],[]]}})");
  EXPECT_THROW(IdentityNode::frac_vector(cell, {2, 3}), Error);
}

TEST(IdentityNodes, MappingsAndRecordsSortByCodePointAndRefuseDuplicates) {
  IdentityNode m = IdentityNode::mapping({{"\U0001F600", IdentityNode::integer(1)},
                                          {"\uff5e", IdentityNode::integer(2)},
                                          {"b", IdentityNode::integer(3)},
                                          {"B", IdentityNode::integer(4)}});
  EXPECT_EQ(canonical_value(m),
            R"({"type":"mapping","value":[["B",{"type":"int","value":"4"}],)"
            R"(["b",{"type":"int","value":"3"}],["\uff5e",{"type":"int","value":"2"}],)"
            R"(["\ud83d\ude00",{"type":"int","value":"1"}]]})");
  EXPECT_THROW(IdentityNode::mapping({{"a", IdentityNode()}, {"a", IdentityNode()}}), Error);
  EXPECT_THROW(IdentityNode::record("r", {{"x", IdentityNode()}, {"x", IdentityNode()}}), Error);
  EXPECT_THROW(IdentityNode::record("bad\xff", {}), Error);
  EXPECT_THROW(canonical_form(IdentityNode::integer(1)), Error);  // not a record
}

TEST(IdentityNodes, NestedRecordsAreMerkleReferences) {
  IdentityNode child = IdentityNode::record("t.Child", {{"x", IdentityNode::integer(1)}});
  std::string child_id = content_id(child);
  EXPECT_EQ(child_id, sha256_hex(canonical_form(child)));
  IdentityNode by_node =
      IdentityNode::record("t.Parent", {{"c", child}, {"cs", IdentityNode::list({child})}});
  IdentityNode by_ref = IdentityNode::record(
      "t.Parent", {{"c", IdentityNode::record_ref(child_id)},
                   {"cs", IdentityNode::list({IdentityNode::record_ref(child_id)})}});
  EXPECT_EQ(canonical_form(by_node), canonical_form(by_ref));
  EXPECT_NE(canonical_form(by_node).find(child_id), std::string::npos);
}

TEST(IdentityNodes, ExtrasFoldIntoTheRootOnly) {
  IdentityNode child = IdentityNode::record("t.Child", {});
  IdentityNode root = IdentityNode::record("t.Root", {{"c", child}});
  std::vector<IdentityNode::Entry> extras = {{"z", IdentityNode::integer(1)},
                                             {"a", IdentityNode::string("x")}};
  std::string form = canonical_form(root, extras);
  EXPECT_TRUE(form.starts_with(
      R"({"extras":[["a",{"type":"string","value":"x"}],["z",{"type":"int","value":"1"}]],)"
      R"("fields":[["c",{"content_id":")"))
      << form;
  EXPECT_NE(form.find(content_id(child)), std::string::npos);  // the child's id is extras-free
  EXPECT_EQ(canonical_form(root, {}), canonical_form(root));
  EXPECT_NE(content_id(root, extras), content_id(root));
  std::vector<IdentityNode::Entry> duplicate = {{"k", IdentityNode()}, {"k", IdentityNode()}};
  EXPECT_THROW(canonical_form(root, duplicate), Error);
}

TEST(IdentityNodes, DeepNestingIsRefusedNotACrash) {
  IdentityNode v = IdentityNode::integer(1);
  for (int i = 0; i < kMaxIdentityDepth + 10; ++i) v = IdentityNode::list({std::move(v)});
  IdentityNode r = IdentityNode::record("t.Deep", {{"v", std::move(v)}});
  try {
    canonical_form(r);
    ADD_FAILURE() << "accepted a tree deeper than the limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_code(), ErrorCode::kBadValue);
  }
}

TEST(IdentityNodes, ContentIdsAgreeAcrossThreads) {
  // The per-thread scratch buffers and digest contexts must not leak between threads.
  std::vector<IdentityNode> children;
  for (int i = 0; i < 20; ++i) {
    children.push_back(IdentityNode::record("t.Child", {{"i", IdentityNode::integer(i)}}));
  }
  IdentityNode root = IdentityNode::record("t.Root", {{"cs", IdentityNode::list(children)}});
  std::string want = content_id(root);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) mismatches[t] += content_id(root) != want;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace mongostore::records
