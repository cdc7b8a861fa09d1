// $push and $addToSet write the existing elements from one walk of the array's bytes
// (engine/update/existing_array.h): the same bytes as the general path ($position, which
// collects the elements and pushes them one by one) and as a reference built element by
// element, for canonical arrays around the key-length steps (9 -> 10, 99 -> 100) and for
// arrays whose keys are not canonical (renumbered).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_document;

// Element values of mixed types and sizes.
void append_value(DocumentBuilder& b, std::string_view key, int i) {
  switch (i % 4) {
    case 0:
      b.append(key, i);
      break;
    case 1:
      b.append(key, "s" + std::to_string(i));
      break;
    case 2:
      b.open_document(key).append("k", i).append("t", std::string(static_cast<size_t>(i % 7), 'x'));
      b.close();
      break;
    default:
      b.append(key, static_cast<double>(i) / 2);
      break;
  }
}

// {_id: 1, a: [...], z: 1} with `n` elements keyed by `key_of(i)`.
template <class KeyOf>
Document with_array(int n, KeyOf key_of) {
  DocumentBuilder b;
  b.append("_id", 1);
  b.open_array("a");
  for (int i = 0; i < n; ++i) append_value(b, key_of(i), i);
  b.close();
  b.append("z", 1);
  return b.finish();
}

// The array `values` (in order) renumbered, in the document shape of with_array.
Document reference(const std::vector<int>& values) {
  DocumentBuilder b;
  b.append("_id", 1);
  b.open_array("a");
  for (size_t i = 0; i < values.size(); ++i) {
    append_value(b, std::to_string(i), values[i]);
  }
  b.close();
  b.append("z", 1);
  return b.finish();
}

// {$each: [values of `added`]} plus `extra` clauses.
Document each_of(const std::vector<int>& added, const Document& extra) {
  DocumentBuilder b;
  b.open_array("$each");
  for (size_t i = 0; i < added.size(); ++i) append_value(b, std::to_string(i), added[i]);
  b.close();
  b.append_elements(extra.view());
  return b.finish();
}

bool same_bytes(const Document& a, const Document& b) {
  auto x = a.view().bytes();
  auto y = b.view().bytes();
  return std::equal(x.begin(), x.end(), y.begin(), y.end());
}

struct Layout {
  const char* name;
  std::string (*key)(int);
};

const Layout kLayouts[] = {
    {"canonical", [](int i) { return std::to_string(i); }},
    {"letters", [](int i) { return "k" + std::to_string(i); }},
    {"from one", [](int i) { return std::to_string(i + 1); }},
    {"leading zero", [](int i) { return i == 3 ? std::string("03") : std::to_string(i); }},
    {"last wrong", [](int i) { return i == 9 ? std::string("x") : std::to_string(i); }},
};

TEST(UpdateArrayBytes, PushWritesWhatTheGeneralPathWrites) {
  const int sizes[] = {0, 1, 2, 9, 10, 11, 99, 100, 101};
  for (const Layout& layout : kLayouts) {
    for (int n : sizes) {
      Document doc = with_array(n, layout.key);
      for (int added : {1, 2, 3}) {
        std::vector<int> add;
        for (int j = 0; j < added; ++j) add.push_back(1000 + j);
        std::vector<int> all;
        for (int i = 0; i < n; ++i) all.push_back(i);
        all.insert(all.end(), add.begin(), add.end());
        SCOPED_TRACE(std::string(layout.name) + " n=" + std::to_string(n) +
                     " added=" + std::to_string(added));
        Document plain =
            Update::compile(make_document("$push", make_document("a", each_of(add, {}))))
                .apply(doc)
                .document;
        Document general =
            Update::compile(
                make_document(
                    "$push", make_document("a", each_of(add, make_document("$position", 1000000)))))
                .apply(doc)
                .document;
        EXPECT_TRUE(same_bytes(plain, general));
        EXPECT_TRUE(same_bytes(plain, reference(all)));
        // $slice keeping everything (the byte copy) and cutting (element by element).
        for (int slice : {-1000, -(n + added), -3, -1, 0, 2, n, n + added, 1000}) {
          SCOPED_TRACE("slice=" + std::to_string(slice));
          Document sliced =
              Update::compile(
                  make_document("$push",
                                make_document("a", each_of(add, make_document("$slice", slice)))))
                  .apply(doc)
                  .document;
          Document sliced_general =
              Update::compile(
                  make_document(
                      "$push",
                      make_document(
                          "a", each_of(add, make_document("$slice", slice, "$position", 1000000)))))
                  .apply(doc)
                  .document;
          EXPECT_TRUE(same_bytes(sliced, sliced_general));
        }
      }
      // A single value, not $each.
      Document one =
          Update::compile(make_document("$push", make_document("a", 7))).apply(doc).document;
      Document one_general =
          Update::compile(
              make_document("$push", make_document("a", make_document("$each", bson::make_array(7),
                                                                      "$position", 1000000))))
              .apply(doc)
              .document;
      EXPECT_TRUE(same_bytes(one, one_general));
    }
  }
}

TEST(UpdateArrayBytes, AddToSetWritesTheExistingElementsThenTheNewOnes) {
  const int sizes[] = {0, 1, 9, 10, 11, 99, 100, 101};
  for (const Layout& layout : kLayouts) {
    for (int n : sizes) {
      Document doc = with_array(n, layout.key);
      // Present values (0 and n - 1) are skipped, new ones appended; more than 8 values take
      // the set path, which writes the same way.
      for (int added : {1, 3, 12}) {
        std::vector<int> add = {0};
        if (n > 0) add.push_back(n - 1);
        for (int j = 0; j < added; ++j) add.push_back(2000 + j);
        std::vector<int> all;
        for (int i = 0; i < n; ++i) all.push_back(i);
        for (int j = 0; j < added; ++j) all.push_back(2000 + j);
        if (n == 0) all.insert(all.begin(), 0);
        SCOPED_TRACE(std::string(layout.name) + " n=" + std::to_string(n) +
                     " added=" + std::to_string(added));
        Document got =
            Update::compile(make_document("$addToSet", make_document("a", each_of(add, {}))))
                .apply(doc)
                .document;
        EXPECT_TRUE(same_bytes(got, reference(all)));
      }
    }
  }
}

// The values to add are read in place from the update (no copy per update): a single value,
// one $each array, and a modifier document naming $each twice (BSON allows the duplicate
// key; both arrays' values are added, in order) write what one $each with those values does.
TEST(UpdateArrayBytes, EachFormsAddTheSameValues) {
  Document doc = with_array(3, kLayouts[0].key);
  auto run = [&](const char* op, const Document& arg) {
    return Update::compile(make_document(op, make_document("a", arg))).apply(doc).document;
  };
  for (const char* op : {"$push", "$addToSet"}) {
    for (int first : {0, 1, 5}) {
      for (int second : {0, 1, 6}) {
        SCOPED_TRACE(std::string(op) + " " + std::to_string(first) + "+" + std::to_string(second));
        std::vector<int> a, b, both;
        for (int i = 0; i < first; ++i) a.push_back(100 + i);
        for (int i = 0; i < second; ++i) b.push_back(200 + i);
        both = a;
        both.insert(both.end(), b.begin(), b.end());
        // {$each: [a...], $each: [b...]}
        DocumentBuilder twice;
        Document ea = each_of(a, {});
        Document eb = each_of(b, {});
        twice.append_elements(ea.view());
        twice.append_elements(eb.view());
        EXPECT_TRUE(same_bytes(run(op, twice.finish()), run(op, each_of(both, {}))));
      }
    }
    // One plain value against $each of it.
    DocumentBuilder one;
    append_value(one, "a", 3001);
    Document one_doc = one.finish();
    Document plain = Update::compile(make_document(op, one_doc)).apply(doc).document;
    EXPECT_TRUE(same_bytes(plain, run(op, each_of({3001}, {}))));
  }
}

// The modifier form is recognised by a $each anywhere in the argument document; without
// one the document is the value pushed.
TEST(UpdateArrayBytes, TheModifierFormIsFoundWhereverEachIs) {
  Document doc = with_array(2, kLayouts[0].key);
  auto run = [&](const Document& update) { return Update::compile(update).apply(doc).document; };
  Document each_first = run(make_document(
      "$push", make_document("a", make_document("$each", bson::make_array(1, 2), "$slice", -3))));
  Document each_last = run(make_document(
      "$push", make_document("a", make_document("$slice", -3, "$each", bson::make_array(1, 2)))));
  EXPECT_TRUE(same_bytes(each_first, each_last));
  Document plain = run(make_document("$push", make_document("a", make_document("x", 1, "y", 2))));
  Document wrapped = run(make_document(
      "$push",
      make_document("a", make_document("$each", bson::make_array(make_document("x", 1, "y", 2))))));
  EXPECT_TRUE(same_bytes(plain, wrapped));
}

TEST(UpdateArrayBytes, MissingAndEmptyArraysGetOnlyTheNewElements) {
  Document missing = make_document("_id", 1);
  EXPECT_EQ(Update::compile(make_document("$push", make_document("a", 5))).apply(missing).document,
            make_document("_id", 1, "a", bson::make_array(5)));
  EXPECT_EQ(
      Update::compile(make_document("$addToSet", make_document("a", 5))).apply(missing).document,
      make_document("_id", 1, "a", bson::make_array(5)));
  Document empty = make_document("_id", 1, "a", bson::make_array());
  EXPECT_EQ(Update::compile(make_document("$push", make_document("a", 5))).apply(empty).document,
            make_document("_id", 1, "a", bson::make_array(5)));
}

}  // namespace
}  // namespace mongostore::engine
