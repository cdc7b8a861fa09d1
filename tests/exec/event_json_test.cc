// Event::from_json: what each field accepts, the error naming a field that is wrong, and that a
// repeated key reads as its first occurrence (as DocumentView::get and the seed's JSON both
// read it: a stored event parsed by either side means the same).
#include <gtest/gtest.h>

#include <string>

#include "mongostore/error.h"
#include "mongostore/exec/event.h"

namespace mongostore::exec {
namespace {

std::string error_of(const std::string& json) {
  try {
    Event::from_json(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kFailedToParse)) << json;
    return e.what();
  }
  ADD_FAILURE() << json << " was accepted";
  return "";
}

TEST(EventJson, EveryFieldRoundTrips) {
  Event e;
  e.id = "e-1";
  e.kind = "OrderPlaced";
  e.created_time = "2026-12-06T05:00:00Z";
  e.received_time = "2026-12-06T05:00:01Z";
  e.data = bson::Document::from_json(R"({"sku": "A-1", "n": 2, "nested": {"ok": true}})");
  EXPECT_EQ(Event::from_json(e.to_json()), e);
}

TEST(EventJson, OptionalFieldsMayBeNullOrMissing) {
  Event e = Event::from_json(R"({"id": "a", "kind": "K", "created_time": null, "data": null})");
  EXPECT_EQ(e.id, "a");
  EXPECT_EQ(e.kind, "K");
  EXPECT_FALSE(e.created_time.has_value());
  EXPECT_FALSE(e.received_time.has_value());
  EXPECT_TRUE(e.data.view().empty());
  // Fields the model does not know are left alone, in any order.
  e = Event::from_json(R"({"data": {"x": 1}, "extra": [1], "kind": "K", "id": "b"})");
  EXPECT_EQ(e.id, "b");
  EXPECT_EQ(e.data.get("x").as_int32(), 1);
}

TEST(EventJson, AWrongFieldFailsNamingIt) {
  EXPECT_EQ(error_of(R"({"kind": "K"})"), "Event.id: missing");
  EXPECT_EQ(error_of(R"({"id": "a"})"), "Event.kind: missing");
  EXPECT_EQ(error_of(R"({"id": 7, "kind": "K"})"), "Event.id: expected a string, got int");
  EXPECT_EQ(error_of(R"({"id": "a", "kind": null})"), "Event.kind: expected a string, got null");
  EXPECT_EQ(error_of(R"({"id": "a", "kind": "K", "created_time": 1.5})"),
            "Event.created_time: expected a string or null, got double");
  EXPECT_EQ(error_of(R"({"id": "a", "kind": "K", "received_time": {}})"),
            "Event.received_time: expected a string or null, got object");
  EXPECT_EQ(error_of(R"({"id": "a", "kind": "K", "data": [1]})"),
            "Event.data: expected an object, got array");
  // The first wrong field in the model's order is the one named.
  EXPECT_EQ(error_of(R"({"data": 1, "kind": 2, "id": 3})"), "Event.id: expected a string, got int");
  EXPECT_NE(error_of(R"({"id": "a", "kind": )").find("Event: "), std::string::npos);
}

TEST(EventJson, ARepeatedKeyReadsAsItsFirstOccurrence) {
  Event e = Event::from_json(
      R"({"id": "first", "kind": "K", "id": "second", "data": {"v": 1}, "data": 5,)"
      R"( "kind": 9})");
  EXPECT_EQ(e.id, "first");
  EXPECT_EQ(e.kind, "K");
  EXPECT_EQ(e.data.get("v").as_int32(), 1);
  EXPECT_EQ(error_of(R"({"id": 1, "id": "a", "kind": "K"})"),
            "Event.id: expected a string, got int");
}

}  // namespace
}  // namespace mongostore::exec
