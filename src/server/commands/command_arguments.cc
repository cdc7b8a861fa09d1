#include "server/commands/command_arguments.h"

#include "mongostore/engine/collation.h"

#include "mongostore/error.h"

namespace mongostore::server {

using bson::Document;
using bson::DocumentView;
using bson::Value;

int64_t as_integer(const Value& v, std::string_view field) {
  int64_t out = 0;
  if (v.is_number() && v.number_as_exact_int64(&out)) return out;
  if (v.is_number()) return static_cast<int64_t>(v.number_as_double());
  throw Error(ErrorCode::kTypeMismatch, "field '" + std::string(field) + "' must be a number");
}

int64_t integer_or(const DocumentView& doc, std::string_view field, int64_t fallback) {
  Value v = doc.get(field);
  if (v.is_missing() || v.is_null()) return fallback;
  return as_integer(v, field);
}

Document document_or_empty(const DocumentView& doc, std::string_view field) {
  Value v = doc.get(field);
  if (v.is_missing() || v.is_null()) return Document();
  if (!v.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "field '" + std::string(field) + "' must be a document");
  }
  return Document::copy_of(v.as_document());
}

bson::Document collation_of(const bson::DocumentView& spec) {
  bson::Value v = spec.get("collation");
  if (v.is_missing()) return bson::Document();
  engine::Collation::parse_option(v);  // mongod's errors for a bad one
  return bson::Document::copy_of(v.as_document());
}

engine::IndexHint hint_of(const DocumentView& spec) {
  engine::IndexHint hint;
  Value v = spec.get("hint");
  if (v.is_missing()) return hint;
  if (v.is_string()) {
    hint.name = std::string(v.as_string());
  } else if (v.is_document()) {
    hint.keys = Document::copy_of(v.as_document());
  } else {
    throw Error(ErrorCode::kFailedToParse, "hint must be a string or an object");
  }
  return hint;
}

DocumentView required_array(const DocumentView& doc, std::string_view field) {
  Value v = doc.get(field);
  if (!v.is_array()) {
    throw Error(ErrorCode::kFailedToParse, "field '" + std::string(field) + "' must be an array");
  }
  return v.as_array();
}

std::string collection_name(const DocumentView& cmd, std::string_view command) {
  Value v = cmd.get(command);
  if (!v.is_string() || v.as_string().empty()) {
    throw Error(ErrorCode::kInvalidNamespace,
                "collection name for '" + std::string(command) + "' must be a non-empty string");
  }
  return std::string(v.as_string());
}

bool is_operator_update(const DocumentView& update) {
  auto it = update.begin();
  return it != update.end() && !it->key.empty() && it->key[0] == '$';
}

}  // namespace mongostore::server
