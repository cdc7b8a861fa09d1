// The bytes of Execution::to_json and Event::to_json are a contract: harel (Python) reads and
// writes the same stored JSON, and both sides of exec_sqlite_bench compare them. These cases
// pin the output of the writer as it was before it was made faster (issue 29), over every BSON
// type the writer accepts, nesting, escapes and the edges of numbers; any change of a byte
// fails here. The doubles are also checked against the original layout of python_float_repr
// (kept below as the reference) on many random values.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exec/json_writer.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/exec/event.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {
namespace {

using bson::BsonType;
using bson::DocumentBuilder;

// A value of a type the builder has no typed append for, from its payload bytes.
DocumentBuilder& append_raw(DocumentBuilder& b, std::string_view key, BsonType type,
                            const std::string& payload) {
  return b.append(key, bson::Value(type, reinterpret_cast<const uint8_t*>(payload.data()),
                                   static_cast<uint32_t>(payload.size())));
}

std::string le32(uint32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

// A BSON string payload: length (with the NUL), bytes, NUL.
std::string string_payload(std::string_view s) {
  return le32(static_cast<uint32_t>(s.size() + 1)) + std::string(s) + std::string(1, '\0');
}

bson::Document all_types() {
  DocumentBuilder b;
  b.append("double", 2.5);
  b.append("int32", int32_t{-7});
  b.append("int64", int64_t{1} << 40);
  b.append("true", true).append("false", false);
  b.append("null", bson::Null{});
  b.append("string", "text");
  b.append("empty_string", "");
  b.open_document("document").append("a", int32_t{1}).close();
  b.open_document("empty_document").close();
  b.open_array("array").push(int32_t{1}).push("two").push(3.0).close();
  b.open_array("empty_array").close();
  b.append("oid", bson::ObjectId::from_hex("0123456789abcdefABCDEF01"));
  b.append("date", bson::DateTime{1700000000123});
  b.append("date_negative", bson::DateTime{-62135596800000});
  b.append("date_zero", bson::DateTime{0});
  b.append("decimal", bson::Decimal128::from_string("1234.5678"));
  b.append("decimal_negative", bson::Decimal128::from_string("-0.000001"));
  b.append("decimal_nan", bson::Decimal128::from_string("NaN"));
  b.append("decimal_inf", bson::Decimal128::from_string("-Infinity"));
  static const uint8_t kBytes[] = {0x00, 0xff, 0x10, 0x3e, 0x3f, 0x80, 0x7f};
  for (size_t n = 0; n <= 4; ++n) {
    b.append("bin" + std::to_string(n), bson::BinaryView{0, std::span<const uint8_t>(kBytes, n)});
  }
  b.append("bin_uuid", bson::BinaryView{4, std::span<const uint8_t>(kBytes, 7)});
  b.append("bin_user", bson::BinaryView{0x80, std::span<const uint8_t>(kBytes, 5)});
  b.append("bin_old", bson::BinaryView{2, std::span<const uint8_t>(kBytes, 3)});
  b.append("timestamp", bson::Timestamp{4294967295u, 4294967295u});
  b.append("timestamp_small", bson::Timestamp{1, 0});
  b.append("regex", bson::RegexView{"^a\"b\\d+$", "imsx"});
  b.append("regex_empty", bson::RegexView{"", ""});
  b.append("minkey", bson::MinKey{}).append("maxkey", bson::MaxKey{});
  b.append("undefined", bson::Undefined{});
  append_raw(b, "symbol", BsonType::kSymbol, string_payload("sym\"bol"));
  append_raw(b, "code", BsonType::kCode, string_payload("function(){return \"x\\n\";}"));
  {
    bson::Document scope = bson::make_document("x", int32_t{1}, "s", "q\"");
    std::string cws = string_payload("f(x)");
    cws += std::string(reinterpret_cast<const char*>(scope.view().data()), scope.view().size());
    append_raw(b, "code_with_scope", BsonType::kCodeWithScope,
               le32(static_cast<uint32_t>(4 + cws.size())) + cws);
  }
  append_raw(b, "dbpointer", BsonType::kDbPointer,
             string_payload("db.coll") +
                 std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12));
  return b.finish();
}

bson::Document doubles() {
  const double kInf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      3.0,
                                      10.0,
                                      100.0,
                                      0.1,
                                      0.5,
                                      -0.25,
                                      1.0 / 3.0,
                                      2.0 / 3.0,
                                      123.456,
                                      1e-4,
                                      1e-5,
                                      0.00012345,
                                      0.000012345,
                                      1.5e-7,
                                      1e15,
                                      1e16,
                                      1.5e16,
                                      9999999999999998.0,
                                      123456789012345678.0,
                                      9007199254740992.0,
                                      9007199254740993.0,
                                      4503599627370497.5,
                                      1e22,
                                      1e21,
                                      1e100,
                                      -1e-100,
                                      1.7e9,
                                      1.7e9 + 3600.5,
                                      5e-324,
                                      2.2250738585072014e-308,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::lowest(),
                                      std::numeric_limits<double>::epsilon(),
                                      0.30000000000000004,
                                      1e-7,
                                      12345678.9,
                                      std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::quiet_NaN(),
                                      kInf,
                                      -kInf,
                                      9.999999999999999e15,
                                      1e-323,
                                      255.0,
                                      65536.0,
                                      -2147483648.0,
                                      9223372036854775808.0,
                                      -9223372036854775808.0,
                                      1e300 * 10};
  DocumentBuilder b;
  for (double v : values) b.push(v);
  return b.finish();
}

bson::Document integers() {
  DocumentBuilder b;
  b.push(int32_t{0}).push(int32_t{-1}).push(int32_t{9}).push(int32_t{10}).push(int32_t{-10});
  b.push(std::numeric_limits<int32_t>::min()).push(std::numeric_limits<int32_t>::max());
  b.push(int64_t{0}).push(int64_t{-1}).push(int64_t{999999999999});
  b.push(std::numeric_limits<int64_t>::min()).push(std::numeric_limits<int64_t>::max());
  b.push(int64_t{1000000000000000000}).push(int64_t{-9999999999999999});
  return b.finish();
}

std::string every_control_char() {
  std::string s;
  for (int c = 0; c < 0x20; ++c) s += static_cast<char>(c);
  s += '\x7f';
  return s;
}

bson::Document strings() {
  DocumentBuilder b;
  b.append("plain", "abc");
  b.append("quote\"key", "a\"b");
  b.append("back\\slash", "\\\\");
  b.append("controls", every_control_char());
  b.append("nul_inside", std::string_view("a\0b", 3));
  b.append("utf8", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE4\xB8\xAD");
  b.append("line_separators",
           "a\xE2\x80\xA8"
           "b\xE2\x80\xA9"
           "c");
  b.append("slash_and_html", "</script><!-- & ' `");
  b.append("\xC3\xA9t\xC3\xA9", "key in UTF-8");
  b.append("", "empty key");
  b.append("tab\tkey\n", "x");
  b.append("long",
           std::string(300, 'z') + "\"" + std::string(17, 'y') + "\n" + std::string(7, 'w'));
  for (size_t n = 1; n <= 17; ++n) {
    // Escapes at every offset of a word, for a writer that scans several bytes at a time.
    std::string s(n, 'a');
    s[n - 1] = '"';
    b.append("offset" + std::to_string(n), s);
    s[n - 1] = '\x1f';
    b.append("ctl_offset" + std::to_string(n), s);
    s[n - 1] = '\\';
    b.append("bs_offset" + std::to_string(n), s);
  }
  // Bytes just around the ones that need escapes.
  b.append("neighbours", std::string_view("\x20\x21\x23\x5b\x5d\x7e\x80\xff\xa2\xdc", 10));
  return b.finish();
}

bson::Document nested() {
  DocumentBuilder b;
  b.open_array("matrix");
  b.push_array().push(int32_t{1}).push(int32_t{2}).close();
  b.push_array().close();
  b.push_array().push_array().push_array().push("deep").close().close().close();
  b.close();
  b.open_array("objects");
  b.push_document().append("a", bson::Null{}).close();
  b.push_document().close();
  b.push_document().open_array("b").push_document().append("c", 1.0).close().close().close();
  b.close();
  b.open_document("d1").open_document("d2").open_document("d3").append("x", "y").close();
  b.append("after", int64_t{2}).close().open_array("arr").push(false).close().close();
  return b.finish();
}

Event full_event() {
  Event e;
  e.id = "0123456789abcdef0123456789abcdef";
  e.kind = "Order\"Placed\\\n";
  e.created_time = "2024-01-02T03:04:05.678901+00:00";
  e.received_time = std::nullopt;
  e.data = bson::make_document("sku", "sku-1", "qty", int64_t{3}, "price", 9.99, "tags",
                               bson::make_array("a", "b"));
  return e;
}

Execution full_execution() {
  Execution x;
  x.id = "exe-01-00042";
  x.definition_id = "def\"1";
  x.definition_fqn = "shop.Checkout";
  x.root_path = "Checkout";
  x.status = ExecutionStatus::kSuspended;
  x.outcome = std::nullopt;
  x.error = "boom\ttab";
  x.active_path = "Checkout.Payment";
  x.history = bson::make_document("Checkout", "Checkout.Cart", "Fork.A", bson::make_array());
  x.context =
      bson::make_document("order_id", int64_t{42}, "customer", "customer-0042", "items",
                          bson::make_array("sku-1", "sku-2", "sku-3"), "total", 12.5, "notes",
                          std::string(100, 'n'), "when", bson::DateTime{1700000000000});
  x.processed_events = 17;
  x.version = 9;
  x.priority = 4;
  x.parent_id = "parent";
  x.child_id = std::nullopt;
  x.deferred.push_back(full_event());
  Event plain;
  plain.id = "e2";
  plain.kind = "Tick";
  plain.received_time = "r";
  x.deferred.push_back(plain);
  ChildState a;
  a.root_path = "Fork.A";
  a.finished = true;
  a.outcome = "ok";
  a.result = bson::make_document("value", int32_t{1});
  a.submachine = false;
  a.key = std::nullopt;
  x.children.emplace("child\"1", a);
  ChildState b;
  b.root_path = "Fork.B";
  b.submachine = true;
  b.key = "k";
  x.children.emplace("child2", b);
  x.invoke_seq = bson::make_document("Checkout.Payment", int64_t{3});
  return x;
}

Event with_data(const bson::Document& data) {
  Event e;
  e.id = "i";
  e.kind = "k";
  e.data = data;
  return e;
}

std::vector<std::pair<std::string, std::string>> outputs() {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("default_execution", Execution{}.to_json());
  out.emplace_back("full_execution", full_execution().to_json());
  out.emplace_back("default_event", Event{}.to_json());
  out.emplace_back("full_event", full_event().to_json());
  out.emplace_back("all_types", with_data(all_types()).to_json());
  out.emplace_back("doubles", with_data(bson::make_document("d", doubles().view())).to_json());
  out.emplace_back("integers", with_data(integers()).to_json());
  out.emplace_back("strings", with_data(strings()).to_json());
  out.emplace_back("nested", with_data(nested()).to_json());
  Execution big = full_execution();
  big.context = all_types();
  big.history = nested();
  big.invoke_seq = strings();
  big.deferred.push_back(with_data(doubles()));
  out.emplace_back("big_execution", big.to_json());
  return out;
}

// A C++ literal of `s`: printable ASCII as is, every other byte as a three-digit octal escape.
std::string cxx_literal(const std::string& s) {
  std::string out = "\"";
  size_t line = 0;
  for (unsigned char c : s) {
    if (line >= 80) {
      out += "\"\n     \"";
      line = 0;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      line += 2;
    } else if (c < 0x20 || c >= 0x7f) {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", c);
      out += esc;
      line += 4;
    } else {
      out += static_cast<char>(c);
      ++line;
    }
  }
  return out + "\"";
}

// Prints the table below from the current writer (run with --gtest_also_run_disabled_tests).
TEST(JsonWriterGolden, DISABLED_Print) {
  for (const auto& [name, json] : outputs()) {
    std::printf("    {\"%s\",\n     %s},\n", name.c_str(), cxx_literal(json).c_str());
  }
}

const std::vector<std::pair<std::string, std::string>> kGolden = {
    {"default_execution",
     "{\"id\":\"\",\"definition_id\":\"\",\"definition_fqn\":null,\"root_path\":\"\",\""
     "status\":\"PENDING\",\"outcome\":null,\"error\":null,\"active_path\":null,\"hist"
     "ory\":{},\"context\":{},\"processed_events\":0,\"version\":0,\"priority\":0,\"pa"
     "rent_id\":null,\"child_id\":null,\"deferred\":[],\"children\":{},\"invoke_seq\":"
     "{}}"},
    {"full_execution",
     "{\"id\":\"exe-01-00042\",\"definition_id\":\"def\\\"1\",\"definition_fqn\":\"sho"
     "p.Checkout\",\"root_path\":\"Checkout\",\"status\":\"SUSPENDED\",\"outcome\":nul"
     "l,\"error\":\"boom\\ttab\",\"active_path\":\"Checkout.Payment\",\"history\":{\"C"
     "heckout\":\"Checkout.Cart\",\"Fork.A\":[]},\"context\":{\"order_id\":42,\"custom"
     "er\":\"customer-0042\",\"items\":[\"sku-1\",\"sku-2\",\"sku-3\"],\"total\":12.5,"
     "\"notes\":\"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
     "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\",\"when\":{\"$date\":{\"$numberLong\":\"170000"
     "0000000\"}}},\"processed_events\":17,\"version\":9,\"priority\":4,\"parent_id\":"
     "\"parent\",\"child_id\":null,\"deferred\":[{\"id\":\"0123456789abcdef0123456789a"
     "bcdef\",\"kind\":\"Order\\\"Placed\\\\\\n\",\"created_time\":\"2024-01-02T03:04:"
     "05.678901+00:00\",\"received_time\":null,\"data\":{\"sku\":\"sku-1\",\"qty\":3,\""
     "price\":9.99,\"tags\":[\"a\",\"b\"]}},{\"id\":\"e2\",\"kind\":\"Tick\",\"created"
     "_time\":null,\"received_time\":\"r\",\"data\":{}}],\"children\":{\"child\\\"1\":"
     "{\"root_path\":\"Fork.A\",\"finished\":true,\"outcome\":\"ok\",\"result\":{\"val"
     "ue\":1},\"submachine\":false,\"key\":null},\"child2\":{\"root_path\":\"Fork.B\","
     "\"finished\":false,\"outcome\":null,\"result\":{},\"submachine\":true,\"key\":\""
     "k\"}},\"invoke_seq\":{\"Checkout.Payment\":3}}"},
    {"default_event",
     "{\"id\":\"\",\"kind\":\"\",\"created_time\":null,\"received_time\":null,\"data\""
     ":{}}"},
    {"full_event",
     "{\"id\":\"0123456789abcdef0123456789abcdef\",\"kind\":\"Order\\\"Placed\\\\\\n\""
     ",\"created_time\":\"2024-01-02T03:04:05.678901+00:00\",\"received_time\":null,\""
     "data\":{\"sku\":\"sku-1\",\"qty\":3,\"price\":9.99,\"tags\":[\"a\",\"b\"]}}"},
    {"all_types",
     "{\"id\":\"i\",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data"
     "\":{\"double\":2.5,\"int32\":-7,\"int64\":1099511627776,\"true\":true,\"false\":"
     "false,\"null\":null,\"string\":\"text\",\"empty_string\":\"\",\"document\":{\"a\""
     ":1},\"empty_document\":{},\"array\":[1,\"two\",3.0],\"empty_array\":[],\"oid\":{"
     "\"$oid\":\"0123456789abcdefabcdef01\"},\"date\":{\"$date\":{\"$numberLong\":\"17"
     "00000000123\"}},\"date_negative\":{\"$date\":{\"$numberLong\":\"-62135596800000\""
     "}},\"date_zero\":{\"$date\":{\"$numberLong\":\"0\"}},\"decimal\":{\"$numberDecim"
     "al\":\"1234.5678\"},\"decimal_negative\":{\"$numberDecimal\":\"-0.000001\"},\"de"
     "cimal_nan\":{\"$numberDecimal\":\"NaN\"},\"decimal_inf\":{\"$numberDecimal\":\"-"
     "Infinity\"},\"bin0\":{\"$binary\":{\"base64\":\"\",\"subType\":\"00\"}},\"bin1\""
     ":{\"$binary\":{\"base64\":\"AA==\",\"subType\":\"00\"}},\"bin2\":{\"$binary\":{\""
     "base64\":\"AP8=\",\"subType\":\"00\"}},\"bin3\":{\"$binary\":{\"base64\":\"AP8Q\""
     ",\"subType\":\"00\"}},\"bin4\":{\"$binary\":{\"base64\":\"AP8QPg==\",\"subType\""
     ":\"00\"}},\"bin_uuid\":{\"$binary\":{\"base64\":\"AP8QPj+Afw==\",\"subType\":\"0"
     "4\"}},\"bin_user\":{\"$binary\":{\"base64\":\"AP8QPj8=\",\"subType\":\"80\"}},\""
     "bin_old\":{\"$binary\":{\"base64\":\"AP8Q\",\"subType\":\"02\"}},\"timestamp\":{"
     "\"$timestamp\":{\"t\":4294967295,\"i\":4294967295}},\"timestamp_small\":{\"$time"
     "stamp\":{\"t\":1,\"i\":0}},\"regex\":{\"$regularExpression\":{\"pattern\":\"^a\\"
     "\"b\\\\d+$\",\"options\":\"imsx\"}},\"regex_empty\":{\"$regularExpression\":{\"p"
     "attern\":\"\",\"options\":\"\"}},\"minkey\":{\"$minKey\":1},\"maxkey\":{\"$maxKe"
     "y\":1},\"undefined\":{\"$undefined\":true},\"symbol\":{\"$symbol\":\"sym\\\"bol\""
     "},\"code\":{\"$code\":\"function(){return \\\"x\\\\n\\\";}\"},\"code_with_scope\""
     ":{ \"$code\" : \"f(x)\", \"$scope\" : { \"x\" : 1, \"s\" : \"q\\\"\" } },\"dbpoi"
     "nter\":{ \"$dbPointer\" : { \"$ref\" : \"db.coll\", \"$id\" : { \"$oid\" : \"010"
     "2030405060708090a0b0c\" } } }}}"},
    {"doubles",
     "{\"id\":\"i\",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data"
     "\":{\"d\":{\"0\":0.0,\"1\":-0.0,\"2\":1.0,\"3\":-1.0,\"4\":3.0,\"5\":10.0,\"6\":"
     "100.0,\"7\":0.1,\"8\":0.5,\"9\":-0.25,\"10\":0.3333333333333333,\"11\":0.6666666"
     "666666666,\"12\":123.456,\"13\":0.0001,\"14\":1e-05,\"15\":0.00012345,\"16\":1.2"
     "345e-05,\"17\":1.5e-07,\"18\":1000000000000000.0,\"19\":1e+16,\"20\":1.5e+16,\"2"
     "1\":9999999999999998.0,\"22\":1.2345678901234568e+17,\"23\":9007199254740992.0,\""
     "24\":9007199254740992.0,\"25\":4503599627370498.0,\"26\":1e+22,\"27\":1e+21,\"28"
     "\":1e+100,\"29\":-1e-100,\"30\":1700000000.0,\"31\":1700003600.5,\"32\":5e-324,\""
     "33\":2.2250738585072014e-308,\"34\":1.7976931348623157e+308,\"35\":-1.7976931348"
     "623157e+308,\"36\":2.220446049250313e-16,\"37\":0.30000000000000004,\"38\":1e-07"
     ",\"39\":12345678.9,\"40\":{\"$numberDouble\":\"NaN\"},\"41\":{\"$numberDouble\":"
     "\"NaN\"},\"42\":{\"$numberDouble\":\"Infinity\"},\"43\":{\"$numberDouble\":\"-In"
     "finity\"},\"44\":1e+16,\"45\":1e-323,\"46\":255.0,\"47\":65536.0,\"48\":-2147483"
     "648.0,\"49\":9.223372036854776e+18,\"50\":-9.223372036854776e+18,\"51\":1e+301}}"
     "}"},
    {"integers",
     "{\"id\":\"i\",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data"
     "\":{\"0\":0,\"1\":-1,\"2\":9,\"3\":10,\"4\":-10,\"5\":-2147483648,\"6\":21474836"
     "47,\"7\":0,\"8\":-1,\"9\":999999999999,\"10\":-9223372036854775808,\"11\":922337"
     "2036854775807,\"12\":1000000000000000000,\"13\":-9999999999999999}}"},
    {"strings",
     "{\"id\":\"i\",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data"
     "\":{\"plain\":\"abc\",\"quote\\\"key\":\"a\\\"b\",\"back\\\\slash\":\"\\\\\\\\\""
     ",\"controls\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\"
     "n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u"
     "0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\177\",\"nul_inside\""
     ":\"a\\u0000b\",\"utf8\":\"caf\303\251 \342\202\254 \360\237\230\200 \344\270\255"
     "\",\"line_separators\":\"a\342\200\250b\342\200\251c\",\"slash_and_html\":\"</sc"
     "ript><!-- & ' `\",\"\303\251t\303\251\":\"key in UTF-8\",\"\":\"empty key\",\"ta"
     "b\\tkey\\n\":\"x\",\"long\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzz\\\"yyyyyyyyyyyyyyyyy\\nwwwwwww\",\"offset1\":\"\\\"\",\"ctl_offset1\""
     ":\"\\u001f\",\"bs_offset1\":\"\\\\\",\"offset2\":\"a\\\"\",\"ctl_offset2\":\"a\\"
     "u001f\",\"bs_offset2\":\"a\\\\\",\"offset3\":\"aa\\\"\",\"ctl_offset3\":\"aa\\u0"
     "01f\",\"bs_offset3\":\"aa\\\\\",\"offset4\":\"aaa\\\"\",\"ctl_offset4\":\"aaa\\u"
     "001f\",\"bs_offset4\":\"aaa\\\\\",\"offset5\":\"aaaa\\\"\",\"ctl_offset5\":\"aaa"
     "a\\u001f\",\"bs_offset5\":\"aaaa\\\\\",\"offset6\":\"aaaaa\\\"\",\"ctl_offset6\""
     ":\"aaaaa\\u001f\",\"bs_offset6\":\"aaaaa\\\\\",\"offset7\":\"aaaaaa\\\"\",\"ctl_"
     "offset7\":\"aaaaaa\\u001f\",\"bs_offset7\":\"aaaaaa\\\\\",\"offset8\":\"aaaaaaa\\"
     "\"\",\"ctl_offset8\":\"aaaaaaa\\u001f\",\"bs_offset8\":\"aaaaaaa\\\\\",\"offset9"
     "\":\"aaaaaaaa\\\"\",\"ctl_offset9\":\"aaaaaaaa\\u001f\",\"bs_offset9\":\"aaaaaaa"
     "a\\\\\",\"offset10\":\"aaaaaaaaa\\\"\",\"ctl_offset10\":\"aaaaaaaaa\\u001f\",\"b"
     "s_offset10\":\"aaaaaaaaa\\\\\",\"offset11\":\"aaaaaaaaaa\\\"\",\"ctl_offset11\":"
     "\"aaaaaaaaaa\\u001f\",\"bs_offset11\":\"aaaaaaaaaa\\\\\",\"offset12\":\"aaaaaaaa"
     "aaa\\\"\",\"ctl_offset12\":\"aaaaaaaaaaa\\u001f\",\"bs_offset12\":\"aaaaaaaaaaa\\"
     "\\\",\"offset13\":\"aaaaaaaaaaaa\\\"\",\"ctl_offset13\":\"aaaaaaaaaaaa\\u001f\","
     "\"bs_offset13\":\"aaaaaaaaaaaa\\\\\",\"offset14\":\"aaaaaaaaaaaaa\\\"\",\"ctl_of"
     "fset14\":\"aaaaaaaaaaaaa\\u001f\",\"bs_offset14\":\"aaaaaaaaaaaaa\\\\\",\"offset"
     "15\":\"aaaaaaaaaaaaaa\\\"\",\"ctl_offset15\":\"aaaaaaaaaaaaaa\\u001f\",\"bs_offs"
     "et15\":\"aaaaaaaaaaaaaa\\\\\",\"offset16\":\"aaaaaaaaaaaaaaa\\\"\",\"ctl_offset1"
     "6\":\"aaaaaaaaaaaaaaa\\u001f\",\"bs_offset16\":\"aaaaaaaaaaaaaaa\\\\\",\"offset1"
     "7\":\"aaaaaaaaaaaaaaaa\\\"\",\"ctl_offset17\":\"aaaaaaaaaaaaaaaa\\u001f\",\"bs_o"
     "ffset17\":\"aaaaaaaaaaaaaaaa\\\\\",\"neighbours\":\" !#[]~\200\377\242\334\"}}"},
    {"nested",
     "{\"id\":\"i\",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data"
     "\":{\"matrix\":[[1,2],[],[[[\"deep\"]]]],\"objects\":[{\"a\":null},{},{\"b\":[{\""
     "c\":1.0}]}],\"d1\":{\"d2\":{\"d3\":{\"x\":\"y\"},\"after\":2},\"arr\":[false]}}}"},
    {"big_execution",
     "{\"id\":\"exe-01-00042\",\"definition_id\":\"def\\\"1\",\"definition_fqn\":\"sho"
     "p.Checkout\",\"root_path\":\"Checkout\",\"status\":\"SUSPENDED\",\"outcome\":nul"
     "l,\"error\":\"boom\\ttab\",\"active_path\":\"Checkout.Payment\",\"history\":{\"m"
     "atrix\":[[1,2],[],[[[\"deep\"]]]],\"objects\":[{\"a\":null},{},{\"b\":[{\"c\":1."
     "0}]}],\"d1\":{\"d2\":{\"d3\":{\"x\":\"y\"},\"after\":2},\"arr\":[false]}},\"cont"
     "ext\":{\"double\":2.5,\"int32\":-7,\"int64\":1099511627776,\"true\":true,\"false"
     "\":false,\"null\":null,\"string\":\"text\",\"empty_string\":\"\",\"document\":{\""
     "a\":1},\"empty_document\":{},\"array\":[1,\"two\",3.0],\"empty_array\":[],\"oid\""
     ":{\"$oid\":\"0123456789abcdefabcdef01\"},\"date\":{\"$date\":{\"$numberLong\":\""
     "1700000000123\"}},\"date_negative\":{\"$date\":{\"$numberLong\":\"-6213559680000"
     "0\"}},\"date_zero\":{\"$date\":{\"$numberLong\":\"0\"}},\"decimal\":{\"$numberDe"
     "cimal\":\"1234.5678\"},\"decimal_negative\":{\"$numberDecimal\":\"-0.000001\"},\""
     "decimal_nan\":{\"$numberDecimal\":\"NaN\"},\"decimal_inf\":{\"$numberDecimal\":\""
     "-Infinity\"},\"bin0\":{\"$binary\":{\"base64\":\"\",\"subType\":\"00\"}},\"bin1\""
     ":{\"$binary\":{\"base64\":\"AA==\",\"subType\":\"00\"}},\"bin2\":{\"$binary\":{\""
     "base64\":\"AP8=\",\"subType\":\"00\"}},\"bin3\":{\"$binary\":{\"base64\":\"AP8Q\""
     ",\"subType\":\"00\"}},\"bin4\":{\"$binary\":{\"base64\":\"AP8QPg==\",\"subType\""
     ":\"00\"}},\"bin_uuid\":{\"$binary\":{\"base64\":\"AP8QPj+Afw==\",\"subType\":\"0"
     "4\"}},\"bin_user\":{\"$binary\":{\"base64\":\"AP8QPj8=\",\"subType\":\"80\"}},\""
     "bin_old\":{\"$binary\":{\"base64\":\"AP8Q\",\"subType\":\"02\"}},\"timestamp\":{"
     "\"$timestamp\":{\"t\":4294967295,\"i\":4294967295}},\"timestamp_small\":{\"$time"
     "stamp\":{\"t\":1,\"i\":0}},\"regex\":{\"$regularExpression\":{\"pattern\":\"^a\\"
     "\"b\\\\d+$\",\"options\":\"imsx\"}},\"regex_empty\":{\"$regularExpression\":{\"p"
     "attern\":\"\",\"options\":\"\"}},\"minkey\":{\"$minKey\":1},\"maxkey\":{\"$maxKe"
     "y\":1},\"undefined\":{\"$undefined\":true},\"symbol\":{\"$symbol\":\"sym\\\"bol\""
     "},\"code\":{\"$code\":\"function(){return \\\"x\\\\n\\\";}\"},\"code_with_scope\""
     ":{ \"$code\" : \"f(x)\", \"$scope\" : { \"x\" : 1, \"s\" : \"q\\\"\" } },\"dbpoi"
     "nter\":{ \"$dbPointer\" : { \"$ref\" : \"db.coll\", \"$id\" : { \"$oid\" : \"010"
     "2030405060708090a0b0c\" } } }},\"processed_events\":17,\"version\":9,\"priority\""
     ":4,\"parent_id\":\"parent\",\"child_id\":null,\"deferred\":[{\"id\":\"0123456789"
     "abcdef0123456789abcdef\",\"kind\":\"Order\\\"Placed\\\\\\n\",\"created_time\":\""
     "2024-01-02T03:04:05.678901+00:00\",\"received_time\":null,\"data\":{\"sku\":\"sk"
     "u-1\",\"qty\":3,\"price\":9.99,\"tags\":[\"a\",\"b\"]}},{\"id\":\"e2\",\"kind\":"
     "\"Tick\",\"created_time\":null,\"received_time\":\"r\",\"data\":{}},{\"id\":\"i\""
     ",\"kind\":\"k\",\"created_time\":null,\"received_time\":null,\"data\":{\"0\":0.0"
     ",\"1\":-0.0,\"2\":1.0,\"3\":-1.0,\"4\":3.0,\"5\":10.0,\"6\":100.0,\"7\":0.1,\"8\""
     ":0.5,\"9\":-0.25,\"10\":0.3333333333333333,\"11\":0.6666666666666666,\"12\":123."
     "456,\"13\":0.0001,\"14\":1e-05,\"15\":0.00012345,\"16\":1.2345e-05,\"17\":1.5e-0"
     "7,\"18\":1000000000000000.0,\"19\":1e+16,\"20\":1.5e+16,\"21\":9999999999999998."
     "0,\"22\":1.2345678901234568e+17,\"23\":9007199254740992.0,\"24\":900719925474099"
     "2.0,\"25\":4503599627370498.0,\"26\":1e+22,\"27\":1e+21,\"28\":1e+100,\"29\":-1e"
     "-100,\"30\":1700000000.0,\"31\":1700003600.5,\"32\":5e-324,\"33\":2.225073858507"
     "2014e-308,\"34\":1.7976931348623157e+308,\"35\":-1.7976931348623157e+308,\"36\":"
     "2.220446049250313e-16,\"37\":0.30000000000000004,\"38\":1e-07,\"39\":12345678.9,"
     "\"40\":{\"$numberDouble\":\"NaN\"},\"41\":{\"$numberDouble\":\"NaN\"},\"42\":{\""
     "$numberDouble\":\"Infinity\"},\"43\":{\"$numberDouble\":\"-Infinity\"},\"44\":1e"
     "+16,\"45\":1e-323,\"46\":255.0,\"47\":65536.0,\"48\":-2147483648.0,\"49\":9.2233"
     "72036854776e+18,\"50\":-9.223372036854776e+18,\"51\":1e+301}}],\"children\":{\"c"
     "hild\\\"1\":{\"root_path\":\"Fork.A\",\"finished\":true,\"outcome\":\"ok\",\"res"
     "ult\":{\"value\":1},\"submachine\":false,\"key\":null},\"child2\":{\"root_path\""
     ":\"Fork.B\",\"finished\":false,\"outcome\":null,\"result\":{},\"submachine\":tru"
     "e,\"key\":\"k\"}},\"invoke_seq\":{\"plain\":\"abc\",\"quote\\\"key\":\"a\\\"b\","
     "\"back\\\\slash\":\"\\\\\\\\\",\"controls\":\"\\u0000\\u0001\\u0002\\u0003\\u000"
     "4\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\"
     "u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u00"
     "1e\\u001f\177\",\"nul_inside\":\"a\\u0000b\",\"utf8\":\"caf\303\251 \342\202\254"
     " \360\237\230\200 \344\270\255\",\"line_separators\":\"a\342\200\250b\342\200\251"
     "c\",\"slash_and_html\":\"</script><!-- & ' `\",\"\303\251t\303\251\":\"key in UT"
     "F-8\",\"\":\"empty key\",\"tab\\tkey\\n\":\"x\",\"long\":\"zzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
     "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\\\"yyyyyyyyyyyyyyyyy\\nwwwwwww\",\"offse"
     "t1\":\"\\\"\",\"ctl_offset1\":\"\\u001f\",\"bs_offset1\":\"\\\\\",\"offset2\":\""
     "a\\\"\",\"ctl_offset2\":\"a\\u001f\",\"bs_offset2\":\"a\\\\\",\"offset3\":\"aa\\"
     "\"\",\"ctl_offset3\":\"aa\\u001f\",\"bs_offset3\":\"aa\\\\\",\"offset4\":\"aaa\\"
     "\"\",\"ctl_offset4\":\"aaa\\u001f\",\"bs_offset4\":\"aaa\\\\\",\"offset5\":\"aaa"
     "a\\\"\",\"ctl_offset5\":\"aaaa\\u001f\",\"bs_offset5\":\"aaaa\\\\\",\"offset6\":"
     "\"aaaaa\\\"\",\"ctl_offset6\":\"aaaaa\\u001f\",\"bs_offset6\":\"aaaaa\\\\\",\"of"
     "fset7\":\"aaaaaa\\\"\",\"ctl_offset7\":\"aaaaaa\\u001f\",\"bs_offset7\":\"aaaaaa"
     "\\\\\",\"offset8\":\"aaaaaaa\\\"\",\"ctl_offset8\":\"aaaaaaa\\u001f\",\"bs_offse"
     "t8\":\"aaaaaaa\\\\\",\"offset9\":\"aaaaaaaa\\\"\",\"ctl_offset9\":\"aaaaaaaa\\u0"
     "01f\",\"bs_offset9\":\"aaaaaaaa\\\\\",\"offset10\":\"aaaaaaaaa\\\"\",\"ctl_offse"
     "t10\":\"aaaaaaaaa\\u001f\",\"bs_offset10\":\"aaaaaaaaa\\\\\",\"offset11\":\"aaaa"
     "aaaaaa\\\"\",\"ctl_offset11\":\"aaaaaaaaaa\\u001f\",\"bs_offset11\":\"aaaaaaaaaa"
     "\\\\\",\"offset12\":\"aaaaaaaaaaa\\\"\",\"ctl_offset12\":\"aaaaaaaaaaa\\u001f\","
     "\"bs_offset12\":\"aaaaaaaaaaa\\\\\",\"offset13\":\"aaaaaaaaaaaa\\\"\",\"ctl_offs"
     "et13\":\"aaaaaaaaaaaa\\u001f\",\"bs_offset13\":\"aaaaaaaaaaaa\\\\\",\"offset14\""
     ":\"aaaaaaaaaaaaa\\\"\",\"ctl_offset14\":\"aaaaaaaaaaaaa\\u001f\",\"bs_offset14\""
     ":\"aaaaaaaaaaaaa\\\\\",\"offset15\":\"aaaaaaaaaaaaaa\\\"\",\"ctl_offset15\":\"aa"
     "aaaaaaaaaaaa\\u001f\",\"bs_offset15\":\"aaaaaaaaaaaaaa\\\\\",\"offset16\":\"aaaa"
     "aaaaaaaaaaa\\\"\",\"ctl_offset16\":\"aaaaaaaaaaaaaaa\\u001f\",\"bs_offset16\":\""
     "aaaaaaaaaaaaaaa\\\\\",\"offset17\":\"aaaaaaaaaaaaaaaa\\\"\",\"ctl_offset17\":\"a"
     "aaaaaaaaaaaaaaa\\u001f\",\"bs_offset17\":\"aaaaaaaaaaaaaaaa\\\\\",\"neighbours\""
     ":\" !#[]~\200\377\242\334\"}}"},
};

TEST(JsonWriterGolden, OutputIsByteIdentical) {
  auto actual = outputs();
  ASSERT_EQ(actual.size(), kGolden.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].first, kGolden[i].first);
    EXPECT_EQ(actual[i].second, kGolden[i].second) << actual[i].first;
  }
}

// python_float_repr as it was first written (allocating, obviously laid out): the reference
// the faster layout is compared against.
std::string reference_python_float_repr(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (exponent >= -4 && exponent < 16) {
    std::string out = sign;
    int point = exponent + 1;
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += digits;
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out += digits;
      out.append(static_cast<size_t>(point) - digits.size(), '0');
      out += ".0";
    } else {
      out += digits.substr(0, point);
      out += '.';
      out += digits.substr(point);
    }
    return out;
  }
  std::string out = sign + digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp;
}

TEST(JsonWriterGolden, FloatReprMatchesReferenceOnRandomDoubles) {
  std::mt19937_64 rng(29);
  std::uniform_int_distribution<int> digits(1, 17);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int i = 0; i < 100000; ++i) {
    double v;
    switch (i % 4) {
      case 0: {  // any bit pattern (finite)
        uint64_t bits = rng();
        std::memcpy(&v, &bits, 8);
        if (!std::isfinite(v)) continue;
        break;
      }
      case 1:  // integers of every size, both signs
        v = static_cast<double>(static_cast<int64_t>(rng() >> (rng() % 64)));
        if (i % 8 == 1) v = -v;
        break;
      case 2: {  // short decimals around the layout's switch points
        std::string text = std::to_string(rng() % 1000000000000000000ull).substr(0, digits(rng));
        text += "e" + std::to_string(exponent(rng));
        v = std::strtod(text.c_str(), nullptr);
        break;
      }
      default:  // halves and quarters of large integers
        v = static_cast<double>(rng() >> (rng() % 64)) / 4.0;
    }
    ASSERT_EQ(python_float_repr(v), reference_python_float_repr(v)) << v;
  }
}

}  // namespace
}  // namespace mongostore::exec

namespace mongostore::exec {
namespace {

TEST(JsonWriterGolden, FloatReprOfNonFiniteIsPythons) {
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(python_float_repr(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(JsonWriterGolden, GrowsPastAnEstimateThatIsTooSmall) {
  JsonWriter out(1);
  const std::string long_text(5000, 'x');
  out.begin_array().string(long_text).integer(-1).number(0.5).null().end_array();
  const std::string expected = "[\"" + long_text + "\",-1,0.5,null]";
  EXPECT_EQ(out.text(), expected);
  EXPECT_EQ(out.take(), expected);
  out.begin_object().key("a").boolean(true).end_object();
  EXPECT_EQ(out.take(), "{\"a\":true}");
}

}  // namespace
}  // namespace mongostore::exec

namespace mongostore::exec {
namespace {

// JSON's string escaping, one byte at a time: the reference for the writer's block scan.
std::string reference_quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char esc[7];
          std::snprintf(esc, sizeof esc, "\\u%04x", c);
          out += esc;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

TEST(JsonWriterGolden, EscapesMatchAByteAtATimeReferenceAtEveryOffset) {
  // Strings of every length up to 80 (past a 16-byte block, an 8-byte word and the tail)
  // with escapes and high bytes at random places, as values and as member names.
  std::mt19937_64 rng(2029);
  const std::string specials =
      std::string("\"\\\x00\x01\x1f\x1e\x20\x21\x5b\x5c\x5d\x7f\x80\xff", 14);
  for (int round = 0; round < 20000; ++round) {
    const size_t n = rng() % 81;
    std::string s(n, 'a');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + rng() % 26);
    const size_t escapes = rng() % 4;
    for (size_t k = 0; k < escapes && n > 0; ++k) s[rng() % n] = specials[rng() % specials.size()];
    JsonWriter out(static_cast<size_t>(rng() % 64));
    out.begin_object().key(s).string(s).key("x").begin_array().string(s).string(s).end_array();
    out.end_object();
    const std::string q = reference_quoted(s);
    ASSERT_EQ(out.take(), "{" + q + ":" + q + ",\"x\":[" + q + "," + q + "]}") << round;
  }
}

}  // namespace
}  // namespace mongostore::exec

namespace mongostore::exec {
namespace {

TEST(JsonWriterGolden, EmptyViewsWithoutData) {
  JsonWriter out(0);
  out.begin_object().key(std::string_view()).string(std::string_view()).end_object();
  EXPECT_EQ(out.take(), "{\"\":\"\"}");
}

}  // namespace
}  // namespace mongostore::exec
