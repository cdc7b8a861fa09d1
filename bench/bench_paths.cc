#include "bench_paths.h"

namespace mongostore::bench {

const char* tool_path() {
  return MONGOSTORE_TOOL_PATH;
}

}  // namespace mongostore::bench
