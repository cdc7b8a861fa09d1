#include "exec/field_reader.h"

#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"
#include "mongostore/error.h"

namespace mongostore::exec {

void FieldReader::fail(std::string_view key, std::string_view problem) const {
  throw Error(ErrorCode::kFailedToParse,
              what_ + "." + std::string(key) + ": " + std::string(problem));
}

std::string FieldReader::required_string(std::string_view key) const {
  return required_string(key, doc_.get(key));
}

std::string FieldReader::required_string(std::string_view key, const bson::Value& v) const {
  if (v.is_missing()) fail(key, "missing");
  if (!v.is_string()) fail(key, "expected a string, got " + std::string(type_alias(v.type())));
  return std::string(v.as_string());
}

std::string FieldReader::string(std::string_view key, std::string_view fallback) const {
  bson::Value v = doc_.get(key);
  if (v.is_missing()) return std::string(fallback);
  if (!v.is_string()) fail(key, "expected a string, got " + std::string(type_alias(v.type())));
  return std::string(v.as_string());
}

std::optional<std::string> FieldReader::optional_string(std::string_view key) const {
  return optional_string(key, doc_.get(key));
}

std::optional<std::string> FieldReader::optional_string(std::string_view key,
                                                        const bson::Value& v) const {
  if (v.is_missing() || v.is_null()) return std::nullopt;
  if (!v.is_string()) {
    fail(key, "expected a string or null, got " + std::string(type_alias(v.type())));
  }
  return std::string(v.as_string());
}

bool FieldReader::boolean(std::string_view key, bool fallback) const {
  bson::Value v = doc_.get(key);
  if (v.is_missing()) return fallback;
  if (v.type() != bson::BsonType::kBool) {
    fail(key, "expected a boolean, got " + std::string(type_alias(v.type())));
  }
  return v.as_bool();
}

int64_t FieldReader::integer(std::string_view key, int64_t fallback) const {
  bson::Value v = doc_.get(key);
  if (v.is_missing()) return fallback;
  int64_t out = 0;
  if (!v.is_number() || !v.number_as_exact_int64(&out)) {
    fail(key, "expected an integer, got " +
                  (v.is_number() ? v.to_json() : std::string(type_alias(v.type()))));
  }
  return out;
}

bson::DocumentView FieldReader::document(std::string_view key) const {
  return document(key, doc_.get(key));
}

bson::DocumentView FieldReader::document(std::string_view key, const bson::Value& v) const {
  if (v.is_missing() || v.is_null()) return bson::DocumentView();
  if (!v.is_document()) fail(key, "expected an object, got " + std::string(type_alias(v.type())));
  return v.as_document();
}

bson::DocumentView FieldReader::array(std::string_view key) const {
  bson::Value v = doc_.get(key);
  if (v.is_missing() || v.is_null()) return bson::DocumentView();
  if (!v.is_array()) fail(key, "expected an array, got " + std::string(type_alias(v.type())));
  return v.as_array();
}

}  // namespace mongostore::exec
