// Bitwise query operators: $bitsAllSet, $bitsAllClear, $bitsAnySet, $bitsAnyClear.
//
// The operand is a non-negative integer bitmask, an array of bit positions, or BinData (a
// little-endian bitmask). They match integral numbers representable as int64 (negative
// numbers in two's complement, sign-extended past bit 63) and BinData values (bits past the
// end are clear).
#include <cstdint>
#include <string>

#include "engine/matcher/expression.h"
#include "mongostore/error.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::Value;

class BitsPredicate final : public Predicate {
 public:
  BitsPredicate(BitsOp op, std::vector<uint32_t> positions)
      : op_(op), positions_(std::move(positions)) {}

  bool test(const Value& v, std::optional<size_t>*) const override {
    if (v.is_number()) {
      int64_t n = 0;
      if (!v.number_as_exact_int64(&n)) return false;
      return check([n](uint32_t pos) { return pos < 64 ? ((n >> pos) & 1) != 0 : n < 0; });
    }
    if (v.type() == BsonType::kBinary) {
      bson::BinaryView b = v.as_binary();
      return check([&b](uint32_t pos) {
        size_t byte = pos / 8;
        return byte < b.bytes.size() && ((b.bytes[byte] >> (pos % 8)) & 1) != 0;
      });
    }
    return false;
  }

 private:
  template <class Bit>
  bool check(Bit bit) const {
    switch (op_) {
      case BitsOp::kAllSet:
        for (uint32_t p : positions_) {
          if (!bit(p)) return false;
        }
        return true;
      case BitsOp::kAllClear:
        for (uint32_t p : positions_) {
          if (bit(p)) return false;
        }
        return true;
      case BitsOp::kAnySet:
        for (uint32_t p : positions_) {
          if (bit(p)) return true;
        }
        return false;
      case BitsOp::kAnyClear:
        for (uint32_t p : positions_) {
          if (!bit(p)) return true;
        }
        return false;
    }
    return false;
  }

  BitsOp op_;
  std::vector<uint32_t> positions_;
};

[[noreturn]] void bad_value(std::string message) {
  throw Error(ErrorCode::kBadValue, std::move(message));
}

}  // namespace

PredicatePtr make_bits(BitsOp op, std::string_view name, const Value& operand) {
  std::vector<uint32_t> positions;
  if (operand.is_number()) {
    int64_t mask = 0;
    if (!operand.number_as_exact_int64(&mask)) {
      bad_value(std::string(name) +
                " bitmask must be representable as a 64-bit integer: " + operand.to_json());
    }
    if (mask < 0) {
      bad_value(std::string(name) + " bitmask value cannot be negative: " + operand.to_json());
    }
    for (uint32_t i = 0; i < 63; ++i) {
      if ((mask >> i) & 1) positions.push_back(i);
    }
  } else if (operand.is_array()) {
    for (const auto& el : operand.as_array()) {
      int64_t pos = 0;
      if (!el.value.is_number() || !el.value.number_as_exact_int64(&pos)) {
        bad_value("bit positions must be an integer but got: " + el.value.to_json());
      }
      if (pos < 0) bad_value("bit positions cannot be negative but got: " + el.value.to_json());
      if (pos > 0xFFFFFFFFLL) bad_value("bit positions cannot be represented as a 32-bit integer");
      positions.push_back(static_cast<uint32_t>(pos));
    }
  } else if (operand.type() == BsonType::kBinary) {
    bson::BinaryView b = operand.as_binary();
    for (size_t i = 0; i < b.bytes.size(); ++i) {
      for (uint32_t j = 0; j < 8; ++j) {
        if ((b.bytes[i] >> j) & 1) positions.push_back(static_cast<uint32_t>(i * 8 + j));
      }
    }
  } else {
    bad_value(std::string(name) +
              " takes an Array, a number, or a BinData but received: " + operand.to_json());
  }
  return std::make_unique<BitsPredicate>(op, std::move(positions));
}

}  // namespace mongostore::engine::matcher_detail
