// TimeZone: the `timezone` argument of the date expressions. UTC, a fixed offset ("+05:30",
// "-0800", "+03") or an Olson (IANA) name ("Europe/Paris") read from the system's compiled
// zone files (TZif, /usr/share/zoneinfo, or $TZDIR), as mongod reads its bundled copy of the
// same database. Past a zone's last listed transition its POSIX rule (the file's footer,
// "CET-1CEST,M3.5.0,M10.5.0/3") gives the offset, so dates after 2037 keep their DST.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "mongostore/bson/value.h"

namespace mongostore::engine::aggregation_detail {

struct ZoneRules;

class TimeZone {
 public:
  TimeZone() = default;  // UTC

  /// The zone a `timezone` argument names. Throws 40517 when it is not a string and 40485
  /// ("unrecognized time zone identifier") when no zone has that name.
  static TimeZone parse(const bson::Value& name);

  /// Seconds east of UTC at the instant `millis` (milliseconds since the epoch, UTC).
  int offset_seconds_at(int64_t millis) const;

  /// The instant whose local time here is `local_millis` (local time counted from the epoch
  /// as if it were UTC). A local time skipped by a transition to daylight time maps past the
  /// gap (02:30 on a spring-forward night becomes 03:30); a repeated one maps to its first
  /// occurrence's offset found from the later side, as timelib does.
  int64_t utc_of_local(int64_t local_millis) const;

  /// UTC or a fixed offset: days have 24 hours.
  bool fixed() const { return rules_ == nullptr; }
  /// The zone is UTC itself ("UTC", "GMT", "+00:00"): $dateToString's default format ends in Z.
  bool is_utc() const { return rules_ == nullptr && fixed_seconds_ == 0; }

 private:
  int fixed_seconds_ = 0;
  std::shared_ptr<const ZoneRules> rules_;  // null: the fixed offset
};

}  // namespace mongostore::engine::aggregation_detail
