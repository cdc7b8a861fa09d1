// StoredForm: a record's fields as the `f` sub-document of its MongoDB document, and back
// (reference §1.1; the table is in include/mongostore/records/schema.h).
//
// Encoding needs the sids of the records a record refers to (they are saved first); decoding
// hands back the sids it found so the caller can fetch those records (in one batch per
// collection) before the record is rebuilt.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/records/schema.h"
#include "mongostore/records/value.h"

namespace mongostore::records {

/// The sid of a referenced record (saving it first when needed).
using SidOf = std::function<int64_t(const Value::RecordPtr&)>;

/// Writes record's `f` document: keys in declaration order, each field's columns in order;
/// None omits an optional field's keys (a None child list is []). SchemaError for a
/// non-optional field given None or a value of the wrong kind.
bson::Document encode_fields(const DynamicRecord& record, const SidOf& sid_of);

/// Appends the columns of one field's value under `f` (used for dedup-by-value filters and
/// the metadata check too).
void encode_field(bson::DocumentBuilder& f, const FieldSchema& field, const Value& value,
                  const SidOf& sid_of);

/// Reads one field back from a stored `f` document. References come back as records of the
/// target schema built by `resolve(target, sid)`. SchemaError names the field when the stored
/// form does not match the schema.
using ResolveSid =
    std::function<Value::RecordPtr(const std::shared_ptr<const RecordSchema>&, int64_t)>;
Value decode_field(bson::DocumentView f, const FieldSchema& field, const ResolveSid& resolve);
/// The same, for a caller that decodes `field` from many documents: `columns` is
/// field.columns(), computed once by the caller instead of once per document.
Value decode_field(bson::DocumentView f, const FieldSchema& field,
                   const std::vector<Column>& columns, const ResolveSid& resolve);

/// The sids of the records `f` refers to, per target schema (for batched prefetch).
void referenced_sids(
    bson::DocumentView f, const RecordSchema& schema,
    const std::function<void(const std::shared_ptr<const RecordSchema>&, int64_t)>& visit);

/// "d;n0,n1,…": a rational matrix's exact text (d the least common denominator).
std::string matrix_exact(const std::vector<Rational>& cells);
/// The cells of matrix_exact()'s text; SchemaError unless it holds `count` numerators.
std::vector<Rational> parse_matrix_exact(std::string_view text, size_t count);

}  // namespace mongostore::records
