// ValidationErrorDetails: why a document failed a collection's validator, as mongod 5.0+
// explains it in a DocumentValidationFailure's `errInfo.details`.
//
// Built only on the failure path (a write that passes never pays for it), from the validator
// as given and the failing document. The shapes follow mongod's doc_validation_error
// generator:
//   {operatorName: "$jsonSchema", [title], [description], schemaRulesNotSatisfied: [
//      {operatorName: "properties", propertiesNotSatisfied: [
//         {propertyName: "a", [title], [description], details: [
//            {operatorName: "minimum", specifiedAs: {minimum: 1}, reason: "comparison failed",
//             consideredValue: 0}]}]},
//      {operatorName: "required", specifiedAs: {required: [...]}, missingProperties: [...]},
//      ...]}
// with one entry per failing keyword, in mongod's keyword order (pattern, maxLength,
// minLength, multipleOf, maximum, minimum; minItems, maxItems, uniqueItems, items,
// additionalItems; properties, additionalProperties / patternProperties, required,
// minProperties, maxProperties, dependencies; allOf, anyOf, oneOf, not, enum; type /
// bsonType last). A keyword that constrains one type reports only values of that type; the
// type keyword reports the mismatch. Query operators: `$and` / `$or` (clausesNotSatisfied),
// `$nor` (clausesSatisfied), and the comparison, `$in`, `$exists`, `$type`, `$regex` and
// `$size` leaves with their reason and considered value(s); other operators give
// operatorName and specifiedAs only.
//
// Bounded: a schema or document of any shape costs at most a walk of the failing parts, and
// details larger than kMaxDetailsBytes are replaced by mongod's note ("detailed error was
// too large"). Never throws for a validator that compiled. Thread-safe (no shared state).
#pragma once

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// The largest details document built (mongod bounds its own near the BSON size limit).
inline constexpr size_t kMaxDetailsBytes = 12 * 1024 * 1024;

/// How deep the errInfo may nest (a stored document's limit, as mongod bounds it).
inline constexpr size_t kMaxDetailsDepth = 100;

/// mongod's errInfo for `document` failing `validator`: {failingDocumentId (when the
/// document has an `_id`), details}; {failingDocumentId, note: "detailed error was too
/// large"} past kMaxDetailsBytes; {reason: "generated error was too deeply nested",
/// truncated: true} past kMaxDetailsDepth.
bson::Document validation_error_info(bson::DocumentView validator, bson::DocumentView document);

}  // namespace mongostore::engine
