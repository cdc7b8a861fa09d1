// Projection::apply_into: the bytes apply() returns, appended to a buffer that already holds
// other documents (a find's batch), for the flat top-level inclusion and for the tree.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {
namespace {

using bson::Document;

std::vector<uint8_t> bytes_of(const Document& d) {
  return std::vector<uint8_t>(d.data(), d.data() + d.size());
}

// Appends `doc` projected by every spec to one buffer, after a prefix; each appended run
// must be apply()'s bytes exactly, and the prefix untouched.
void expect_same_as_apply(const Document& doc, const std::vector<std::string>& specs) {
  const std::vector<uint8_t> prefix = {1, 2, 3};
  std::vector<uint8_t> buffer = prefix;
  std::vector<std::vector<uint8_t>> expected;
  for (const std::string& spec : specs) {
    Projection p = Projection::compile(Document::from_json(spec).view());
    expected.push_back(bytes_of(p.apply(doc.view())));
    p.apply_into(doc.view(), buffer);
  }
  ASSERT_GE(buffer.size(), prefix.size());
  EXPECT_EQ(std::vector<uint8_t>(buffer.begin(), buffer.begin() + 3), prefix);
  size_t at = prefix.size();
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_LE(at + expected[i].size(), buffer.size()) << specs[i];
    EXPECT_EQ(std::vector<uint8_t>(buffer.begin() + static_cast<std::ptrdiff_t>(at),
                                   buffer.begin() + static_cast<std::ptrdiff_t>(at) +
                                       static_cast<std::ptrdiff_t>(expected[i].size())),
              expected[i])
        << specs[i];
    at += expected[i].size();
  }
  EXPECT_EQ(at, buffer.size());
}

TEST(ProjectionApplyInto, AppendsWhatApplyReturns) {
  const Document doc = Document::from_json(
      R"({"_id": "e1", "version": 3, "timers": {"a": 1.5, "b": 2.5}, "outbox": [{"seq": 1}],)"
      R"( "next_fire_at": 1.5, "context": {"x": [1, 2, {"y": "z"}]}, "s": "str"})");
  expect_same_as_apply(doc, {
                                R"({"timers": 1, "next_fire_at": 1, "version": 1})",  // flat
                                R"({"outbox": 1, "_id": 0})",                         // flat
                                R"({"missing": 1})",                                  // flat, none
                                R"({"context.x.y": 1})",                              // tree
                                R"({"context": 0, "timers": 0})",                     // exclusion
                                R"({"outbox": {"$slice": 1}})",                       // operator
                                R"({})",                                              // identity
                                R"({"_id": 1})",                                      // `_id` alone
                            });
}

// More kept elements than the flat walk notes before copying (repeated keys), appended after
// other bytes: every one, in document order.
TEST(ProjectionApplyInto, RepeatedKeysAfterOtherBytes) {
  for (int repeats : {15, 16, 17, 40}) {
    bson::DocumentBuilder doc;
    doc.append("_id", 1);
    for (int i = 0; i < repeats; ++i) doc.append("a", i).append("b", std::string(i, 'x'));
    expect_same_as_apply(doc.finish(), {R"({"a": 1, "_id": 0})", R"({"b": 1})"});
  }
}

// Many documents into one buffer: each is where the previous ended, and the buffer is not
// reallocated per document (it grows geometrically).
TEST(ProjectionApplyInto, ManyDocumentsIntoOneBuffer) {
  Projection p = Projection::compile(Document::from_json(R"({"a": 1})").view());
  std::vector<uint8_t> buffer;
  std::vector<size_t> ends;
  size_t reallocations = 0;
  for (int i = 0; i < 1000; ++i) {
    bson::DocumentBuilder b;
    b.append("_id", i).append("a", std::string(static_cast<size_t>(i % 50), 'q')).append("z", i);
    const size_t capacity = buffer.capacity();
    p.apply_into(b.finish().view(), buffer);
    if (buffer.capacity() != capacity) ++reallocations;
    ends.push_back(buffer.size());
  }
  EXPECT_LT(reallocations, 40u);
  size_t begin = 0;
  for (int i = 0; i < 1000; ++i) {
    bson::DocumentView view(buffer.data() + begin, ends[static_cast<size_t>(i)] - begin);
    EXPECT_EQ(view.get("_id").as_int32(), i);
    EXPECT_EQ(view.get("a").as_string().size(), static_cast<size_t>(i % 50));
    EXPECT_TRUE(view.get("z").is_missing());
    begin = ends[static_cast<size_t>(i)];
  }
}

}  // namespace
}  // namespace mongostore::engine
