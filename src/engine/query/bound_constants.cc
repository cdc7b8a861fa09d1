#include "engine/query/bound_constants.h"

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

// The values in BoundConstant's order (bound_constant counts them), held by one static document;
// the bracket ends as mongod's appendMinForType / appendMaxForType give them. The keys only name
// them for a reader.
const bson::Document& bound_document() {
  static const bson::Document d = [] {
    bson::DocumentBuilder b;
    b.append("minkey", bson::MinKey{});
    b.append("maxkey", bson::MaxKey{});
    b.append("nan", std::numeric_limits<double>::quiet_NaN());
    b.append("inf", std::numeric_limits<double>::infinity());
    b.append("-inf", -std::numeric_limits<double>::infinity());
    b.append("empty_string", "");
    b.append("empty_object", bson::Document());
    b.append("empty_array", bson::Array());
    b.append("false", false);
    b.append("true", true);
    bson::ObjectId oid_max;
    oid_max.bytes.fill(0xFF);
    b.append("oid_min", bson::ObjectId{});
    b.append("oid_max", oid_max);
    b.append("date_min", bson::DateTime{std::numeric_limits<int64_t>::min()});
    b.append("date_max", bson::DateTime{std::numeric_limits<int64_t>::max()});
    b.append("ts_min", bson::Timestamp{0, 0});
    b.append("ts_max", bson::Timestamp{std::numeric_limits<uint32_t>::max(),
                                       std::numeric_limits<uint32_t>::max()});
    b.append("null", bson::Null{});
    return b.finish();
  }();
  return d;
}

constexpr size_t kCount = static_cast<size_t>(BoundConstant::kCount);

}  // namespace

bson::Value bound_constant(BoundConstant c) {
  // Views into bound_document(), found once: every interval of a range asks for its bracket's
  // ends, also when a kept plan is rebound on each run of a prepared find.
  static const std::array<bson::Value, kCount> all = [] {
    std::array<bson::Value, kCount> out;
    size_t i = 0;
    for (const bson::Element& e : bound_document().view()) {
      if (i < kCount) out[i] = e.value;
      ++i;
    }
    // A value appended to bound_document, or left out, without its enumerator would shift
    // every bound after it: refuse at first use rather than plan with wrong bounds.
    if (i != kCount) {
      throw std::logic_error("bound_document holds " + std::to_string(i) +
                             " values, BoundConstant names " + std::to_string(kCount));
    }
    return out;
  }();
  return all[static_cast<size_t>(c)];
}

}  // namespace mongostore::engine
