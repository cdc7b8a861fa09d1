#include "support/test_paths.h"

namespace mongostore::testing {

const char* tool_path() {
  return MONGOSTORE_TOOL_PATH;
}

const char* specs_dir_default() {
  return MONGOSTORE_SPECS_DIR;
}

const char* content_id_vectors_default() {
  return MONGOSTORE_CONTENT_ID_VECTORS_DEFAULT;
}

const char* lease_child_path() {
  return MONGOSTORE_LEASE_CHILD_PATH;
}

}  // namespace mongostore::testing
