// Durability modes of the embedded engine and how they map onto MongoDB write concerns.
#pragma once

#include <string_view>

namespace mongostore::engine {

/// How far a write has travelled when the engine acknowledges it.
///
/// | mode        | acknowledged after                          | survives kill -9 | power loss |
/// write concern  |
/// |-------------|---------------------------------------------|------------------|------------|----------------|
/// | kDurable    | journal record written and fsync'd          | yes              | yes        |
/// {j: true}      | | kJournaled  | journal record written to the OS            | yes | last ~100ms
/// lost | {w: 1, j: false} (mongod's default) | | kInMemory   | applied in memory; nothing on disk
/// | no               | no         | (storage mode) |
///
/// Under kDurable, concurrent commits share fsyncs: WiredTiger's log groups the records of
/// transactions committing together into one write and one sync (group commit), so eight
/// threads committing at once pay for roughly one fsync, not eight. Under kJournaled a
/// background thread syncs the journal every 100 ms, as mongod's journalCommitInterval does.
enum class Durability {
  kDurable,
  kJournaled,
  kInMemory,
};

/// "durable", "journaled", "in-memory".
std::string_view durability_name(Durability d);
/// Parses durability_name()'s spellings; throws Error(BadValue) for anything else.
Durability parse_durability(std::string_view name);

}  // namespace mongostore::engine
