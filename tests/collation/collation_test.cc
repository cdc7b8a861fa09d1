// Collation: parsing and validation as mongod does it, and ICU's orders for each option.
#include "mongostore/engine/collation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

std::shared_ptr<const Collation> of(const bson::Document& spec) {
  return Collation::parse(spec.view());
}

int32_t code_of(const bson::Document& spec) {
  try {
    Collation::parse(spec.view());
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(CollationParse, SimpleIsNull) {
  EXPECT_EQ(of(make_document("locale", "simple")), nullptr);
}

TEST(CollationParse, SimpleWithOtherFieldsFailsToParse) {
  EXPECT_EQ(code_of(make_document("locale", "simple", "caseLevel", true)), 9);
}

TEST(CollationParse, MissingLocale) {
  EXPECT_EQ(code_of(make_document()), 40414);
  EXPECT_EQ(code_of(make_document("strength", 2)), 40414);
}

TEST(CollationParse, UnknownField) {
  EXPECT_EQ(code_of(make_document("locale", "en_US", "unknown", "field")), 40415);
}

TEST(CollationParse, WrongTypes) {
  EXPECT_EQ(code_of(make_document("locale", 3)), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "strength", "2")), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "caseLevel", 1)), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "caseFirst", true)), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "numericOrdering", "yes")), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "backwards", 0)), 14);
  EXPECT_EQ(code_of(make_document("locale", "en", "normalization", "on")), 14);
  EXPECT_THROW(Collation::parse_option(bson::Value()), Error);
}

TEST(CollationParse, BadLocales) {
  for (const char* locale : {"", "garbage", "root", "en-US", "en_us", "xx_US", "en_ZZ", "en_",
                             "_en", "en_US@collation=phonebook",
                             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}) {
    EXPECT_EQ(code_of(make_document("locale", locale)), 2) << locale;
  }
  EXPECT_EQ(code_of(make_document("locale", std::string("en_US\0", 6))), 2);
}

TEST(CollationParse, GoodLocales) {
  for (const char* locale : {"en", "en_US", "en_US_POSIX", "fr", "fr_CA", "de",
                             "de@collation=phonebook", "tr", "zh", "ja", "sv"}) {
    EXPECT_NE(of(make_document("locale", locale)), nullptr) << locale;
  }
}

TEST(CollationParse, OutOfRangeValues) {
  EXPECT_EQ(code_of(make_document("locale", "en", "strength", 0)), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "strength", 6)), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "strength", 2.5)), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "caseFirst", "UPPER")), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "alternate", "ignorable")), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "maxVariable", "symbol")), 2);
  EXPECT_EQ(code_of(make_document("locale", "en", "version", "1.0")), 2);
  EXPECT_NE(of(make_document("locale", "en", "version", "57.1")), nullptr);
  EXPECT_NE(of(make_document("locale", "en", "strength", 2.0)), nullptr);
}

TEST(CollationParse, FullySpecifiedSpec) {
  auto c = of(make_document("locale", "en_US", "strength", 2));
  EXPECT_EQ(c->spec().view().to_json(),
            make_document("locale", "en_US", "caseLevel", false, "caseFirst", "off", "strength", 2,
                          "numericOrdering", false, "alternate", "non-ignorable", "maxVariable",
                          "punct", "normalization", false, "backwards", false, "version", "57.1")
                .view()
                .to_json());
  // A locale's own defaults show: Canadian French sorts accents backwards.
  EXPECT_TRUE(of(make_document("locale", "fr_CA"))->spec().view().get("backwards").as_bool());
}

TEST(CollationParse, Same) {
  auto a = of(make_document("locale", "en", "strength", 2));
  auto b = of(make_document("locale", "en", "strength", 2.0, "caseLevel", false));
  auto c = of(make_document("locale", "en"));
  EXPECT_TRUE(Collation::same(a.get(), b.get()));
  EXPECT_FALSE(Collation::same(a.get(), c.get()));
  EXPECT_FALSE(Collation::same(a.get(), nullptr));
  EXPECT_TRUE(Collation::same(nullptr, nullptr));
}

int cmp(const bson::Document& spec, std::string_view a, std::string_view b) {
  return of(spec)->compare(a, b);
}

TEST(CollationCompare, Strengths) {
  // Primary: base letters only.
  EXPECT_EQ(cmp(make_document("locale", "en", "strength", 1), "cote", "Côté"), 0);
  // Secondary: accents count, case does not.
  EXPECT_EQ(cmp(make_document("locale", "en", "strength", 2), "ping", "PING"), 0);
  EXPECT_LT(cmp(make_document("locale", "en", "strength", 2), "cote", "côte"), 0);
  // Tertiary (the default): case counts, lower before upper.
  EXPECT_LT(cmp(make_document("locale", "en"), "a", "A"), 0);
  EXPECT_LT(cmp(make_document("locale", "en"), "A", "b"), 0);
  // Quaternary with shifted punctuation: "ab" and "a-b" differ only at level 4.
  EXPECT_EQ(cmp(make_document("locale", "en", "strength", 3, "alternate", "shifted"), "ab", "a-b"),
            0);
  EXPECT_NE(cmp(make_document("locale", "en", "strength", 4, "alternate", "shifted"), "ab", "a-b"),
            0);
  // Identical: canonically equivalent forms stay equal, case still counts.
  EXPECT_EQ(cmp(make_document("locale", "en", "strength", 5), "\u00e9", "e\u0301"), 0);
  EXPECT_LT(cmp(make_document("locale", "en", "strength", 5), "a", "A"), 0);
}

TEST(CollationCompare, CaseLevelAndCaseFirst) {
  // caseLevel at strength 1: case counts, accents still do not.
  auto cl = make_document("locale", "en", "strength", 1, "caseLevel", true);
  EXPECT_NE(cmp(cl, "a", "A"), 0);
  EXPECT_EQ(cmp(cl, "a", "á"), 0);
  EXPECT_GT(cmp(make_document("locale", "en", "caseFirst", "upper"), "a", "A"), 0);
  EXPECT_LT(cmp(make_document("locale", "en", "caseFirst", "lower"), "a", "A"), 0);
}

TEST(CollationCompare, NumericOrdering) {
  EXPECT_LT(cmp(make_document("locale", "en"), "10", "9"), 0);
  EXPECT_GT(cmp(make_document("locale", "en", "numericOrdering", true), "10", "9"), 0);
}

TEST(CollationCompare, AlternateAndMaxVariable) {
  auto shifted = make_document("locale", "en", "alternate", "shifted");
  EXPECT_EQ(cmp(shifted, "a b", "ab"), 0);
  EXPECT_EQ(cmp(shifted, "a-b", "ab"), 0);
  auto space = make_document("locale", "en", "alternate", "shifted", "maxVariable", "space");
  EXPECT_EQ(cmp(space, "a b", "ab"), 0);
  EXPECT_NE(cmp(space, "a-b", "ab"), 0);
}

TEST(CollationCompare, Backwards) {
  // French accent order: forwards the first accent decides, backwards the last one.
  EXPECT_LT(cmp(make_document("locale", "fr"), "cote", "côte"), 0);
  EXPECT_GT(cmp(make_document("locale", "fr"), "côte", "coté"), 0);
  EXPECT_LT(cmp(make_document("locale", "fr", "backwards", true), "côte", "coté"), 0);
  EXPECT_LT(cmp(make_document("locale", "fr_CA"), "côte", "coté"), 0);
}

TEST(CollationCompare, LanguageOrders) {
  // German: ä sorts with a; phonebook sorts it as ae.
  EXPECT_LT(cmp(make_document("locale", "de"), "Äpfel", "Bäume"), 0);
  EXPECT_EQ(cmp(make_document("locale", "de", "strength", 1), "Straße", "Strasse"), 0);
  EXPECT_LT(cmp(make_document("locale", "de@collation=phonebook"), "Müller", "Muller"), 0);
  // Swedish: ä after z.
  EXPECT_GT(cmp(make_document("locale", "sv"), "ä", "z"), 0);
  // Turkish: I is the capital of dotless ı, not of i.
  EXPECT_EQ(cmp(make_document("locale", "tr", "strength", 2), "I", "ı"), 0);
  EXPECT_NE(cmp(make_document("locale", "tr", "strength", 2), "I", "i"), 0);
  EXPECT_EQ(cmp(make_document("locale", "en", "strength", 2), "I", "i"), 0);
  EXPECT_LT(cmp(make_document("locale", "tr"), "ı", "i"), 0);
  // CJK compare and are not equal to one another.
  EXPECT_NE(cmp(make_document("locale", "zh"), "中", "文"), 0);
}

TEST(CollationSortKey, OrdersAsCompare) {
  auto c = of(make_document("locale", "de", "numericOrdering", true));
  std::vector<std::string> words = {"Zebra", "äpfel",  "Apfel",   "10",   "9",
                                    "",      "straße", "Strasse", "中文", "\xff\xfe"};
  for (const auto& a : words) {
    for (const auto& b : words) {
      int by_key = c->sort_key(a).compare(c->sort_key(b));
      by_key = by_key < 0 ? -1 : (by_key > 0 ? 1 : 0);
      EXPECT_EQ(by_key, c->compare(a, b)) << a << " vs " << b;
    }
  }
  auto ci = of(make_document("locale", "en", "strength", 2));
  EXPECT_EQ(ci->sort_key("Müller"), ci->sort_key("MÜLLER"));
}

TEST(CollationValues, CompareInsideArraysAndDocuments) {
  auto ci = of(make_document("locale", "en", "strength", 2));
  auto a = make_document("x", bson::make_array("A", make_document("n", "B")));
  auto b = make_document("x", bson::make_array("a", make_document("n", "b")));
  EXPECT_NE(bson::compare_documents(a.view(), b.view()), 0);
  EXPECT_EQ(bson::compare_documents(a.view(), b.view(), ci.get()), 0);
  // Field names stay bytes.
  EXPECT_NE(
      bson::compare_documents(make_document("A", 1).view(), make_document("a", 1).view(), ci.get()),
      0);
}

}  // namespace
}  // namespace mongostore::engine
