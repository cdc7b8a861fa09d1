// The applier's per-level lookup of the path tree (Node::find, finish_tree in
// engine/update/internal.h) and its paths built only for error messages: the fields a level
// targets, found among a document's fields by a first-byte filter and a scan, with the
// results and the messages the map lookup and the eagerly joined paths gave.
#include <algorithm>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"

#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

std::string outcome(std::string_view doc, std::string_view update,
                    std::optional<size_t> positional = std::nullopt) {
  try {
    return canon(run(doc, update, {}, positional).document);
  } catch (const Error& e) {
    return "error " + std::to_string(e.code()) + ": " + e.what();
  }
}

TEST(UpdateApplyLookup, NamesSharingAFirstByteBitAreTold) {
  // '!' (33) and 'a' (97) share bit 33; "a" is a prefix of "ab"; "" is a field name.
  EXPECT_EQ(outcome(R"({"_id": 1, "!": 1, "a": 2, "ab": 3, "abc": 4, "": 5, "A": 6})",
                    R"({"$set": {"a": 20, "ab": 30}, "$inc": {"A": 1}})"),
            canon(R"({"_id": 1, "!": 1, "a": 20, "ab": 30, "abc": 4, "": 5, "A": 7})"));
  EXPECT_EQ(outcome(R"({"_id": 1, "!": 1, "b": 2})", R"({"$set": {"a": 1, "!x": 2}})"),
            canon(R"({"_id": 1, "!": 1, "b": 2, "!x": 2, "a": 1})"));
}

TEST(UpdateApplyLookup, MoreThan64TargetsAtOneLevel) {
  // f0, f2, ..., f78 exist; the update sets f0 ... f79 to i + 1.
  std::string fields;
  for (int i = 0; i < 80; i += 2) fields += ", \"f" + std::to_string(i) + "\": 0";
  std::string update = R"({"$set": {)";
  for (int i = 0; i < 80; ++i) {
    update += (i ? ", " : "") + ("\"f" + std::to_string(i) + "\": " + std::to_string(i + 1));
  }
  update += "}}";
  // Existing fields in place, then the created ones in the tree's order (as strings: f1,
  // f11, ..., f79, f9).
  std::vector<std::string> created;
  for (int i = 1; i < 80; i += 2) created.push_back("f" + std::to_string(i));
  std::sort(created.begin(), created.end());
  bson::DocumentBuilder b;
  b.append("_id", 1);
  for (int i = 0; i < 80; i += 2) b.append("f" + std::to_string(i), i + 1);
  for (const std::string& f : created) b.append(f, std::stoi(f.substr(1)) + 1);
  EXPECT_EQ(outcome(R"({"_id": 1)" + fields + "}", update), canon(b.finish()));
  // A nested level of the same width.
  std::string nested = R"({"_id": 1, "n": {"x": 1)" + fields + "}}";
  bson::DocumentBuilder nb;
  nb.append("_id", 1);
  nb.open_document("n").append("x", 1);
  for (int i = 0; i < 80; i += 2) nb.append("f" + std::to_string(i), i == 0 ? 1 : 0);
  nb.append("f79", 80).close();
  EXPECT_EQ(outcome(nested, R"({"$set": {"n.f79": 80, "n.f0": 1}})"), canon(nb.finish()));
}

TEST(UpdateApplyLookup, ErrorMessagesNameTheFullPath) {
  EXPECT_EQ(
      outcome(R"({"_id": 1, "x": {"a": [0, 0]}})", R"({"$set": {"x.a.$": 1, "x.a.1": 2}})", 1),
      "error 40: Update created a conflict at 'x.a.1'");
  EXPECT_EQ(
      outcome(R"({"_id": 1, "x": {"a": {"1": 0}}})", R"({"$set": {"x.a.$": 1, "x.a.1": 2}})", 1),
      "error 40: Update created a conflict at 'x.a.1'");
  EXPECT_EQ(outcome(R"({"_id": 1, "x": {"a": {}}})", R"({"$set": {"x.a.$": 1, "x.a.1": 2}})", 1),
            "error 40: Update created a conflict at 'x.a.1'");
  EXPECT_EQ(outcome(R"({"_id": 1, "x": {"a": [0]}})", R"({"$set": {"x.a.$": 1, "x.a.3": 2}})", 3),
            "error 40: Update created a conflict at 'x.a.3'");
  EXPECT_EQ(outcome(R"({"_id": 1, "x": {}})", R"({"$set": {"x.y.$[].z": 1}})"),
            "error 2: The path 'x.y' must exist in the document in order to apply array updates.");
  EXPECT_EQ(
      outcome(R"({"_id": 1, "x": {"a": [{"b": 1}]}, "c": 2})", R"({"$rename": {"c": "x.a.0.d"}})"),
      outcome(R"({"_id": 1, "x": {"a": [{"b": 1}]}, "c": 2})", R"({"$rename": {"c": "x.a.0.d"}})"));
}

TEST(UpdateApplyLookup, PositionalAtADocumentLevel) {
  EXPECT_EQ(outcome(R"({"_id": 1, "a": {"0": 5, "k": 1}})", R"({"$set": {"a.$": 7}})", 0),
            canon(R"({"_id": 1, "a": {"0": 7, "k": 1}})"));
  EXPECT_EQ(outcome(R"({"_id": 1, "a": {"k": 1}})", R"({"$set": {"a.$": 7, "a.k": 2}})", 4),
            canon(R"({"_id": 1, "a": {"k": 2, "4": 7}})"));
}

}  // namespace
}  // namespace mongostore::engine::update_test
