// The stored-field helpers ExecutionStore's parts share: the commit path, the timer sweep and
// the outbox / spawn queues read and write the same document layout
// (docs/execution-store.md) and report a malformed document the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"

namespace mongostore::exec {

// The BSON names every part of the store uses (the store's own namespace: not exported).
using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

// A string that goes into BSON as a value: BSON strings must be UTF-8, and a string the
// server would reject must fail here, with its name, before anything is written.
// Throws kBadValue naming `what`.
void check_storable(std::string_view what, std::string_view value);
/// check_storable for a value of a named thing: on failure the message names it as
/// `what` followed by the quoted `id` ("execution 'x' is not valid UTF-8"). The message is
/// built only then: a commit checks several such values and its ids rarely fit in a short
/// string.
void check_storable(std::string_view what, std::string_view id, std::string_view value);

// 'id', for messages.
std::string quoted(std::string_view id);

// The document's _id as a string (its JSON when it is not one).
std::string id_of(bson::DocumentView doc);

// entry[key] as an exact integer / a string; kFailedToParse naming `where` and the key
// otherwise.
int64_t integer_field(bson::DocumentView entry, std::string_view key, std::string_view where);
std::string string_field(bson::DocumentView entry, std::string_view key, std::string_view where);

}  // namespace mongostore::exec
