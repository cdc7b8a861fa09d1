#include "engine/query/type_brackets.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

// The brackets' ends, as mongod's appendMinForType / appendMaxForType give them, held by a
// static document so that the returned values stay valid.
const bson::Document& bracket_ends() {
  static const bson::Document d = [] {
    bson::DocumentBuilder b;
    b.append("minkey", bson::MinKey{});
    b.append("maxkey", bson::MaxKey{});
    b.append("nan", std::numeric_limits<double>::quiet_NaN());
    b.append("inf", std::numeric_limits<double>::infinity());
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
    return b.finish();
  }();
  return d;
}

// Brackets in index order.
enum Bracket { kMin, kNumber, kString, kObject, kOid, kBool, kDate, kTimestamp, kMax, kCount };

constexpr std::pair<const char*, const char*> kEnds[kCount] = {{"minkey", "minkey"},
                                                               {"nan", "inf"},
                                                               {"empty_string", "empty_object"},
                                                               {"empty_object", "empty_array"},
                                                               {"oid_min", "oid_max"},
                                                               {"false", "true"},
                                                               {"date_min", "date_max"},
                                                               {"ts_min", "ts_max"},
                                                               {"maxkey", "maxkey"}};

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
  const bson::Document& ends = bracket_ends();
  std::vector<TypeBracket> out;
  for (int b = 0; b < kCount; ++b) {
    if (wanted[b]) out.push_back(TypeBracket{ends.get(kEnds[b].first), ends.get(kEnds[b].second)});
  }
  return out;
}

}  // namespace mongostore::engine
