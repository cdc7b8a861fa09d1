#include "engine/index_descriptor.h"

#include <algorithm>
#include <cmath>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

// MongoDB writes 1 / -1 directions as given (an int or a double); the name uses the number as
// it is printed, so {a: 1} is "a_1" and {a: -1} is "a_-1".
std::string direction_text(const bson::Value& v) {
  if (v.type() == bson::BsonType::kInt32) return std::to_string(v.as_int32());
  if (v.type() == bson::BsonType::kInt64) return std::to_string(v.as_int64());
  double d = v.number_as_double();
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  return v.to_json();
}

// The storedFields option: distinct top-level field names, checked before any entry is written
// (a name with a dot or a leading `$` could never match a stored document's field).
std::vector<std::string> parse_stored_fields(const bson::Value& v, const IndexDescriptor& d) {
  if (!v.is_array()) {
    throw Error(ErrorCode::kTypeMismatch,
                "storedFields must be an array of field names, not " + v.to_json());
  }
  if (d.is_id_index()) {
    throw Error(ErrorCode::kCannotCreateIndex, "the _id index cannot have storedFields");
  }
  std::vector<std::string> fields;
  for (const bson::Element& e : v.as_array()) {
    if (!e.value.is_string()) {
      throw Error(ErrorCode::kTypeMismatch,
                  "storedFields must hold field names (strings), not " + e.value.to_json());
    }
    std::string name(e.value.as_string());
    if (name.empty() || name[0] == '$' || name.find('.') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      throw Error(ErrorCode::kCannotCreateIndex,
                  "storedFields takes top-level field names (no dot, no leading '$'): " +
                      e.value.to_json());
    }
    if (std::find(fields.begin(), fields.end(), name) != fields.end()) {
      throw Error(ErrorCode::kCannotCreateIndex, "storedFields repeats field '" + name + "'");
    }
    if (fields.size() == IndexDescriptor::kMaxStoredFields) {
      throw Error(ErrorCode::kCannotCreateIndex,
                  "storedFields holds at most " +
                      std::to_string(IndexDescriptor::kMaxStoredFields) + " fields");
    }
    fields.push_back(std::move(name));
  }
  if (fields.empty()) throw Error(ErrorCode::kCannotCreateIndex, "storedFields is empty");
  return fields;
}

bool option_bool(bson::DocumentView options, std::string_view name) {
  bson::Value v = options.get(name);
  if (v.is_missing()) return false;
  return v.truthy();
}

}  // namespace

std::string IndexDescriptor::default_name(bson::DocumentView key_pattern) {
  std::string name;
  for (const bson::Element& e : key_pattern) {
    if (!name.empty()) name += "_";
    name.append(e.key).append("_");
    name += e.value.is_number() ? direction_text(e.value) : std::string(e.value.as_string());
  }
  return name;
}

IndexDescriptor IndexDescriptor::parse(bson::DocumentView key_pattern, bson::DocumentView options,
                                       std::shared_ptr<const Collation> default_collation) {
  IndexDescriptor d;
  if (key_pattern.empty()) {
    throw Error(ErrorCode::kCannotCreateIndex, "Index keys cannot be an empty object.");
  }
  // Counted first: the repeated-field check below compares every pair of fields.
  if (key_pattern.count() > kMaxCompoundKeyFields) throw Error(13103, "too many compound keys");
  for (const bson::Element& e : key_pattern) {
    if (e.key.empty()) {
      throw Error(ErrorCode::kCannotCreateIndex, "Index key cannot be an empty field name.");
    }
    if (e.value.is_string()) {
      throw Error(ErrorCode::kNotImplemented,
                  "index type '" + std::string(e.value.as_string()) +
                      "' is not supported by mongostore (only ascending/descending indexes)");
    }
    if (!e.value.is_number() || e.value.number_as_double() == 0 ||
        std::isnan(e.value.number_as_double())) {
      throw Error(ErrorCode::kCannotCreateIndex,
                  "Values in the index key pattern can only be positive or negative numbers; "
                  "found " +
                      e.value.to_json() + " for field '" + std::string(e.key) + "'");
    }
    for (const IndexField& f : d.fields_) {
      if (f.path == e.key) {
        throw Error(ErrorCode::kCannotCreateIndex,
                    "Index key pattern repeats field '" + std::string(e.key) + "'");
      }
    }
    d.fields_.push_back(IndexField{std::string(e.key), e.value.number_as_double() < 0});
  }
  d.key_pattern_ = bson::Document::copy_of(key_pattern);
  bson::Value name = options.get("name");
  if (!name.is_missing() && !name.is_string()) {
    throw Error(ErrorCode::kTypeMismatch, "The index name must be a string");
  }
  d.name_ = name.is_missing() ? default_name(key_pattern) : std::string(name.as_string());
  if (d.name_.empty()) throw Error(ErrorCode::kCannotCreateIndex, "index name cannot be empty");
  for (const bson::Element& e : options) {
    if (e.key == "name" || e.key == "unique" || e.key == "sparse" ||
        e.key == "partialFilterExpression" || e.key == "v" || e.key == "key" ||
        e.key == "background" || e.key == "collation" || e.key == "storedFields") {
      continue;
    }
    throw Error(ErrorCode::kInvalidOptions,
                "The field '" + std::string(e.key) + "' is not a valid index option");
  }
  bson::Value collation = options.get("collation");
  d.collation_ =
      collation.is_missing() ? std::move(default_collation) : Collation::parse_option(collation);
  d.unique_ = option_bool(options, "unique");
  d.sparse_ = option_bool(options, "sparse");
  bson::Value partial = options.get("partialFilterExpression");
  if (!partial.is_missing()) {
    if (!partial.is_document()) {
      throw Error(ErrorCode::kTypeMismatch, "partialFilterExpression must be an object");
    }
    if (d.sparse_) {
      throw Error(ErrorCode::kCannotCreateIndex,
                  "cannot mix \"partialFilterExpression\" and \"sparse\" options");
    }
    d.partial_expression_ = bson::Document::copy_of(partial.as_document());
    MatcherOptions matcher_options;
    matcher_options.allow_json_schema = false;  // as mongod: not in a partial index filter
    matcher_options.collation = d.collation_;   // as mongod: the index's collation
    d.partial_ = Matcher::compile(d.partial_expression_.view(), matcher_options);
  }
  if (d.is_id_index() && !(d.fields_.size() == 1 && d.fields_[0].path == "_id")) {
    throw Error(ErrorCode::kBadValue, "The index name '_id_' is reserved for the _id index");
  }
  bson::Value stored = options.get("storedFields");
  if (!stored.is_missing()) d.stored_fields_ = parse_stored_fields(stored, d);
  return d;
}

IndexDescriptor IndexDescriptor::from_catalog(bson::DocumentView spec) {
  bson::DocumentBuilder options;
  for (const bson::Element& e : spec) {
    if (e.key == "name" || e.key == "unique" || e.key == "sparse" ||
        e.key == "partialFilterExpression" || e.key == "collation" || e.key == "storedFields") {
      options.append(e.key, e.value);
    }
  }
  bson::Document o = options.finish();
  return parse(spec.get("key").as_document(), o.view());
}

bson::Document IndexDescriptor::to_document() const {
  bson::DocumentBuilder b;
  b.append("v", 2);
  b.append("key", key_pattern_.view());
  b.append("name", name_);
  if (unique_) b.append("unique", true);
  if (sparse_) b.append("sparse", true);
  if (partial_) b.append("partialFilterExpression", partial_expression_.view());
  if (collation_) b.append("collation", collation_->spec().view());
  if (!stored_fields_.empty()) {
    b.open_array("storedFields");
    for (const std::string& f : stored_fields_) b.push(f);
    b.close();
  }
  return b.finish();
}

bson::Document IndexDescriptor::to_catalog(const std::string& table, bool multikey) const {
  bson::DocumentBuilder b;
  b.append_elements(to_document().view());
  if (!table.empty()) b.append("table", table);
  b.append("multikey", multikey);
  return b.finish();
}

bool IndexDescriptor::same_key(const IndexDescriptor& other) const {
  return same_key_pattern(other) && Collation::same(collation_.get(), other.collation_.get());
}

bool IndexDescriptor::same_key_pattern(const IndexDescriptor& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].path != other.fields_[i].path ||
        fields_[i].descending != other.fields_[i].descending) {
      return false;
    }
  }
  return true;
}

bool IndexDescriptor::same_options(const IndexDescriptor& other) const {
  return unique_ == other.unique_ && sparse_ == other.sparse_ &&
         partial_.has_value() == other.partial_.has_value() &&
         partial_expression_.view() == other.partial_expression_.view() &&
         stored_fields_ == other.stored_fields_;
}

bool IndexDescriptor::stores_all(const std::vector<std::string>& fields) const {
  for (const std::string& f : fields) {
    if (std::find(stored_fields_.begin(), stored_fields_.end(), f) == stored_fields_.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace mongostore::engine
