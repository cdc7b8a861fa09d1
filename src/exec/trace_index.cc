#include "exec/trace_index.h"

#include <algorithm>
#include <limits>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::exec {

bson::Document unstamped_trace_step(bson::DocumentView step) {
  if (!step.has("index")) return bson::Document::copy_of(step);
  bson::DocumentBuilder b;
  for (const bson::Element& e : step) {
    if (e.key != "index") b.append(e.key, e.value);
  }
  return b.finish();
}

std::vector<bson::Document> stamp_trace(const bson::Value& trace, const bson::Value& trace_next,
                                        std::string_view execution_id) {
  std::vector<bson::Document> steps;
  if (!trace.is_array()) return steps;
  for (const bson::Element& e : trace.as_array()) {
    if (!e.value.is_document()) {
      throw Error(ErrorCode::kFailedToParse,
                  "execution '" + std::string(execution_id) + "': a trace step is not a document");
    }
    steps.push_back(bson::Document::copy_of(e.value.as_document()));
  }
  int64_t next = 0;
  if (!trace_next.number_as_exact_int64(&next)) return steps;  // every step is stamped
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (it->has("index")) continue;
    // A stored trace_next this store did not write may be anything: below the smallest
    // int64 there is no index to give, and the remaining steps stay unstamped.
    if (next == std::numeric_limits<int64_t>::min()) break;
    bson::DocumentBuilder b;
    for (const bson::Element& e : *it) b.append(e.key, e.value);
    b.append("index", --next);
    *it = b.finish();
  }
  return steps;
}

int64_t adopted_trace_next(const bson::Value& trace, std::optional<int64_t> counter) {
  int64_t next = counter.value_or(0);
  if (!trace.is_array()) return next;
  for (const bson::Element& e : trace.as_array()) {
    if (!e.value.is_document()) continue;
    int64_t index = 0;
    if (e.value.as_document().get("index").number_as_exact_int64(&index) &&
        index < std::numeric_limits<int64_t>::max()) {
      next = std::max(next, index + 1);
    }
  }
  return next;
}

}  // namespace mongostore::exec
