// How a mongostore::Error appears in a reply, as mongod shapes it: a command's error reply
// ({ok: 0, code, codeName, errmsg, ...}) and a write's `writeErrors` entry ({index, code,
// codeName, errmsg, ...}). A DuplicateKey error adds its index's keyPattern and keyValue, a
// DocumentValidationFailure its errInfo. Messages are made valid UTF-8 (they echo user
// input, and a reply that is not UTF-8 is one a driver cannot decode).
#pragma once

#include <cstdint>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore::server {

/// Appends {code, codeName, errmsg} and the error's own fields (keyPattern / keyValue,
/// errInfo).
void append_error_fields(bson::DocumentBuilder& b, const Error& e);

/// Pushes one writeErrors entry {index, code, codeName, errmsg, ...} onto an open array.
void push_write_error(bson::DocumentBuilder& errors, int64_t index, const Error& e);

/// A command's error reply: {ok: 0.0, code, codeName, errmsg, ...}.
bson::Document error_reply(const Error& e);

}  // namespace mongostore::server
