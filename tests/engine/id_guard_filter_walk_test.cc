// IdGuardFilter::test walks the stored document's raw bytes once for all the guards; this
// checks it against its definition (each guard against DocumentView::get of its name, in the
// filter's order, the first guard that does not match deciding) on random documents and
// filters: duplicate names on either side, missing fields, arrays, numbers of other types,
// {$exists: true}, and more guards than one walk holds.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/write/id_guard_filter.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"

namespace mongostore::engine {
namespace {

using O = IdGuardFilter::Outcome;

O by_definition(bson::DocumentView filter, bson::DocumentView doc) {
  for (const bson::Element& g : filter) {
    bson::Value stored = doc.get(g.key);
    if (stored.is_array()) return O::kUndecided;
    if (g.value.is_document()) {
      if (stored.is_missing()) return O::kNoMatch;
      continue;
    }
    if (stored.is_missing() || !bson::values_equal(stored, g.value)) return O::kNoMatch;
  }
  return O::kMatch;
}

TEST(IdGuardFilterWalk, AgreesWithTheDefinition) {
  std::mt19937 rng(29);
  auto key = [&] {
    return std::string(1, static_cast<char>('a' + rng() % 6)) + (rng() % 4 ? "" : "x");
  };
  auto append_value = [&](bson::DocumentBuilder& b, const std::string& k) {
    switch (rng() % 6) {
      case 0:
        b.append(k, static_cast<int32_t>(rng() % 3));
        return;
      case 1:
        b.append(k, static_cast<double>(rng() % 3));
        return;
      case 2:
        b.append(k, std::string(1, static_cast<char>('p' + rng() % 2)));
        return;
      case 3:
        b.open_array(k).push(static_cast<int32_t>(rng() % 3)).close();
        return;
      case 4:
        b.append(k, static_cast<int64_t>(rng() % 3));
        return;
      default:
        b.append(k, rng() % 2 == 0);
        return;
    }
  };
  int decided[3] = {0, 0, 0};
  for (int round = 0; round < 20000; ++round) {
    bson::DocumentBuilder d;
    d.append("_id", 1);
    for (size_t n = rng() % 12, i = 0; i < n; ++i) append_value(d, key());
    bson::Document doc = d.finish();
    bson::DocumentBuilder f;
    f.append("_id", 1);
    for (size_t n = rng() % 11, i = 0; i < n; ++i) {
      std::string k = key();
      if (rng() % 5 == 0) {
        f.open_document(k).append("$exists", true).close();
      } else {
        switch (rng() % 4) {  // guards are scalars, never arrays
          case 0:
            f.append(k, static_cast<int32_t>(rng() % 3));
            break;
          case 1:
            f.append(k, static_cast<double>(rng() % 3));
            break;
          case 2:
            f.append(k, std::string(1, static_cast<char>('p' + rng() % 2)));
            break;
          default:
            f.append(k, rng() % 2 == 0);
            break;
        }
      }
    }
    bson::Document filter = f.finish();
    O want = by_definition(filter.view(), doc.view());
    ASSERT_EQ(IdGuardFilter::test(filter.view(), doc.view()), want)
        << filter.view().to_json() << " against " << doc.view().to_json();
    ++decided[static_cast<int>(want)];
  }
  // Every outcome was exercised.
  EXPECT_GT(decided[0], 100);
  EXPECT_GT(decided[1], 100);
  EXPECT_GT(decided[2], 100);
}

}  // namespace
}  // namespace mongostore::engine
