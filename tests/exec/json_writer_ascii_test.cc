// JsonWriter::maybe_non_ascii (the commit skips its UTF-8 pass over the snapshot JSON when it
// is false) against a byte-by-byte reference: it is never false when a byte written is
// non-ASCII, whichever path of the escape scan (short, word, 16-byte block, the overlapping
// last block, after an escape) saw the byte, and it is false for all-ASCII output.
#include <gtest/gtest.h>

#include <string>

#include "exec/json_writer.h"
#include "exec/model_json.h"
#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {
namespace {

bool all_ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// Writes `s` as a value and as a key, alone in a writer; checks the flag both ways.
void expect_flag_matches(const std::string& s) {
  for (bool as_key : {false, true}) {
    JsonWriter out;
    out.begin_object();
    if (as_key) {
      out.key(s).integer(1);
    } else {
      out.field("v").string(s);
    }
    out.end_object();
    EXPECT_EQ(out.maybe_non_ascii(), !all_ascii(out.text()))
        << "length " << s.size() << (as_key ? " as key" : " as value");
  }
}

TEST(JsonWriterAscii, ANonAsciiByteAnywhereIsSeen) {
  // Lengths across the short, 4-byte, 8-byte and 16-byte paths and their overlapping tails;
  // the one high byte at every offset, alone or after an escape.
  for (size_t len = 1; len <= 50; ++len) {
    for (size_t at = 0; at < len; ++at) {
      std::string s(len, 'a');
      s[at] = '\xC3';
      expect_flag_matches(s);
      if (at > 0) {
        std::string escaped = s;
        escaped[at - 1] = '"';  // the scan stops here and goes on after it
        expect_flag_matches(escaped);
      }
      if (at + 1 < len) {
        std::string before = s;
        before[at + 1] = '\n';  // an escape after the high byte
        expect_flag_matches(before);
      }
    }
  }
}

TEST(JsonWriterAscii, AsciiOutputStaysClear) {
  for (size_t len = 0; len <= 50; ++len) {
    std::string s(len, 'z');
    if (len > 2) s[len / 2] = '\\';
    if (len > 5) s[1] = '\x01';
    expect_flag_matches(s);
  }
}

TEST(JsonWriterAscii, AnExecutionsFlagFollowsItsStrings) {
  Execution exe;
  exe.id = "e1";
  exe.definition_id = "def";
  exe.context =
      bson::make_document("n", 1, "list", bson::make_array(1.5, "x", bson::Null{}), "yes", true);
  exe.deferred.push_back(Event::make("Go", bson::make_document("k", "v")));
  {
    JsonWriter out;
    write_execution(out, exe);
    EXPECT_FALSE(out.maybe_non_ascii());
  }
  // Each string field, a context key and a nested value, one at a time.
  for (int which = 0; which < 5; ++which) {
    Execution e = exe;
    switch (which) {
      case 0:
        e.active_path = "Caf\xC3\xA9";
        break;
      case 1:
        e.context = bson::make_document("caf\xC3\xA9", 1);
        break;
      case 2:
        e.context = bson::make_document("a", bson::make_document("b", "\xE2\x82\xAC"));
        break;
      case 3:
        e.deferred[0].kind = "\xF0\x9F\x98\x80";
        break;
      case 4:
        e.children["\xC3\xA9"] = ChildState{};
        break;
    }
    JsonWriter out;
    write_execution(out, e);
    EXPECT_TRUE(out.maybe_non_ascii()) << which;
  }
}

TEST(JsonWriterAscii, RawTextCountsAsNonAscii) {
  JsonWriter out;
  out.raw("1");
  EXPECT_TRUE(out.maybe_non_ascii());
}

TEST(JsonWriterAscii, TakeClearsTheFlag) {
  JsonWriter out;
  out.string("\xC3\xA9");
  EXPECT_TRUE(out.maybe_non_ascii());
  out.take();
  EXPECT_FALSE(out.maybe_non_ascii());
}

}  // namespace
}  // namespace mongostore::exec
