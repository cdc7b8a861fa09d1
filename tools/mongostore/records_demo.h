// `mongostore demo records`: the RecordStore demo. Imports a batch of synthetic crystal
// structures (records_demo_generator.h) with their calculations and authors, records a
// correction as a `replace` (a lineage), saves an alternative representation, runs fsck, and
// checks every number of its summary against what the store holds afterwards.
//
// The batch is a function of (--seed, --structures): running the demo again on the same store
// imports the same records, which content-id dedup turns into hits that add nothing; the
// summary reports them, read back from the store (documents before and after).
#pragma once

#include <cstdint>
#include <string>

namespace mongostore::tool::demo {

struct RecordsDemoOptions {
  int64_t structures = 2000;
  uint64_t seed = 2026;
};

/// Runs the demo on `uri` (a mongostore URI: "embedded:<dir>" or "mongodb://...") in
/// `database`; `fresh` drops the database first; `json` prints only a JSON summary. Returns
/// 0 when every check passed, 2 when one failed (the summary lists it); backend and record
/// store errors propagate.
int run_records_demo(const std::string& uri, const std::string& database,
                     const RecordsDemoOptions& options, bool fresh, bool json,
                     const std::string& inspect_location);

}  // namespace mongostore::tool::demo
