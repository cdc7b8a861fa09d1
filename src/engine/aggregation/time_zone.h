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

 private:
  int fixed_seconds_ = 0;
  std::shared_ptr<const ZoneRules> rules_;  // null: the fixed offset
};

}  // namespace mongostore::engine::aggregation_detail
