#include "server/commands/reply_errors.h"

#include "mongostore/bson/utf8.h"
#include "mongostore/engine/engine.h"

namespace mongostore::server {

// {code, codeName, errmsg}, and for a DuplicateKey the index's keyPattern and keyValue (in a
// writeErrors entry and in a command's own error reply alike, as mongod sends them).
void append_error_fields(bson::DocumentBuilder& b, const Error& e) {
  b.append("code", e.code());
  b.append("codeName", e.code_name());
  // Messages echo user input; a reply that is not UTF-8 is one a driver cannot decode.
  b.append("errmsg", bson::to_valid_utf8(e.what()));
  if (const auto* dup = dynamic_cast<const engine::DuplicateKeyError*>(&e)) {
    b.append("keyPattern", dup->key_pattern());
    b.append("keyValue", dup->key_value());
    if (!dup->collation().empty()) {
      // As mongod: which keyValue fields are hex-encoded sort keys, and under what collation.
      b.open_array("hexEncoded");
      for (bool hex : dup->hex_encoded()) b.push(hex);
      b.close();
      b.append("collation", dup->collation());
    }
  }
  if (const auto* invalid = dynamic_cast<const DocumentValidationError*>(&e)) {
    b.append("errInfo", invalid->err_info());
  }
}

// A writeErrors entry: {index, code, codeName, errmsg, keyPattern, keyValue}.
void push_write_error(bson::DocumentBuilder& errors, int64_t index, const Error& e) {
  errors.push_document();
  errors.append("index", static_cast<int32_t>(index));
  append_error_fields(errors, e);
  errors.close();
}

bson::Document error_reply(const Error& e) {
  bson::DocumentBuilder b;
  b.append("ok", 0.0);
  append_error_fields(b, e);
  if (!e.labels().empty()) {
    b.open_array("errorLabels");
    for (const std::string& label : e.labels()) b.push(label);
    b.close();
  }
  return b.finish();
}

}  // namespace mongostore::server
