// Where the tests find what lives outside their build tree: the `mongostore` binary, MongoDB's
// specification tests and httk's content-id vectors.
//
// The paths are compiled into one object (test_paths.cc), not defined on every test's command
// line: an absolute path in a -D flag is part of every object's compiler hash, and ccache's
// base_dir rewriting does not reach it, so every test object of one checkout would miss the
// cache warmed by another (a worktree, or CI's clean clone).
#pragma once

namespace mongostore::testing {

/// The `mongostore` binary of this build (tools/mongostore).
const char* tool_path();

/// The compiled-in default of $MONGOSTORE_SPECS_DIR (../shared/mongodb-specs beside the source
/// tree); it may not exist on a machine without the shared folder.
const char* specs_dir_default();

/// The compiled-in default of $MONGOSTORE_CONTENT_ID_VECTORS (httk's golden content ids).
const char* content_id_vectors_default();

/// The second process of the RecordStore lease tests (tests/records/lease_child/).
const char* lease_child_path();

}  // namespace mongostore::testing
