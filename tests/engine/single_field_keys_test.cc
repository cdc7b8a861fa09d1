// IndexKeyGenerator's single-field path (most indexes) against its compound path: the keys of
// {f: d} must be the keys of {f: d, zz: 1} (zz missing: a constant null part at the end)
// without that part, in the same order, with the same values and multikey flag, for random
// documents of nested arrays and documents, ascending and descending, sparse or not; and the
// keys are appended after what the output already holds.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/index_key_generator.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using mongostore::testing::J;

void random_value(std::mt19937& rng, bson::DocumentBuilder& b, const std::string& key, int depth) {
  switch (depth > 2 ? rng() % 4 : rng() % 7) {
    case 0:
      b.append(key, static_cast<int32_t>(rng() % 4));
      return;
    case 1:
      b.append(key, 0.5 * (rng() % 4));
      return;
    case 2:
      b.append(key, std::string(rng() % 3, 'a'));
      return;
    case 3:
      b.append(key, bson::Null{});
      return;
    case 4:
    case 5: {
      b.open_array(key);
      for (size_t n = rng() % 4, i = 0; i < n; ++i)
        random_value(rng, b, std::to_string(i), depth + 1);
      b.close();
      return;
    }
    default: {
      b.open_document(key);
      for (const char* k : {"a", "b", "0"}) {
        if (rng() % 2) random_value(rng, b, k, depth + 1);
      }
      b.close();
      return;
    }
  }
}

TEST(SingleFieldKeys, AreTheCompoundKeysWithoutAConstantPart) {
  std::mt19937 rng(29);
  std::string null_part;
  bson::append_index_key(null_part, J(R"({"v": null})").view().get("v"), false);
  for (const char* path : {"a", "a.b", "a.0", "a.b.a", "a.0.b"}) {
    for (int direction : {1, -1}) {
      for (bool sparse : {false, true}) {
        bson::DocumentBuilder single_pattern, compound_pattern;
        single_pattern.append(path, direction);
        compound_pattern.append(path, direction).append("zz", 1);
        bson::Document options = bson::make_document("sparse", sparse);
        IndexDescriptor single =
            IndexDescriptor::parse(single_pattern.finish().view(), options.view());
        IndexDescriptor compound =
            IndexDescriptor::parse(compound_pattern.finish().view(), options.view());
        for (int round = 0; round < 300; ++round) {
          bson::DocumentBuilder b;
          if (rng() % 8) random_value(rng, b, "a", 0);
          if (rng() % 2) b.append("zz_not", 1);
          bson::Document doc = b.finish();
          std::vector<GeneratedKey> got(1, GeneratedKey{"kept", {}}), want;
          bool got_multikey = false, want_multikey = false;
          IndexKeyGenerator(single).generate(doc.view(), &got, &got_multikey);
          IndexKeyGenerator(compound).generate(doc.view(), &want, &want_multikey);
          const std::string where = std::string(path) + " " + doc.view().to_json();
          ASSERT_EQ(got[0].bytes, "kept") << where;
          ASSERT_EQ(got.size() - 1, want.size()) << where;
          EXPECT_EQ(got_multikey, want_multikey) << where;
          for (size_t i = 0; i < want.size(); ++i) {
            const GeneratedKey& g = got[i + 1];
            ASSERT_EQ(g.bytes + null_part, want[i].bytes) << where;
            ASSERT_EQ(g.values.size(), 1u) << where;
            EXPECT_TRUE(g.values[0].identical(want[i].values[0])) << where;
          }
        }
      }
    }
  }
}

// first_key is the first key generate() lists, for the single-field path (random documents as
// above) and the compound one, partial and sparse indexes skipping a document included.
TEST(FirstKey, IsTheFirstKeyGenerateLists) {
  std::mt19937 rng(31);
  std::vector<IndexDescriptor> indexes;
  for (const char* path : {"a", "a.b", "a.0", "a.b.a"}) {
    for (int direction : {1, -1}) {
      for (bool sparse : {false, true}) {
        bson::DocumentBuilder pattern;
        pattern.append(path, direction);
        indexes.push_back(IndexDescriptor::parse(pattern.finish().view(),
                                                 bson::make_document("sparse", sparse).view()));
      }
    }
  }
  indexes.push_back(
      IndexDescriptor::parse(J(R"({"a.b": 1, "zz_not": -1})").view(), bson::Document().view()));
  indexes.push_back(IndexDescriptor::parse(
      J(R"({"a": 1})").view(),
      J(R"({"partialFilterExpression": {"zz_not": {"$exists": true}}})").view()));
  for (const IndexDescriptor& d : indexes) {
    for (int round = 0; round < 300; ++round) {
      bson::DocumentBuilder b;
      if (rng() % 8) random_value(rng, b, "a", 0);
      if (rng() % 2) b.append("zz_not", 1);
      bson::Document doc = b.finish();
      std::vector<GeneratedKey> keys;
      bool multikey = false;
      IndexKeyGenerator(d).generate(doc.view(), &keys, &multikey);
      const std::optional<std::string> first = IndexKeyGenerator(d).first_key(doc.view());
      const std::string where = d.name() + " " + doc.view().to_json();
      ASSERT_EQ(first.has_value(), !keys.empty()) << where;
      if (first) {
        EXPECT_EQ(*first, keys.front().bytes) << where;
      }
    }
  }
}

}  // namespace
}  // namespace mongostore::engine
