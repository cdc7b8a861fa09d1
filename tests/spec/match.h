// Matching of expected and actual values by the unified test format's rules ("Evaluating
// Matches" in source/unified-test-format/unified-test-format.md of mongodb/specifications).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::spec {

/// Thrown anywhere while running a test to report it as skipped with `what()` as the reason.
class SkipTest : public std::runtime_error {
 public:
  explicit SkipTest(const std::string& reason) : std::runtime_error(reason) {}
};

/// What matching needs from the test's entities.
struct MatchContext {
  /// The lsid document of session entity `id` ($$sessionLsid); nullopt when unknown.
  std::function<std::optional<bson::Document>(std::string_view id)> session_lsid;
};

/// Matches `expected` against `actual` (which may be missing) with the unified format's
/// rules: special `$$` operators, numbers equal by value across int/long/double, arrays
/// element-wise with equal length, documents by their expected keys. `root` says `expected`
/// is a root-level document (or an array of them), whose actual document may carry extra
/// fields; nested documents may not. Returns nullopt on a match, else "path: why".
/// Throws SkipTest for operators that need entities the runner does not have (or, without a
/// `context`, any entity).
std::optional<std::string> match_value(const bson::Value& expected, const bson::Value& actual,
                                       bool root, const std::string& path,
                                       const MatchContext* context = nullptr);

/// Exact comparison used for a test's `outcome`: same fields (in any order), same types,
/// same values. Returns nullopt when equal, else "path: why".
std::optional<std::string> exact_match(const bson::Value& expected, const bson::Value& actual,
                                       const std::string& path);

/// `value` as relaxed extended JSON with its type ("1 (int)"), for messages.
std::string describe(const bson::Value& value);

}  // namespace mongostore::spec
