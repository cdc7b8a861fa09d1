#include "engine/write/id_guard_filter.h"

#include <array>

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

// {$exists: true}: the field is present (ExecutionStore guards trace_next so).
bool exists_true(const bson::Value& v) {
  if (!v.is_document()) return false;
  bson::DocumentView d = v.as_document();
  auto it = d.begin();
  if (it == d.end() || it->key != "$exists" || it->value.type() != bson::BsonType::kBool ||
      !it->value.as_bool()) {
    return false;
  }
  return ++it == d.end();
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
  for (const bson::Element& e : filter) {
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
  // The stored document is walked once for all the guards (a lookup per guard would walk its
  // front again each time); a filter of more guards than fit here looks each one up.
  constexpr size_t kMaxWalked = 8;
  std::array<bson::Element, kMaxWalked> guards;
  std::array<bson::Value, kMaxWalked> stored;
  size_t n = 0;
  for (const bson::Element& e : filter) {
    if (n == kMaxWalked) {
      n = kMaxWalked + 1;
      break;
    }
    guards[n++] = e;
  }
  if (n <= kMaxWalked) {
    size_t left = n;
    for (const bson::Element& d : doc) {
      for (size_t i = 0; i < n; ++i) {
        // The first of duplicate names counts, as DocumentView::get.
        if (stored[i].is_missing() && guards[i].key == d.key) {
          stored[i] = d.value;
          --left;
        }
      }
      if (left == 0) break;
    }
  } else {
    n = 0;
    for (const bson::Element& e : filter) {
      if (n == kMaxWalked) break;
      guards[n] = e;
      stored[n++] = doc.get(e.key);
    }
    // The rest, beyond kMaxWalked.
    size_t i = 0;
    for (const bson::Element& e : filter) {
      if (i++ < kMaxWalked) continue;
      Outcome o = test_one(e.value, doc.get(e.key));
      if (o != Outcome::kMatch) return o;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Outcome o = test_one(guards[i].value, stored[i]);
    if (o != Outcome::kMatch) return o;
  }
  return Outcome::kMatch;
}

}  // namespace mongostore::engine
