// Decimal128 addition and multiplication (IEEE 754-2008 decimal, 34 digits, round half even),
// for $inc and $mul when either operand is a decimal.
#pragma once

#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"

namespace mongostore::engine::update_detail {

/// Any BSON number as a decimal (doubles are rounded to 15 significant digits, as MongoDB
/// does).
bson::Decimal128 to_decimal(const bson::Value& number);
bson::Decimal128 decimal_add(const bson::Decimal128& a, const bson::Decimal128& b);
bson::Decimal128 decimal_multiply(const bson::Decimal128& a, const bson::Decimal128& b);

}  // namespace mongostore::engine::update_detail
