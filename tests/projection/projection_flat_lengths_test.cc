// The top-level inclusion skips, without comparing names, the elements whose name is of no
// included field's length (lengths from 63 up share one bit): on documents with names of
// every length from 0 to 70, including names one byte longer or shorter than an included
// one and names that share an included one's length, it keeps what the general tree walk
// keeps, byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {
namespace {

using bson::Document;

std::string name_of(size_t length, char c) {
  return std::string(length, c);
}

TEST(ProjectionFlatLengths, SameAsTheTreeForNamesOfEveryLength) {
  bson::DocumentBuilder doc;
  doc.append("_id", 7);
  for (size_t length = 1; length <= 70; ++length) {
    doc.append(name_of(length, 'a'), static_cast<int32_t>(length));
    doc.append(name_of(length, 'b'), std::string(length, 'v'));
  }
  const Document d = doc.finish();
  for (size_t included :
       {size_t{1}, size_t{2}, size_t{8}, size_t{62}, size_t{63}, size_t{64}, size_t{70}}) {
    // Flat: {aaa..: 1} (with `_id`); tree: the same plus nine names absent from the document,
    // past what the flat path takes.
    bson::DocumentBuilder flat, tree;
    flat.append(name_of(included, 'a'), 1);
    tree.append(name_of(included, 'a'), 1);
    for (int i = 0; i < 9; ++i) tree.append("absent" + std::to_string(i), 1);
    const Document flat_spec = flat.finish(), tree_spec = tree.finish();
    const Document by_flat = Projection::compile(flat_spec.view()).apply(d.view());
    const Document by_tree = Projection::compile(tree_spec.view()).apply(d.view());
    EXPECT_EQ(by_flat, by_tree) << included;
    EXPECT_EQ(by_flat.get(name_of(included, 'a')).as_int32(), static_cast<int32_t>(included));
    EXPECT_TRUE(by_flat.get(name_of(included, 'b')).is_missing()) << included;
    EXPECT_EQ(by_flat.get("_id").as_int32(), 7);
  }
}

}  // namespace
}  // namespace mongostore::engine
