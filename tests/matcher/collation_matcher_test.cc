// The matcher under a collation: string comparisons use it, everything else does not.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/collation.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

bool matches(const Document& filter, const Document& doc, const Document& collation) {
  MatcherOptions options;
  options.collation = Collation::parse(collation.view());
  return Matcher::compile(filter.view(), options).matches(doc.view());
}

TEST(MatcherCollation, ComparisonsUseTheCollation) {
  Document ci = make_document("locale", "en", "strength", 2);
  Document doc = make_document("s", "Straße", "a", make_array("X", make_document("k", "Y")), "n", 5,
                               "d", make_document("k", "Ä"));
  EXPECT_TRUE(
      matches(make_document("s", "STRASSE"), doc, make_document("locale", "de", "strength", 1)));
  EXPECT_FALSE(matches(make_document("s", "STRASSE"), doc, ci));
  EXPECT_TRUE(matches(make_document("s", "straße"), doc, ci));
  EXPECT_TRUE(matches(make_document("a", "x"), doc, ci));
  EXPECT_TRUE(matches(make_document("a", make_document("k", "y")), doc, ci));
  EXPECT_TRUE(
      matches(make_document("a", make_document("$elemMatch", make_document("k", "y"))), doc, ci));
  EXPECT_TRUE(matches(make_document("a", make_document("$all", make_array("x"))), doc, ci));
  EXPECT_TRUE(matches(make_document("d", make_document("k", "ä")), doc, ci));
  EXPECT_TRUE(matches(make_document("s", make_document("$in", make_array("STRAßE", 1))), doc, ci));
  EXPECT_FALSE(matches(make_document("s", make_document("$nin", make_array("STRAßE"))), doc, ci));
  EXPECT_TRUE(matches(make_document("s", make_document("$gt", "sa", "$lt", "su")), doc, ci));
  EXPECT_FALSE(matches(make_document("s", make_document("$gt", "sa", "$lt", "su")), doc,
                       make_document("locale", "simple")));
  // Numbers, $regex and $type ignore it.
  EXPECT_TRUE(matches(make_document("n", make_document("$gte", 5)), doc, ci));
  EXPECT_FALSE(matches(make_document("s", make_document("$regex", "^straße$")), doc, ci));
  EXPECT_TRUE(matches(make_document("s", make_document("$type", "string")), doc, ci));
}

}  // namespace
}  // namespace mongostore::engine
