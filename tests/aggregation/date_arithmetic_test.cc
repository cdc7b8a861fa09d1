// $dateAdd / $dateSubtract / $dateDiff / $dateTrunc: calendar units in local time (wall
// clock kept across DST, month ends clamped), durations for hours and less, boundaries
// counted by $dateDiff, bins from 2000-01-01 for $dateTrunc, null propagation and errors.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

std::string D(std::string_view iso) {
  return V(R"({"$date": ")" + std::string(iso) + R"("})");
}

TEST(AggDateAdd, CalendarUnitsClampTheDayOfMonth) {
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2021-01-31T00:00:00Z"}, "unit": "month",
                               "amount": 1}})"),
            D("2021-02-28T00:00:00Z"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-01-31T10:00:00Z"}, "unit": "month",
                               "amount": 1}})"),
            D("2020-02-29T10:00:00Z"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-02-29T10:00:00Z"}, "unit": "year",
                               "amount": 1}})"),
            D("2021-02-28T10:00:00Z"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-03-31T10:00:00Z"}, "unit": "quarter",
                               "amount": -1}})"),
            D("2019-12-31T10:00:00Z"));
  EXPECT_EQ(E(R"({"$dateSubtract": {"startDate": {"$date": "2020-03-01T00:00:00Z"},
                                    "unit": "day", "amount": 1}})"),
            D("2020-02-29T00:00:00Z"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "week",
                               "amount": 2, "timezone": "+05:30"}})"),
            D("2020-01-15T00:00:00Z"));
}

TEST(AggDateAdd, DaysKeepTheWallClockAcrossDaylightSavingHoursDoNot) {
  // 23:00 EDT on Oct 31, plus a day: 23:00 EST on Nov 1 (25 hours later).
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-11-01T03:00:00Z"}, "unit": "day",
                               "amount": 1, "timezone": "America/New_York"}})"),
            D("2020-11-02T04:00:00Z"));
  // 02:30 on the spring-forward night does not exist: past the gap, 03:30 EDT.
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2021-03-13T07:30:00Z"}, "unit": "day",
                               "amount": 1, "timezone": "America/New_York"}})"),
            D("2021-03-14T07:30:00Z"));
  // An hour is an hour (mongod's own example).
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-11-01T05:50:02Z"}, "unit": "hour",
                               "amount": 1, "timezone": "America/New_York"}})"),
            D("2020-11-01T06:50:02Z"));
}

TEST(AggDateAdd, NullsAndErrors) {
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": null, "unit": "day", "amount": 1}})"), V("null"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "$u",
                               "amount": 1}})"),
            V("null"));
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "day",
                               "amount": 1, "timezone": null}})"),
            V("null"));
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": "x", "unit": "day", "amount": 1}})"), 5166403);
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"},
                                "unit": "day", "amount": 1.5}})"),
            5166405);
  EXPECT_EQ(E(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "day",
                               "amount": 2.0}})"),
            D("2020-01-03T00:00:00Z"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"},
                                "unit": "fortnight", "amount": 1}})",
               "{}", &msg),
            9);
  EXPECT_EQ(msg,
            "$dateAdd parameter 'unit' value parsing failed :: caused by :: unknown time unit "
            "value: fortnight");
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": 1,
                                "amount": 1}})"),
            5439013);
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "day"}})"),
            5166402);
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": 1, "unit": "day", "amount": 1, "x": 1}})"), 5166401);
  EXPECT_EQ(EE(R"({"$dateAdd": 1})"), 5166400);
  EXPECT_EQ(EE(R"({"$dateAdd": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "unit": "year",
                                "amount": 1000000000000}})"),
            5976500);
  EXPECT_EQ(EE(R"({"$dateSubtract": {"startDate": {"$date": "2020-01-01T00:00:00Z"},
                                     "unit": "millisecond",
                                     "amount": {"$numberLong": "-9223372036854775808"}}})"),
            6045000);
}

TEST(AggDateDiff, CountsBoundariesCrossed) {
  auto diff = [](const char* unit, const char* start, const char* end, const char* extra = "") {
    return E(std::string(R"({"$dateDiff": {"startDate": {"$date": ")") + start +
             R"("}, "endDate": {"$date": ")" + end + R"("}, "unit": ")" + unit + "\"" + extra +
             "}}");
  };
  const char* a = "2020-12-31T23:59:00Z";
  const char* b = "2021-01-01T00:01:00Z";
  EXPECT_EQ(diff("year", a, b), V(R"({"$numberLong": "1"})"));
  EXPECT_EQ(diff("quarter", a, b), V(R"({"$numberLong": "1"})"));
  EXPECT_EQ(diff("month", a, b), V(R"({"$numberLong": "1"})"));
  EXPECT_EQ(diff("day", a, b), V(R"({"$numberLong": "1"})"));
  EXPECT_EQ(diff("minute", a, b), V(R"({"$numberLong": "2"})"));
  EXPECT_EQ(diff("millisecond", a, b), V(R"({"$numberLong": "120000"})"));
  EXPECT_EQ(diff("month", "2021-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),
            V(R"({"$numberLong": "-12"})"));
  // 2022-01-01 is a Saturday, 2022-01-31 a Monday.
  EXPECT_EQ(
      diff("week", "2022-01-01T00:00:00Z", "2022-01-31T00:00:00Z", R"(, "startOfWeek": "mon")"),
      V(R"({"$numberLong": "5"})"));
  EXPECT_EQ(diff("week", "2022-01-01T00:00:00Z", "2022-01-02T00:00:00Z"),
            V(R"({"$numberLong": "1"})"));  // Sunday starts a week by default
  EXPECT_EQ(diff("week", "2022-01-01T00:00:00Z", "2022-01-02T00:00:00Z",
                 R"(, "startOfWeek": "Saturday")"),
            V(R"({"$numberLong": "0"})"));
  // Across the spring-forward hour: one hour passed, though the clock moved two.
  EXPECT_EQ(diff("hour", "2021-03-14T06:00:00Z", "2021-03-14T07:00:00Z",
                 R"(, "timezone": "America/New_York")"),
            V(R"({"$numberLong": "1"})"));
  // Local days: 23:30 and 00:30 UTC are the same day in New York.
  EXPECT_EQ(diff("day", "2021-06-01T23:30:00Z", "2021-06-02T00:30:00Z",
                 R"(, "timezone": "America/New_York")"),
            V(R"({"$numberLong": "0"})"));
  EXPECT_EQ(E(R"({"$dateDiff": {"startDate": null, "endDate": {"$date": "2021-01-01T00:00:00Z"},
                                "unit": "day"}})"),
            V("null"));
  EXPECT_EQ(EE(R"({"$dateDiff": {"startDate": {"$date": "2021-01-01T00:00:00Z"}, "endDate": "x",
                                 "unit": "day"}})"),
            5166307);
  EXPECT_EQ(EE(R"({"$dateDiff": {"startDate": 1, "endDate": 1}})"), 5166305);
  EXPECT_EQ(EE(R"({"$dateDiff": {"startDate": {"$date": "2021-01-01T00:00:00Z"},
                                 "endDate": {"$date": "2021-01-01T00:00:00Z"},
                                 "unit": "week", "startOfWeek": "someday"}})"),
            9);
}

TEST(AggDateTrunc, BinsFromTheReferencePoint) {
  auto trunc = [](const char* extra) {
    return E(std::string(R"({"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, )") + extra +
             "}}");
  };
  // mongod's documented example: two-week bins starting on Mondays, in Los Angeles.
  EXPECT_EQ(trunc(R"("unit": "week", "binSize": 2, "timezone": "America/Los_Angeles",
                     "startOfWeek": "Monday")"),
            D("2020-05-11T07:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "month", "timezone": "Europe/Paris")"), D("2020-04-30T22:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "hour", "binSize": 6)"), D("2020-05-18T12:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "minute", "binSize": 15)"), D("2020-05-18T14:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "quarter")"), D("2020-04-01T00:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "year", "binSize": 5)"), D("2020-01-01T00:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "day")"), D("2020-05-18T00:00:00Z"));
  // Before the reference point: 1999-05-15 is a whole number of weeks before 2000-01-01.
  EXPECT_EQ(E(R"({"$dateTrunc": {"date": {"$date": "1999-05-18T14:10:30Z"}, "unit": "day",
                                 "binSize": 7}})"),
            D("1999-05-15T00:00:00Z"));
  EXPECT_EQ(trunc(R"("unit": "day", "binSize": null)"), V("null"));
  EXPECT_EQ(EE(R"({"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "day",
                                  "binSize": 0}})"),
            5439018);
  EXPECT_EQ(EE(R"({"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "day",
                                  "binSize": 1.5}})"),
            5439017);
  EXPECT_EQ(EE(R"({"$dateTrunc": {"unit": "day"}})"), 5439009);
  EXPECT_EQ(EE(R"({"$dateTrunc": {"date": 1}})"), 5439010);
}

TEST(AggDateParts, ToPartsAndBack) {
  const char* date = R"({"$date": "2017-01-01T01:29:09.123Z"})";
  auto to_parts = [&](const char* extra) {
    return E(std::string(R"({"$dateToParts": {"date": )") + date + extra + "}}");
  };
  EXPECT_EQ(to_parts(""), V(R"({"year": 2017, "month": 1, "day": 1, "hour": 1, "minute": 29,
                                "second": 9, "millisecond": 123})"));
  EXPECT_EQ(to_parts(R"(, "timezone": "America/New_York")"),
            V(R"({"year": 2016, "month": 12, "day": 31, "hour": 20, "minute": 29, "second": 9,
                  "millisecond": 123})"));
  EXPECT_EQ(to_parts(R"(, "iso8601": true)"),
            V(R"({"isoWeekYear": 2016, "isoWeek": 52, "isoDayOfWeek": 7, "hour": 1,
                  "minute": 29, "second": 9, "millisecond": 123})"));
  EXPECT_EQ(E(R"({"$dateToParts": {"date": null}})"), V("null"));
  EXPECT_EQ(EE(R"({"$dateToParts": {"date": {"$date": "2017-01-01T00:00:00Z"}, "iso8601": 1}})"),
            40521);
  EXPECT_EQ(EE(R"({"$dateToParts": {"timezone": "UTC"}})"), 40522);

  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12}})"),
            D("2017-02-08T12:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3,
                                     "hour": 12}})"),
            D("2017-02-08T12:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"isoWeekYear": 2021}})"), D("2021-01-04T00:00:00Z"));
  // Out-of-range components carry.
  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "month": 14, "day": 1}})"),
            D("2018-02-01T00:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "month": 0, "day": 0}})"),
            D("2016-11-30T00:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "hour": -1}})"), D("2016-12-31T23:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12,
                                     "timezone": "America/New_York"}})"),
            D("2017-02-08T17:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromParts": {"year": 2017, "month": null}})"), V("null"));
  EXPECT_EQ(EE(R"({"$dateFromParts": {"year": 2017, "isoWeek": 6}})"), 40489);
  EXPECT_EQ(EE(R"({"$dateFromParts": {"month": 1}})"), 40516);
  EXPECT_EQ(EE(R"({"$dateFromParts": {"year": 10000}})"), 40523);
  EXPECT_EQ(EE(R"({"$dateFromParts": {"year": 2017, "month": 40000}})"), 31034);
  EXPECT_EQ(EE(R"({"$dateFromParts": {"year": 2017, "month": 1.5}})"), 40515);
  EXPECT_EQ(EE(R"({"$dateFromParts": {"year": 2017, "bogus": 1}})"), 40518);
}

TEST(AggDateFromString, IsoTextFormatsZonesAndFallbacks) {
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787Z"}})"),
            D("2017-02-08T12:10:40.787Z"));
  // Text without an offset is local time in the zone (mongod's documented example).
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787",
                                      "timezone": "America/New_York"}})"),
            D("2017-02-08T17:10:40.787Z"));
  EXPECT_EQ(
      E(R"({"$dateFromString": {"dateString": "2017-02-08 12:10:40", "timezone": "+05:30"}})"),
      D("2017-02-08T06:40:40Z"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "15-06-2018", "format": "%d-%m-%Y"}})"),
            D("2018-06-15T00:00:00Z"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "2018/06/15 10:20 +0200",
                                      "format": "%Y/%m/%d %H:%M %z"}})"),
            D("2018-06-15T08:20:00Z"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "2018-032", "format": "%Y-%j"}})"),
            D("2018-02-01T00:00:00Z"));
  // Failures to parse (and a non-string) are caught by onError; null by onNull.
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "junk", "onError": "bad"}})"), V(R"("bad")"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": 5, "onError": "bad"}})"), V(R"("bad")"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "2018-13-01", "format": "%Y-%m-%d",
                                      "onError": "bad"}})"),
            V(R"("bad")"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": null, "onNull": "none"}})"), V(R"("none")"));
  EXPECT_EQ(E(R"({"$dateFromString": {"dateString": "$missing"}})"), V("null"));
  EXPECT_EQ(EE(R"({"$dateFromString": {"dateString": "junk"}})"), 241);
  EXPECT_EQ(EE(R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40Z",
                                       "timezone": "Europe/Paris"}})"),
            40554);
  EXPECT_EQ(EE(R"({"$dateFromString": {"dateString": "2018", "format": "%Q"}})"), 18536);
  EXPECT_EQ(EE(R"({"$dateFromString": {"dateString": "2018", "bogus": 1}})"), 40541);
  EXPECT_EQ(EE(R"({"$dateFromString": {"format": "%Y"}})"), 40542);
}

TEST(AggDateToString, DefaultFormatHasAZOnlyInUtc) {
  EXPECT_EQ(E(R"({"$dateToString": {"date": {"$date": "2020-03-04T05:06:07.089Z"},
                                    "timezone": "+05:30"}})"),
            V(R"("2020-03-04T10:36:07.089")"));
  EXPECT_EQ(E(R"({"$dateToString": {"date": {"$date": "2020-03-04T05:06:07.089Z"},
                                    "timezone": "UTC"}})"),
            V(R"("2020-03-04T05:06:07.089Z")"));
  // The zone is checked before a null date gives onNull; a null zone gives null after it.
  EXPECT_EQ(EE(R"({"$dateToString": {"date": null, "timezone": "Bogus/Zone", "onNull": 1}})"),
            40485);
  EXPECT_EQ(E(R"({"$dateToString": {"date": null, "timezone": null, "onNull": 1}})"), V("1"));
  EXPECT_EQ(E(R"({"$dateToString": {"date": {"$date": "2020-03-04T05:06:07.089Z"},
                                    "timezone": null}})"),
            V("null"));
}

}  // namespace
}  // namespace mongostore::engine::agg_test
