// Spec tests that fail because the engine lacks behaviour MongoDB has (not runner bugs). They
// are reported as skipped with "known gap: <reason>" until the engine catches up.
#pragma once

#include <string_view>

namespace mongostore::spec {

struct KnownGap {
  const char* file;         // base name of the spec file, e.g. "updateOne.json"
  const char* description;  // the test's description, exactly
  const char* reason;
};

/// The entry for (file, description), or nullptr.
const KnownGap* find_known_gap(std::string_view file, std::string_view description);

}  // namespace mongostore::spec
