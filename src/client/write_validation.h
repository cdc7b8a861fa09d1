// The checks drivers make on a write before sending it, shared by every write path of the
// seam so that both backends refuse the same input with the same error.
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::client {

/// updateOne / updateMany take only $-operators: an empty update or a plain field fails with
/// BadValue. `context` prefixes the message ("bulk write operation 3").
void require_update_operators(bson::DocumentView update, std::string_view context);
/// replaceOne takes no $-operators at the top level.
void forbid_update_operators(bson::DocumentView replacement, std::string_view context);

}  // namespace mongostore::client
