// Fuzzes the OPTIMADE filter parser with raw text (a filter as a URL's `filter` parameter
// carries it, already decoded). A filter that parses must print to text that parses back to
// the same tree; one that does not must fail with a syntax error whose column lies within the
// input (1 .. size + 1). Nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mongostore/records/errors.h"
#include "mongostore/records/optimade_filter.h"

using namespace mongostore::records;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    OptimadeFilter filter = parse_optimade_filter(text);
    OptimadeFilter again = parse_optimade_filter(filter.to_string());
    if (!(again == filter)) std::abort();  // the printer and the parser disagree
  } catch (const OptimadeFilterSyntaxError& e) {
    if (e.column() < 1 || e.column() > static_cast<int64_t>(size) + 1) std::abort();
  }
  return 0;
}
