// Reading an explain_find document (MongoDB's queryPlanner / executionStats shape) in tests.
#pragma once

#include <cstdint>
#include <string>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

/// queryPlanner.winningPlan.stage: "IDHACK", "FETCH" (over an IXSCAN), "COLLSCAN", "SORT".
inline std::string plan_stage(const bson::Document& explain) {
  return std::string(explain.get_path("queryPlanner.winningPlan.stage").as_string());
}

/// The index the winning plan reads, or "" for none.
inline std::string plan_index(const bson::Document& explain) {
  bson::Value v = explain.get_path("queryPlanner.winningPlan.inputStage.indexName");
  return v.is_string() ? std::string(v.as_string()) : std::string();
}

/// executionStats.<name>: nReturned, totalKeysExamined, totalDocsExamined.
inline int64_t plan_stat(const bson::Document& explain, const char* name) {
  return explain.get("executionStats").as_document().get(name).as_int64();
}

}  // namespace mongostore::testing
