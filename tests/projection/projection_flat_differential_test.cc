// The top-level inclusion's fast path (Projection::apply_into over the document's bytes, one
// resize and a copy per kept element) against the general tree walk, which a spec with more
// fields than the fast path takes is compiled to: on tricky documents (repeated keys, `_id`
// absent or repeated, a field absent, nested documents holding the included names, the empty
// document, more kept elements than the fast path notes before copying) and on random ones,
// through apply() and through apply_into() after bytes already in the buffer.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {
namespace {

using bson::Document;

// `fields` included (and `_id` excluded when `exclude_id`): the fast path's spec, and the same
// with nine names no document here holds, which the fast path does not take (the tree).
struct Specs {
  Document flat;
  Document tree;
};

Specs specs_for(const std::vector<std::string>& fields, bool exclude_id) {
  bson::DocumentBuilder flat, tree;
  for (const std::string& f : fields) {
    flat.append(f, 1);
    tree.append(f, 1);
  }
  for (int i = 0; i < 9; ++i) tree.append("zz_absent" + std::to_string(i), 1);
  if (exclude_id) {
    flat.append("_id", 0);
    tree.append("_id", 0);
  }
  return {flat.finish(), tree.finish()};
}

// What the tree gives, through apply() and apply_into() (after a prefix, which must stay).
void expect_same_as_tree(const Document& doc, const std::vector<std::string>& fields,
                         bool exclude_id) {
  const Specs specs = specs_for(fields, exclude_id);
  const Projection flat = Projection::compile(specs.flat.view());
  const Projection tree = Projection::compile(specs.tree.view());
  const Document expected = tree.apply(doc.view());
  std::string what = doc.to_json() + " by " + specs.flat.to_json();
  EXPECT_EQ(flat.apply(doc.view()), expected) << what;
  std::vector<uint8_t> buffer = {9, 8, 7, 6, 5};
  flat.apply_into(doc.view(), buffer);
  ASSERT_EQ(buffer.size(), 5 + expected.size()) << what;
  EXPECT_EQ(std::vector<uint8_t>(buffer.begin(), buffer.begin() + 5),
            (std::vector<uint8_t>{9, 8, 7, 6, 5}))
      << what;
  EXPECT_EQ(std::vector<uint8_t>(buffer.begin() + 5, buffer.end()),
            std::vector<uint8_t>(expected.data(), expected.data() + expected.size()))
      << what;
}

TEST(ProjectionFlatDifferential, TrickyDocuments) {
  std::vector<Document> docs;
  docs.push_back(Document());                                    // empty
  docs.push_back(Document::from_json(R"({"a": 1})"));            // `_id` absent
  docs.push_back(Document::from_json(R"({"_id": 1})"));          // only `_id`
  docs.push_back(Document::from_json(R"({"_id": 1, "b": 2})"));  // the field absent
  docs.push_back(Document::from_json(  // nested documents that hold the included names
      R"({"_id": {"a": 1, "_id": 2}, "x": {"a": {"a": 1}}, "a": {"b": [{"a": 1}]}, "b": []})"));
  docs.push_back(Document::from_json(  // the included elements first, last, and side by side
      R"({"a": "first", "q": 1, "b": 2, "ab": 3, "ba": 4, "_id": 5, "a": "last"})"));
  {
    bson::DocumentBuilder b;  // repeated keys, `_id` among them, past the 16 noted at once
    for (int i = 0; i < 40; ++i) {
      b.append("a", i).append("_id", i).append("c", std::string(static_cast<size_t>(i), 'c'));
    }
    docs.push_back(b.finish());
  }
  {
    bson::DocumentBuilder b;  // a kept element larger than the rest of the document
    b.append("_id", 1).append("a", std::string(5000, 'a')).append("b", 2);
    docs.push_back(b.finish());
  }
  const std::vector<std::vector<std::string>> field_sets = {
      {"a"}, {"b"}, {"a", "b"}, {"ab", "ba"}, {"missing"}, {"a", "_idx", "x"}, {"c"}};
  for (const Document& doc : docs) {
    for (const std::vector<std::string>& fields : field_sets) {
      expect_same_as_tree(doc, fields, false);
      expect_same_as_tree(doc, fields, true);
    }
  }
}

// Random documents over a few names (so that keys repeat and lengths collide) and values of
// several types, some nested; random sets of one to four included names.
TEST(ProjectionFlatDifferential, RandomDocuments) {
  const std::vector<std::string> names = {"_id", "a", "b", "ab", "ba", "abc", "x", "timers"};
  std::mt19937 rng(29);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int round = 0; round < 2000; ++round) {
    bson::DocumentBuilder b;
    const size_t elements = pick(24);
    for (size_t i = 0; i < elements; ++i) {
      const std::string& name = names[pick(names.size())];
      switch (pick(5)) {
        case 0:
          b.append(name, static_cast<int32_t>(rng()));
          break;
        case 1:
          b.append(name, std::string(pick(40), 's'));
          break;
        case 2:
          b.append(name, bson::make_document(names[pick(names.size())], 1.5, "a", "v"));
          break;
        case 3:
          b.append(name, bson::make_array(1, bson::make_document("a", 2)));
          break;
        default:
          b.append(name, bson::Null{});
          break;
      }
    }
    const Document doc = b.finish();
    std::vector<std::string> fields;
    const size_t count = 1 + pick(4);
    for (size_t i = 0; i < count; ++i) {
      const std::string& name = names[1 + pick(names.size() - 1)];  // not `_id`
      bool taken = false;
      for (const std::string& f : fields) taken = taken || f == name;
      if (!taken) fields.push_back(name);
    }
    expect_same_as_tree(doc, fields, pick(2) == 0);
  }
}

}  // namespace
}  // namespace mongostore::engine
