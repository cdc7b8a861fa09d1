#include "engine/query/type_brackets.h"

#include <cmath>
#include <string_view>
#include <utility>

#include "engine/query/bound_constants.h"

namespace mongostore::engine {
namespace {

// Brackets in index order.
enum Bracket { kMin, kNumber, kString, kObject, kOid, kBool, kDate, kTimestamp, kMax, kCount };

// Each bracket's ends (bound_constants.h), as mongod's appendMinForType / appendMaxForType give
// them.
constexpr std::pair<BoundConstant, BoundConstant> kEnds[kCount] = {
    {BoundConstant::kMinKey, BoundConstant::kMinKey},
    {BoundConstant::kNaN, BoundConstant::kInfinity},
    {BoundConstant::kEmptyString, BoundConstant::kEmptyObject},
    {BoundConstant::kEmptyObject, BoundConstant::kEmptyArray},
    {BoundConstant::kObjectIdMin, BoundConstant::kObjectIdMax},
    {BoundConstant::kFalse, BoundConstant::kTrue},
    {BoundConstant::kDateMin, BoundConstant::kDateMax},
    {BoundConstant::kTimestampMin, BoundConstant::kTimestampMax},
    {BoundConstant::kMaxKey, BoundConstant::kMaxKey}};

std::optional<Bracket> bracket_of_code(long long code) {
  switch (code) {
    case 1:
    case 16:
    case 18:
    case 19:
      return kNumber;
    case 2:
    case 14:
      return kString;
    case 3:
      return kObject;
    case 7:
      return kOid;
    case 8:
      return kBool;
    case 9:
      return kDate;
    case 17:
      return kTimestamp;
    case -1:
      return kMin;
    case 127:
      return kMax;
    default:
      return std::nullopt;
  }
}

constexpr std::pair<std::string_view, long long> kAliases[] = {
    {"double", 1},   {"string", 2},  {"object", 3},   {"objectId", 7},   {"bool", 8},
    {"date", 9},     {"symbol", 14}, {"int", 16},     {"timestamp", 17}, {"long", 18},
    {"decimal", 19}, {"minKey", -1}, {"maxKey", 127}, {"number", 1}};

std::optional<Bracket> bracket_of(const bson::Value& v) {
  if (v.is_string()) {
    for (const auto& [name, code] : kAliases) {
      if (name == v.as_string()) return bracket_of_code(code);
    }
    return std::nullopt;
  }
  if (v.is_number()) {
    double d = v.number_as_double();
    if (!(d >= -1 && d <= 127) || d != std::floor(d)) return std::nullopt;
    return bracket_of_code(static_cast<long long>(d));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<TypeBracket>> type_brackets(const bson::Value& operand) {
  bool wanted[kCount] = {};
  if (operand.is_array()) {
    bool any = false;
    for (const bson::Element& e : operand.as_array()) {
      std::optional<Bracket> b = bracket_of(e.value);
      if (!b) return std::nullopt;
      wanted[*b] = any = true;
    }
    if (!any) return std::nullopt;
  } else {
    std::optional<Bracket> b = bracket_of(operand);
    if (!b) return std::nullopt;
    wanted[*b] = true;
  }
  std::vector<TypeBracket> out;
  for (int b = 0; b < kCount; ++b) {
    if (wanted[b]) {
      out.push_back(TypeBracket{bound_constant(kEnds[b].first), bound_constant(kEnds[b].second)});
    }
  }
  return out;
}

}  // namespace mongostore::engine
