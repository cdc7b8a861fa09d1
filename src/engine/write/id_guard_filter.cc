#include "engine/write/id_guard_filter.h"

#include <array>

#include "bson/raw_elements.h"
#include "mongostore/bson/compare.h"

namespace mongostore::engine {

namespace {

// Values whose filter equality is plain compare_values equality with a stored scalar.
bool plain_scalar(const bson::Value& v) {
  switch (v.type()) {
    case bson::BsonType::kDouble:
    case bson::BsonType::kInt32:
    case bson::BsonType::kInt64:
    case bson::BsonType::kDecimal128:
    case bson::BsonType::kString:
    case bson::BsonType::kObjectId:
    case bson::BsonType::kBool:
    case bson::BsonType::kDateTime:
    case bson::BsonType::kTimestamp:
      return true;
    default:
      return false;
  }
}

// {$exists: true}: the field is present (ExecutionStore guards trace_next so). Read in place
// (bson/raw_elements.h), as the filter's elements are.
bool exists_true(const bson::Value& v) {
  if (!v.is_document() || v.size() <= 5 || v.data()[4] == 0) return false;
  const uint8_t* const end = v.data() + v.size() - 1;
  bson::Element e;
  const uint8_t* next = bson::read_element(v.data() + 4, &e);
  if (e.key != "$exists" || e.value.type() != bson::BsonType::kBool || !e.value.as_bool()) {
    return false;
  }
  return next >= end || *next == 0;  // the only element
}

}  // namespace

IdGuardFilter::Outcome IdGuardFilter::test_one(const bson::Value& guard,
                                               const bson::Value& stored) {
  if (stored.is_array()) return Outcome::kUndecided;
  if (guard.is_document()) {  // {$exists: true}
    return stored.is_missing() ? Outcome::kNoMatch : Outcome::kMatch;
  }
  // A missing field never equals a (non-null) scalar.
  if (stored.is_missing() || !bson::values_equal(stored, guard)) return Outcome::kNoMatch;
  return Outcome::kMatch;
}

std::optional<bson::Value> IdGuardFilter::recognise(bson::DocumentView filter,
                                                    const UpdateOptions& options) {
  if (options.upsert || options.update_is_pipeline || !options.array_filters.empty() ||
      !options.hint.empty() || !options.sort.empty() || !options.let.empty() ||
      !options.collation.empty()) {
    return std::nullopt;
  }
  std::optional<bson::Value> id;
  // The filter's elements read in place, as IdGuardFilter::test reads them (no iterator call
  // per element).
  const uint8_t* const end = filter.data() + filter.size() - 1;
  bson::Element e;
  for (const uint8_t* p = filter.data() + 4; p < end && *p != 0;) {
    p = bson::read_element(p, &e);
    if (e.key.empty() || e.key[0] == '$' || e.key.find('.') != std::string_view::npos) {
      return std::nullopt;
    }
    if (e.key == "_id") {
      if (!plain_scalar(e.value)) return std::nullopt;
      if (id) return std::nullopt;  // two _id guards: left to the matcher
      id = e.value;
    } else if (!plain_scalar(e.value) && !exists_true(e.value)) {
      return std::nullopt;
    }
  }
  return id;
}

IdGuardFilter::Outcome IdGuardFilter::test(bson::DocumentView filter, bson::DocumentView doc) {
  // The stored document is walked once for all the guards, over its raw bytes (a lookup per
  // guard would walk its front again each time); a filter of more guards than fit here looks
  // each one up.
  constexpr size_t kMaxWalked = 8;
  std::array<bson::Element, kMaxWalked> guards;
  std::array<bson::Value, kMaxWalked> stored;
  std::array<bool, kMaxWalked> found{};
  size_t n = 0;
  const uint8_t* const filter_end = filter.data() + filter.size() - 1;
  for (const uint8_t* p = filter.data() + 4; p < filter_end && *p != 0;) {
    if (n == kMaxWalked) {
      n = kMaxWalked + 1;
      break;
    }
    p = bson::read_element(p, &guards[n++]);
  }
  if (n <= kMaxWalked) {
    size_t left = n;
    const uint8_t* const end = doc.data() + doc.size() - 1;
    bson::Element d;
    for (const uint8_t* p = doc.data() + 4; left > 0 && p < end && *p != 0;) {
      p = bson::read_element(p, &d);
      for (size_t i = 0; i < n; ++i) {
        // The first of duplicate names counts, as DocumentView::get.
        if (!found[i] && guards[i].key == d.key) {
          stored[i] = d.value;
          found[i] = true;
          --left;
        }
      }
    }
  } else {
    // Each guard looked up on its own, in the filter's order (the first that does not match
    // decides, as below).
    for (const bson::Element& e : filter) {
      Outcome o = test_one(e.value, doc.get(e.key));
      if (o != Outcome::kMatch) return o;
    }
    return Outcome::kMatch;
  }
  for (size_t i = 0; i < n; ++i) {
    Outcome o = test_one(guards[i].value, stored[i]);
    if (o != Outcome::kMatch) return o;
  }
  return Outcome::kMatch;
}

}  // namespace mongostore::engine
