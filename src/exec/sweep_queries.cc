#include "exec/sweep_queries.h"

#include <bit>
#include <limits>
#include <string_view>

#include "mongostore/bson/builder.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_document;

// {<array>.seq: {$gte: -inf}}: documents with at least one entry, read through the seq
// index (an empty array or a missing field has no numeric key in range), so a sweep costs
// what the pending entries cost and not what the collection holds.
Document any_seq_in(std::string_view seq_path) {
  return make_document(seq_path, make_document("$gte", -std::numeric_limits<double>::infinity()));
}

client::FindOptions only(std::string_view field) {
  client::FindOptions options;
  options.projection = make_document(field, 1);
  return options;
}

}  // namespace

bson::Document due_filter(double now) {
  // Every sweep runs this: the filter's bytes are built once, and each call copies them and
  // writes its own `now` (a BSON double, little-endian) over the range's value, the last
  // value of the filter: the 8 bytes before the closing NULs of the $lte document, of the
  // branch, of the $or array and of the filter. One allocation instead of four builders.
  static const Document shape = make_document(
      "$or", bson::make_array(make_document("next_fire_at", bson::Null{}),
                              make_document("next_fire_at", make_document("$lte", 0.0))));
  constexpr size_t kClosing = 4;
  std::vector<uint8_t> bytes(shape.data(), shape.data() + shape.size());
  const uint64_t bits = std::bit_cast<uint64_t>(now);
  uint8_t* value = bytes.data() + bytes.size() - kClosing - sizeof bits;
  for (size_t i = 0; i < sizeof bits; ++i) value[i] = static_cast<uint8_t>(bits >> (8 * i));
  return Document::adopt(std::move(bytes));
}

const client::FindOptions& timer_fields() {
  static const client::FindOptions options = [] {
    client::FindOptions o;
    o.projection = make_document("timers", 1, "next_fire_at", 1, "version", 1);
    return o;
  }();
  return options;
}

const client::FindOptions& due_fields() {
  static const client::FindOptions options = [] {
    client::FindOptions o;
    o.projection = make_document("timers", 1, "next_fire_at", 1);
    return o;
  }();
  return options;
}

std::shared_ptr<const SweepQueries> SweepQueries::prepare(const client::Collection& executions) {
  // The sweeps' visitors read their fields by name: on the embedded engine they read the
  // stored document, or the covering index entry's stored fields (due_timers, pending_outbox:
  // ExecutionStore::create_sweep_index), and no projected copy is built; remote,
  // the projection keeps the other ~2 KB of each execution off the wire. The unbounded read
  // keeps its projection: its documents are copied to be repaired.
  constexpr auto kStored = client::VisitedDocuments::kStoredWhenOnlySelecting;
  return std::make_shared<const SweepQueries>(SweepQueries{
      executions.prepare_find(make_document("next_fire_at", bson::Null{}), timer_fields()),
      executions.prepare_find(due_filter(0), due_fields(), kStored),
      executions.prepare_find(any_seq_in("outbox.seq"), only("outbox"), kStored),
      executions.prepare_find(any_seq_in("spawns.seq"), only("spawns"), kStored),
  });
}

}  // namespace mongostore::exec
