// Timer keys: node paths stored as field names of the `timers` sub-document.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/exec/store_types.h"

namespace mongostore::exec {

/// U+FF0E FULLWIDTH FULL STOP in UTF-8: what "." becomes inside a timer key.
inline constexpr std::string_view kEncodedDot = "\xEF\xBC\x8E";

/// Throws BadValue when `path` cannot be a timer key: empty, not UTF-8, holding a NUL or
/// U+FF0E (decoding would turn it into "."), or starting with "$" (an update operator).
void check_timer_path(std::string_view path);

/// The net effect of a commit's timer ops on one key: ops apply in order, so for each path
/// only the last op counts. harel put a cancel and a re-arm of one path in both $unset and
/// $set, which a real server rejects as conflicting paths.
struct TimerChange {
  /// "timers." + the encoded path: the update's field, built once (the update names it in
  /// $set or $unset, the first save's `timers` sub-document by key()).
  std::string field;
  std::optional<double> fire_at;  // nullopt: cancel

  /// The encoded path, the key inside `timers`.
  std::string_view key() const { return std::string_view(field).substr(kTimersPrefix.size()); }
  static constexpr std::string_view kTimersPrefix = "timers.";
};
/// In order of each path's first op. Validates every path (check_timer_path). A batch of a
/// few paths (the usual one) is netted without a hash table; a longer one with one, so the
/// cost stays linear in the number of ops.
std::vector<TimerChange> net_timer_changes(const std::vector<TimerOp>& ops);

}  // namespace mongostore::exec
