#include "mongostore/exec/event.h"

#include <array>
#include <cstdint>
#include <random>
#include <string_view>

#include "bson/raw_elements.h"
#include "exec/field_reader.h"
#include "exec/json_writer.h"
#include "exec/model_json.h"
#include "mongostore/error.h"

namespace mongostore::exec {

std::string new_id() {
  // One generator per thread, seeded once: ids are made on every commit's emits, and
  // std::random_device is a system call.
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  uint8_t bytes[16];
  for (int i = 0; i < 16; i += 8) {
    uint64_t r = generator();
    for (int j = 0; j < 8; ++j) bytes[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);  // UUID version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (uint8_t b : bytes) {
    id += kHex[b >> 4];
    id += kHex[b & 0xf];
  }
  return id;
}

Event Event::make(std::string kind, bson::Document data) {
  Event event;
  event.id = new_id();
  event.kind = std::move(kind);
  event.data = std::move(data);
  return event;
}

size_t json_size_estimate(const Event& event) {
  // The field names and punctuation are ~80 bytes.
  return 96 + event.id.size() + event.kind.size() +
         (event.created_time ? event.created_time->size() : 0) +
         (event.received_time ? event.received_time->size() : 0) + json_size_estimate(event.data);
}

void write_event(JsonWriter& out, const Event& event) {
  out.begin_object();
  out.field("id").string(event.id);
  out.field("kind").string(event.kind);
  out.field("created_time").optional_string(event.created_time);
  out.field("received_time").optional_string(event.received_time);
  out.field("data").document(event.data);
  out.end_object();
}

Event read_event(bson::DocumentView doc, const std::string& what) {
  // The five fields in one walk of the document (a sweep of the outbox reads every pending
  // entry's event): five get() calls walked it from the start each, ~1,000 instructions an
  // event.
  static constexpr std::array<std::string_view, 5> kFields = {"id", "kind", "created_time",
                                                              "received_time", "data"};
  const std::array<bson::Value, 5> v = bson::first_values(doc, kFields);
  FieldReader fields(doc, what);
  Event event;
  event.id = fields.required_string(kFields[0], v[0]);
  event.kind = fields.required_string(kFields[1], v[1]);
  event.created_time = fields.optional_string(kFields[2], v[2]);
  event.received_time = fields.optional_string(kFields[3], v[3]);
  event.data = bson::Document::copy_of(fields.document(kFields[4], v[4]));
  return event;
}

bson::Document parse_model_json(std::string_view json, std::string_view what) {
  try {
    return bson::Document::from_json(json);
  } catch (const Error& e) {
    throw Error(ErrorCode::kFailedToParse, std::string(what) + ": " + e.what());
  }
}

std::string Event::to_json() const {
  JsonWriter out(json_size_estimate(*this));
  write_event(out, *this);
  return out.take();
}

Event Event::from_json(std::string_view json) {
  return read_event(parse_model_json(json, "Event"), "Event");
}

bool Event::operator==(const Event& other) const {
  return id == other.id && kind == other.kind && created_time == other.created_time &&
         received_time == other.received_time && data == other.data;
}

}  // namespace mongostore::exec
