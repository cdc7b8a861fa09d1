// Parsing and validation of each operator's argument, done once at compile time.
#include <string>

#include "engine/update/internal.h"

namespace mongostore::engine::update_detail {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;

namespace {

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

bool is_plus_minus_one(const Value& v, int* out) {
  if (!v.is_number()) return false;
  double d = v.number_as_double();
  if (d == 1 || d == -1) {
    *out = d > 0 ? 1 : -1;
    return true;
  }
  return false;
}

void parse_sort(PushSpec& spec, const Value& v) {
  static const char* kInvalid =
      "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
      "embedded fields";
  int dir = 0;
  if (is_plus_minus_one(v, &dir)) {
    spec.sort = PushSpec::Sort::kWhole;
    spec.whole_direction = dir;
    return;
  }
  if (!v.is_document()) throw Error(ErrorCode::kBadValue, kInvalid);
  DocumentView pattern = v.as_document();
  if (pattern.empty()) {
    throw Error(ErrorCode::kBadValue,
                "The $sort pattern is empty when it should be a set of fields.");
  }
  for (const auto& e : pattern) {
    if (e.key.empty() || e.key[0] == '$' || e.key.front() == '.' || e.key.back() == '.' ||
        !is_plus_minus_one(e.value, &dir)) {
      throw Error(ErrorCode::kBadValue, kInvalid);
    }
    spec.sort_fields.emplace_back(std::string(e.key), dir);
  }
  spec.sort = PushSpec::Sort::kFields;
}

int64_t integral(const Value& v, bool* ok) {
  int64_t out = 0;
  *ok = v.is_number() && v.number_as_exact_int64(&out);
  return out;
}

}  // namespace

void EachValues::add_one(const Value& v) {
  if (kind_ == Kind::kNone) {
    kind_ = Kind::kOne;
    one_ = v;
    count_ = 1;
    return;
  }
  list_ = to_vector();
  list_.push_back(v);
  kind_ = Kind::kList;
  count_ = list_.size();
}

void EachValues::add_array(DocumentView array) {
  if (kind_ == Kind::kNone) {
    kind_ = Kind::kArray;
    array_ = array;
    count_ = 0;
    for_each([this](const Value&) { ++count_; });
    return;
  }
  // A second $each: both arrays' values, in order.
  std::vector<Value> all = to_vector();
  RawElements elements(array);
  bson::Element e;
  while (elements.next(e)) all.push_back(e.value);
  list_ = std::move(all);
  kind_ = Kind::kList;
  count_ = list_.size();
}

std::vector<Value> EachValues::to_vector() const {
  std::vector<Value> out;
  out.reserve(count_);
  for_each([&out](const Value& v) { out.push_back(v); });
  return out;
}

void parse_push_spec(OpArgs& args, bool is_push) {
  const char* name = is_push ? "$push" : "$addToSet";
  PushSpec& spec = args.push;
  // Walked inline (bson/raw_elements.h): every bound $push / $addToSet runs this.
  bool modifier_form = false;
  if (args.arg.is_document()) {
    RawElements probe(args.arg.as_document());
    bson::Element e;
    while (!modifier_form && probe.next(e)) modifier_form = e.key == "$each";
  }
  if (!modifier_form) {
    spec.each.add_one(args.arg);
    return;
  }
  DocumentView mods = args.arg.as_document();
  RawElements elements(mods);
  bson::Element e;
  while (elements.next(e)) {
    if (e.key == "$each") {
      if (!e.value.is_array()) {
        throw Error(ErrorCode::kBadValue, std::string("The argument to $each in ") + name +
                                              " must be an array but it was of type" +
                                              (is_push ? ": " : " ") + type_of(e.value));
      }
      spec.each.add_array(e.value.as_array());
      continue;
    }
    if (!is_push) {
      throw Error(ErrorCode::kBadValue,
                  "Found unexpected fields after $each in $addToSet: " + mods.to_json());
    }
    if (e.key == "$slice") {
      bool ok = false;
      int64_t n = integral(e.value, &ok);
      if (!ok) {
        throw Error(ErrorCode::kBadValue,
                    "The value for $slice must be an integral value but was given type: " +
                        type_of(e.value));
      }
      spec.slice = n;
    } else if (e.key == "$position") {
      bool ok = false;
      int64_t n = integral(e.value, &ok);
      if (!ok) {
        throw Error(
            ErrorCode::kBadValue,
            "The value for $position must be an integer value, not of type: " + type_of(e.value));
      }
      spec.position = n;
    } else if (e.key == "$sort") {
      parse_sort(spec, e.value);
    } else {
      throw Error(ErrorCode::kBadValue, "Unrecognized clause in $push: " + std::string(e.key));
    }
  }
}

void parse_op_argument(const Op& op, OpArgs& args, const MatcherOptions& matcher_options) {
  const Value& arg = args.arg;
  switch (op.kind) {
    case OpKind::kInc:
    case OpKind::kMul:
      if (!arg.is_number()) {
        throw Error(ErrorCode::kTypeMismatch,
                    std::string("Cannot ") + (op.kind == OpKind::kInc ? "increment" : "multiply") +
                        " with non-numeric argument: {" + describe_element(op.path, arg) + "}");
      }
      break;
    case OpKind::kCurrentDate: {
      static const char* kBad =
          "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: "
          "{field : {$type: 'date'}}}";
      if (arg.type() == BsonType::kBool) break;
      if (!arg.is_document()) {
        throw Error(ErrorCode::kBadValue, op.path + " is not valid type for $currentDate. " +
                                              "Please use a boolean ('true') or a $type "
                                              "expression ({$type: 'timestamp/date'}).");
      }
      DocumentView spec = arg.as_document();
      bool seen = false;
      for (const auto& e : spec) {
        if (e.key != "$type" || !e.value.is_string()) throw Error(ErrorCode::kBadValue, kBad);
        std::string_view t = e.value.as_string();
        if (t == "timestamp") {
          args.timestamp = true;
        } else if (t != "date") {
          throw Error(ErrorCode::kBadValue, kBad);
        }
        seen = true;
      }
      if (!seen) throw Error(ErrorCode::kBadValue, kBad);
      break;
    }
    case OpKind::kBit: {
      if (!arg.is_document()) {
        throw Error(ErrorCode::kBadValue,
                    "The $bit modifier is not compatible with a " + type_of(arg) +
                        ". You must pass in an embedded document: {$bit: {field: {and/or/xor: "
                        "#}}");
      }
      for (const auto& e : arg.as_document()) {
        BitOp bit{BitOp::kAnd, e.value};
        if (e.key == "and") {
          bit.kind = BitOp::kAnd;
        } else if (e.key == "or") {
          bit.kind = BitOp::kOr;
        } else if (e.key == "xor") {
          bit.kind = BitOp::kXor;
        } else {
          throw Error(ErrorCode::kBadValue,
                      "The $bit modifier only supports 'and', 'or', and 'xor', not '" +
                          std::string(e.key) + "' which is an unknown operator: {" +
                          describe_element(e.key, e.value) + "}");
        }
        if (e.value.type() != BsonType::kInt32 && e.value.type() != BsonType::kInt64) {
          throw Error(ErrorCode::kBadValue,
                      "The $bit modifier field must be an Integer(32/64 bit); a '" +
                          type_of(e.value) + "' is not supported here: {" +
                          describe_element(e.key, e.value) + "}");
        }
        args.bits.push_back(bit);
      }
      if (args.bits.empty()) {
        throw Error(ErrorCode::kBadValue,
                    "You must pass in at least one bitwise operation. The format is: {$bit: "
                    "{field: {and/or/xor: #}}");
      }
      break;
    }
    case OpKind::kPush:
    case OpKind::kAddToSet:
      parse_push_spec(args, op.kind == OpKind::kPush);
      break;
    case OpKind::kPop: {
      if (!arg.is_number()) {
        throw Error(ErrorCode::kFailedToParse,
                    "Expected a number in: " + describe_element(op.path, arg));
      }
      double d = arg.number_as_double();
      if (d != 1 && d != -1) {
        throw Error(ErrorCode::kFailedToParse, "$pop expects 1 or -1, found: " + arg.to_json());
      }
      args.pop = d > 0 ? 1 : -1;
      break;
    }
    case OpKind::kPull:
      args.pull = Condition::pull(arg, matcher_options);
      break;
    case OpKind::kPullAll:
      if (!arg.is_array()) {
        throw Error(ErrorCode::kBadValue,
                    "$pullAll requires an array argument but was given a " + type_of(arg));
      }
      break;
    default:
      break;
  }
}

}  // namespace mongostore::engine::update_detail
