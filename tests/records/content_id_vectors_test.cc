// httk's golden content ids: every case of the JSONL file named by the environment variable
// MONGOSTORE_CONTENT_ID_VECTORS (default: ../shared/reference/httk-content-id-vectors.jsonl,
// computed by httk-core's own identity code) is rebuilt as IdentityNodes from its description
// and must give exactly the recorded canonical form and content id. The shape of the file is
// described in ../shared/reference/httk-content-id-vectors.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "mongostore/records/content_id.h"
#include "mongostore/records/identity_node.h"
#include "records/json_value.h"
#include "support/test_paths.h"

namespace mongostore::records {
namespace {

using testing::JsonReader;
using testing::JsonValue;

/// A declared field type of the vectors: `optional[T]`, `list[T]`, `tuple[T, ...]`,
/// `tuple[T1, T2]`, `dict[string, T]`, `record<name>`, `any` or a scalar name.
struct Declared {
  enum class Kind { kScalar, kAny, kOptional, kList, kTuple, kDict, kRecord } kind = Kind::kAny;
  std::vector<Declared> args;
  bool variadic = false;  // tuple[T, ...]
};

std::vector<std::string> split_args(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '<') ++depth;
    if (s[i] == ']' || s[i] == '>') --depth;
    if (s[i] == ',' && depth == 0) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.emplace_back(s.substr(start));
  for (auto& a : out) {
    a.erase(0, a.find_first_not_of(' '));
    a.erase(a.find_last_not_of(' ') + 1);
  }
  return out;
}

Declared parse_declared(std::string_view s) {
  Declared d;
  if (s.starts_with("record<")) {
    d.kind = Declared::Kind::kRecord;
    return d;
  }
  size_t bracket = s.find('[');
  if (bracket == std::string_view::npos) {
    d.kind = s == "any" ? Declared::Kind::kAny : Declared::Kind::kScalar;
    return d;
  }
  std::string_view head = s.substr(0, bracket);
  std::vector<std::string> args = split_args(s.substr(bracket + 1, s.size() - bracket - 2));
  if (head == "optional") {
    d.kind = Declared::Kind::kOptional;
  } else if (head == "list") {
    d.kind = Declared::Kind::kList;
  } else if (head == "tuple") {
    d.kind = Declared::Kind::kTuple;
  } else if (head == "dict") {
    d.kind = Declared::Kind::kDict;
  } else {
    throw std::runtime_error("unknown declared type " + std::string(s));
  }
  for (const auto& a : args) {
    if (a == "...") {
      d.variadic = true;
    } else {
      d.args.push_back(parse_declared(a));
    }
  }
  return d;
}

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

/// Where a built node's form differs from the expected one.
std::string first_difference(const std::string& got, const std::string& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  std::ostringstream s;
  s << "first differing byte at offset " << i << ": got '" << got.substr(i >= 20 ? i - 20 : 0, 60)
    << "' want '" << want.substr(i >= 20 ? i - 20 : 0, 60) << "'";
  return s.str();
}

class Builder {
 public:
  explicit Builder(std::string case_name) : case_(std::move(case_name)) {}

  IdentityNode record(const JsonValue& r) {
    std::vector<IdentityNode::Entry> fields;
    for (const JsonValue& f : r.at("fields").array()) {
      // IdentitySkip and Skip fields are outside the identity; so are stored properties,
      // which the vectors list apart and which are simply not given to the node.
      if (f.at("identity").str() != "included") continue;
      fields.emplace_back(f.at("name").str(),
                          value(f.at("value"), parse_declared(f.at("declared").str())));
    }
    return IdentityNode::record(r.at("identity_name").str(), std::move(fields));
  }

  IdentityNode value(const JsonValue& v, const Declared& declared) {
    const std::string& kind = v.at("kind").str();
    if (kind == "null") return IdentityNode::null();
    if (declared.kind == Declared::Kind::kOptional) return value(v, declared.args.at(0));
    if (kind == "bool") return IdentityNode::boolean(v.at("value").boolean);
    if (kind == "int") return IdentityNode::integer(std::string_view(v.at("value").str()));
    if (kind == "float") {
      // The hex text is authoritative (strtod reads C99 hex floats exactly).
      return IdentityNode::floating(std::strtod(v.at("hex").str().c_str(), nullptr));
    }
    if (kind == "string") return IdentityNode::string(from_hex(v.at("utf8_hex").str()));
    if (kind == "bytes") return IdentityNode::bytes(from_hex(v.at("hex").str()));
    if (kind == "rational") {
      return IdentityNode::rational(
          Rational::parse(v.at("numerator").str() + "/" + v.at("denominator").str()));
    }
    if (kind == "decimal") return IdentityNode::decimal(v.at("value").str());
    if (kind == "datetime") {
      IdentityNode::Datetime dt;
      dt.year = static_cast<int>(v.at("year").integer());
      dt.month = static_cast<int>(v.at("month").integer());
      dt.day = static_cast<int>(v.at("day").integer());
      dt.hour = static_cast<int>(v.at("hour").integer());
      dt.minute = static_cast<int>(v.at("minute").integer());
      dt.second = static_cast<int>(v.at("second").integer());
      dt.microsecond = static_cast<int>(v.at("microsecond").integer());
      const JsonValue& offset = v.at("utc_offset_seconds");
      dt.aware = !offset.is_null();
      if (dt.aware) dt.utc_offset_seconds = static_cast<int32_t>(offset.integer());
      return IdentityNode::datetime(dt);
    }
    if (kind == "date") {
      return IdentityNode::date(static_cast<int>(v.at("year").integer()),
                                static_cast<int>(v.at("month").integer()),
                                static_cast<int>(v.at("day").integer()));
    }
    if (kind == "list" || kind == "tuple") {
      // As httk: a declared tuple makes a tuple of any sequence, a declared list a list of a
      // list; otherwise (any, or a tuple under a list annotation) the runtime kind decides.
      bool as_tuple = declared.kind == Declared::Kind::kTuple || kind == "tuple";
      std::vector<IdentityNode> items;
      const auto& elements = v.at("items").array();
      for (size_t i = 0; i < elements.size(); ++i) {
        items.push_back(value(elements[i], element_type(declared, i, kind)));
      }
      return as_tuple ? IdentityNode::tuple(std::move(items))
                      : IdentityNode::list(std::move(items));
    }
    if (kind == "mapping") {
      Declared element;  // any
      if (declared.kind == Declared::Kind::kDict) element = declared.args.at(1);
      std::vector<IdentityNode::Entry> entries;
      for (const JsonValue& e : v.at("entries").array()) {
        entries.emplace_back(e.array().at(0).str(), value(e.array().at(1), element));
      }
      return IdentityNode::mapping(std::move(entries));
    }
    if (kind == "record") {
      // The child's own form and digest are recorded too: check them, then let the parent
      // write the Merkle reference from the node itself.
      IdentityNode child = record(v.at("record"));
      std::string form = canonical_form(child);
      EXPECT_EQ(form, v.at("canonical_form").str())
          << case_ << " (child record): " << first_difference(form, v.at("canonical_form").str());
      EXPECT_EQ(content_id(child), v.at("content_id").str()) << case_ << " (child record)";
      ++children_checked;
      return child;
    }
    throw std::runtime_error("unknown value kind " + kind);
  }

  int children_checked = 0;

 private:
  static Declared element_type(const Declared& declared, size_t index, const std::string& kind) {
    if (declared.kind == Declared::Kind::kList && kind == "list") return declared.args.at(0);
    if (declared.kind == Declared::Kind::kTuple) {
      if (declared.variadic) return declared.args.at(0);
      if (index < declared.args.size()) return declared.args[index];
    }
    return Declared{};
  }

  std::string case_;
};

std::string vectors_path() {
  const char* env = std::getenv("MONGOSTORE_CONTENT_ID_VECTORS");
  return env != nullptr && *env != '\0' ? env : mongostore::testing::content_id_vectors_default();
}

TEST(ContentIdVectors, EveryCaseMatchesHttkByteForByte) {
  std::string path = vectors_path();
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read the content id vectors at " << path;
  int cases = 0;
  int with_extras = 0;
  int children = 0;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    JsonValue c = JsonReader::parse(line);
    std::string name = c.at("case").str();
    SCOPED_TRACE("case " + name + " (line " + std::to_string(line_number) + ")");
    Builder builder(name);
    IdentityNode record = builder.record(c.at("record"));
    std::vector<IdentityNode::Entry> extras;
    if (const JsonValue* e = c.find("extras")) {
      for (const JsonValue& pair : e->array()) {
        extras.emplace_back(pair.array().at(0).str(), builder.value(pair.array().at(1), {}));
      }
      ++with_extras;
    }
    const std::string& want_form = c.at("canonical_form").str();
    std::string form = canonical_form(record, extras);
    EXPECT_EQ(form, want_form) << name << ": " << first_difference(form, want_form);
    EXPECT_EQ(content_id(record, extras), c.at("content_id").str()) << name;
    // The digest is the SHA-256 of the recorded form itself, too.
    EXPECT_EQ(sha256_hex(want_form), c.at("content_id").str()) << name;
    children += builder.children_checked;
    ++cases;
  }
  ASSERT_GT(cases, 0) << "no cases in " << path;
  RecordProperty("cases", cases);
  std::cout << "checked " << cases << " cases (" << with_extras << " with extras, " << children
            << " child records) from " << path << "\n";
}

}  // namespace
}  // namespace mongostore::records
