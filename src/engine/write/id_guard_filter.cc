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
  for (const bson::Element& e : filter) {
    bson::Value stored = doc.get(e.key);
    if (stored.is_array()) return Outcome::kUndecided;
    if (e.value.is_document()) {  // {$exists: true}
      if (stored.is_missing()) return Outcome::kNoMatch;
      continue;
    }
    // A missing field never equals a (non-null) scalar.
    if (stored.is_missing() || !bson::values_equal(stored, e.value)) return Outcome::kNoMatch;
  }
  return Outcome::kMatch;
}

}  // namespace mongostore::engine
