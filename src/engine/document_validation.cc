#include "engine/document_validation.h"

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

void reject_dollar_names(bson::DocumentView d) {
  for (const bson::Element& e : d) {
    if (!e.key.empty() && e.key[0] == '$') {
      throw Error(ErrorCode::kDollarPrefixedFieldName,
                  "_id fields may not contain '$'-prefixed fields: " + std::string(e.key) +
                      " is not valid for storage.");
    }
    if (e.value.is_document() || e.value.is_array()) {
      reject_dollar_names(bson::DocumentView(e.value.data(), e.value.size()));
    }
  }
}

}  // namespace

void validate_id_value(const bson::Value& id) {
  switch (id.type()) {
    case bson::BsonType::kArray:
      throw Error(ErrorCode::kBadValue, "can't use an array for _id");
    case bson::BsonType::kRegex:
      throw Error(ErrorCode::kBadValue, "can't use a regex for _id");
    case bson::BsonType::kUndefined:
      throw Error(ErrorCode::kBadValue, "can't use a undefined for _id");
    case bson::BsonType::kDocument:
      reject_dollar_names(id.as_document());
      break;
    default:
      break;
  }
}

void validate_document_size(size_t size, const char* what) {
  if (size > kMaxDocumentSize) {
    throw Error(ErrorCode::kBSONObjectTooLarge,
                std::string(what) + " too large. size in bytes: " + std::to_string(size) +
                    ", max size: " + std::to_string(kMaxDocumentSize));
  }
}

bson::Document prepare_for_insert(bson::DocumentView document) {
  check_stored_depth(document, /*inserting=*/true);
  bson::Value id = document.get("_id");
  bool id_first = false;
  if (!id.is_missing()) {
    validate_id_value(id);
    auto first = document.begin();
    id_first = first != document.end() && first->key == "_id";
  }
  if (id_first) {
    validate_document_size(document.size(), "object to insert");
    return bson::Document::copy_of(document);
  }
  bson::DocumentBuilder b;
  if (id.is_missing()) {
    b.append("_id", bson::ObjectId::generate());
  } else {
    b.append("_id", id);
  }
  for (const bson::Element& e : document) {
    if (e.key != "_id") b.append(e.key, e.value);
  }
  bson::Document out = b.finish();
  validate_document_size(out.size(), "object to insert");
  return out;
}

void validate_database_name(std::string_view db) {
  if (db.empty()) throw Error(ErrorCode::kInvalidNamespace, "database name cannot be empty");
  if (db.size() >= 64) {
    throw Error(ErrorCode::kInvalidNamespace,
                "database name '" + std::string(db) + "' is longer than 63 characters");
  }
  for (char c : db) {
    if (c == '/' || c == '\\' || c == '.' || c == ' ' || c == '"' || c == '$' || c == '*' ||
        c == '<' || c == '>' || c == ':' || c == '|' || c == '?' || c == '\0') {
      throw Error(ErrorCode::kInvalidNamespace,
                  "Invalid database name: '" + std::string(db) + "' contains '" + c + "'");
    }
  }
}

void validate_collection_name(std::string_view coll) {
  if (coll.empty()) {
    throw Error(ErrorCode::kInvalidNamespace,
                "Invalid namespace specified: collection name is empty");
  }
  if (coll.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidNamespace, "collection names cannot contain a null character");
  }
  if (coll.find('$') != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidNamespace,
                "Invalid collection name: '" + std::string(coll) + "' contains '$'");
  }
  if (coll.front() == '.' || coll.back() == '.') {
    throw Error(ErrorCode::kInvalidNamespace,
                "Invalid collection name: '" + std::string(coll) + "' starts or ends with '.'");
  }
  if (coll.size() > 255) {
    throw Error(ErrorCode::kInvalidNamespace, "collection name is longer than 255 bytes");
  }
}

}  // namespace mongostore::engine
