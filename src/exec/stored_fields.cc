#include "exec/stored_fields.h"

#include "exec/utf8.h"
#include "mongostore/error.h"

namespace mongostore::exec {

// A string that goes into BSON as a value: BSON strings must be UTF-8, and a string the
// server would reject must fail here, with its name, before anything is written.
void check_storable(std::string_view what, std::string_view value) {
  if (!is_valid_utf8(value)) {
    throw Error(ErrorCode::kBadValue, std::string(what) + " is not valid UTF-8");
  }
}

void check_storable(std::string_view what, std::string_view id, std::string_view value) {
  if (!is_valid_utf8(value)) check_storable(std::string(what) + quoted(id), value);
}

std::string quoted(std::string_view id) {
  return "'" + std::string(id) + "'";
}

std::string id_of(DocumentView doc) {
  bson::Value id = doc.get("_id");
  return id.is_string() ? std::string(id.as_string()) : id.to_json();
}

int64_t integer_field(DocumentView entry, std::string_view key, std::string_view where) {
  int64_t v = 0;
  if (!entry.get(key).number_as_exact_int64(&v)) {
    throw Error(ErrorCode::kFailedToParse,
                std::string(where) + ": `" + std::string(key) + "` is not an integer");
  }
  return v;
}

std::string string_field(DocumentView entry, std::string_view key, std::string_view where) {
  bson::Value v = entry.get(key);
  if (!v.is_string()) {
    throw Error(ErrorCode::kFailedToParse,
                std::string(where) + ": `" + std::string(key) + "` is not a string");
  }
  return std::string(v.as_string());
}

}  // namespace mongostore::exec
