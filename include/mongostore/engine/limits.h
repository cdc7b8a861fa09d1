// The bounds the engine puts on untrusted input, with MongoDB's numbers and error codes.
//
// Every entry point that compiles user input (filters, updates, pipelines, expressions,
// projections) or stores a document checks these first, without recursion, so recursive code
// below only ever sees input of bounded depth and length. docs/compatibility.md ("Limits")
// lists them with their codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore::engine {

/// Levels of non-empty embedded documents or arrays a stored document may nest below its top
/// level: MongoDB's documented limit of 100. Inserts, replacements and update results deeper
/// than this fail with Overflow (15).
inline constexpr size_t kMaxStoredDocumentDepth = 100;

/// Nesting allowed in a filter, update, pipeline stage, expression or projection: MongoDB's
/// maxBSONDepth (200), the bound on any command it accepts. Deeper fails with Overflow (15).
inline constexpr size_t kMaxInputDepth = bson::kMaxBsonDepth;

/// Stages in one pipeline (mongod's internalPipelineLengthLimit): more fails with 7749501.
inline constexpr size_t kMaxPipelineLength = 1000;

/// Pipelines nested in pipelines ($lookup, $unionWith, $facet) (mongod's
/// internalMaxSubPipelineViewDepth): deeper fails with MaxSubPipelineDepthExceeded (232).
inline constexpr int kMaxSubPipelineDepth = 20;

/// Fields in an index key pattern or a sort specification: more fails with 13103.
inline constexpr size_t kMaxCompoundKeyFields = 32;

/// The largest document a pipeline may return (mongod's BSONObjMaxInternalSize: 16 MB plus
/// 16 KB); a larger result fails with BSONObjectTooLarge (10334).
inline constexpr size_t kMaxInternalDocumentSize = 16 * 1024 * 1024 + 16 * 1024;

/// Memory one expression may build: the array of a $range, the value a $reduce accumulates, a
/// string $concat or another string operator produces (mongod's internalQueryMaxRangeBytes and
/// its kin, 100 MB). More fails with ExceededMemoryLimit (146).
inline constexpr int64_t kMaxExpressionBytes = 100 * 1024 * 1024;

/// Throws Overflow (15) when `input` (named `what` in the message) nests deeper than
/// kMaxInputDepth.
inline void check_input_depth(bson::DocumentView input, std::string_view what) {
  if (bson::nesting_exceeds(input, kMaxInputDepth)) {
    throw Error(ErrorCode::kOverflow, std::string(what) + " exceeds the maximum nesting depth of " +
                                          std::to_string(kMaxInputDepth));
  }
}

/// Throws Overflow (15) when a document to store nests deeper than kMaxStoredDocumentDepth;
/// `inserting` picks mongod's message for an insert or for an update's result.
inline void check_stored_depth(bson::DocumentView document, bool inserting) {
  if (!bson::nesting_exceeds(document, kMaxStoredDocumentDepth)) return;
  std::string limit = std::to_string(kMaxStoredDocumentDepth);
  throw Error(ErrorCode::kOverflow,
              inserting
                  ? "cannot insert document because it exceeds " + limit + " levels of nesting"
                  : "Document exceeds maximum nesting depth of " + limit);
}

}  // namespace mongostore::engine
