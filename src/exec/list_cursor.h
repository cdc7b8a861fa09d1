// The list_executions cursor: an opaque string naming the last execution id a page covered.
//
// Pages are keyset pages over `_id` ({_id: {$gt: last}}), not harel's skip offsets: a
// resumed scan costs what the page costs however deep it is, and executions created or
// deleted between pages do not shift later pages onto rows already seen or past unseen ones.
#pragma once

#include <string>
#include <string_view>

namespace mongostore::exec {

/// "x1" + base64url(last id): a version tag, so a garbage string is told apart from a
/// cursor, and a text that is safe in URLs and JSON.
std::string encode_list_cursor(std::string_view last_id);
/// The last id; BadValue (2) when `cursor` is not one encode_list_cursor made.
std::string decode_list_cursor(std::string_view cursor);

}  // namespace mongostore::exec
