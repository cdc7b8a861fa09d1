// The JSON of executions and events escapes exactly what JSON requires (quote, backslash,
// control characters) and leaves every other byte, UTF-8 included, as it is (pydantic's
// output, which harel reads). Runs of plain characters are copied in bulk (issue 29), so
// escapes at the start, middle and end of a string and back to back are all covered.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/exec/event.h"

namespace mongostore::exec {
namespace {

std::string kind_json(const std::string& kind) {
  Event e;
  e.id = "i";
  e.kind = kind;
  std::string json = e.to_json();
  EXPECT_EQ(Event::from_json(json).kind, kind) << json;
  const std::string key = "\"kind\":";
  size_t at = json.find(key);
  if (at == std::string::npos) return json;
  size_t begin = at + key.size();
  // The value ends at the first quote that no backslash escapes.
  size_t end = begin + 1;
  while (json[end] != '"') end += json[end] == '\\' ? 2 : 1;
  return json.substr(begin, end + 1 - begin);
}

TEST(JsonEscape, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(kind_json("plain"), "\"plain\"");
  EXPECT_EQ(kind_json(""), "\"\"");
  EXPECT_EQ(kind_json("\"start"), "\"\\\"start\"");
  EXPECT_EQ(kind_json("end\\"), "\"end\\\\\"");
  EXPECT_EQ(kind_json("a\nb\tc\rd\be\ff"), "\"a\\nb\\tc\\rd\\be\\ff\"");
  EXPECT_EQ(kind_json(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(kind_json("caf\xC3\xA9 \xE2\x82\xAC/"), "\"caf\xC3\xA9 \xE2\x82\xAC/\"");
  std::string long_run(1000, 'x');
  EXPECT_EQ(kind_json(long_run + "\"" + long_run), "\"" + long_run + "\\\"" + long_run + "\"");
}

}  // namespace
}  // namespace mongostore::exec
