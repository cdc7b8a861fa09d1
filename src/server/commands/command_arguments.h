// Reading the fields of a command document the way every command family reads them. Each
// function throws mongostore::Error with the code mongod answers for a field of the wrong
// type or shape; none has side effects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"

namespace mongostore::server {

/// The most statements one insert / update / delete may carry (hello's maxWriteBatchSize);
/// also how many documents a getMore without a batchSize returns at most.
inline constexpr int64_t kMaxWriteBatchSize = 100000;

/// A number as an integer (a fractional one truncated); TypeMismatch (14) otherwise.
int64_t as_integer(const bson::Value& v, std::string_view field);

/// `field` of `doc` as an integer; `fallback` when missing or null.
int64_t integer_or(const bson::DocumentView& doc, std::string_view field, int64_t fallback);

/// A copy of the document `field` of `doc`; empty when missing or null, TypeMismatch (14)
/// when not a document.
bson::Document document_or_empty(const bson::DocumentView& doc, std::string_view field);

/// `collation` of a command or statement, validated as mongod does (collation.h's errors;
/// TypeMismatch when not a document): a copy, empty when absent.
bson::Document collation_of(const bson::DocumentView& spec);

/// `hint` of a write, findAndModify, find, aggregate or count: an index name or a key
/// pattern (empty when absent); FailedToParse (9) otherwise.
engine::IndexHint hint_of(const bson::DocumentView& spec);

/// The array `field` of `doc`; FailedToParse (9) when it is missing or not an array.
bson::DocumentView required_array(const bson::DocumentView& doc, std::string_view field);

/// The collection named by the field `command` of `cmd` (a command's first field);
/// InvalidNamespace (73) when it is not a non-empty string.
std::string collection_name(const bson::DocumentView& cmd, std::string_view command);

/// Whether an update document is made of update operators ($set, ...) rather than being a
/// replacement document.
bool is_operator_update(const bson::DocumentView& update);

}  // namespace mongostore::server
