#include "engine/write/id_guard_filter.h"

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

}  // namespace

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
    if (!plain_scalar(e.value)) return std::nullopt;
    if (e.key == "_id") {
      if (id) return std::nullopt;  // two _id guards: left to the matcher
      id = e.value;
    }
  }
  return id;
}

IdGuardFilter::Outcome IdGuardFilter::test(bson::DocumentView filter, bson::DocumentView doc) {
  for (const bson::Element& e : filter) {
    bson::Value stored = doc.get(e.key);
    if (stored.is_array()) return Outcome::kUndecided;
    // A missing field never equals a (non-null) scalar.
    if (stored.is_missing() || !bson::values_equal(stored, e.value)) return Outcome::kNoMatch;
  }
  return Outcome::kMatch;
}

}  // namespace mongostore::engine
