// SASLprep (RFC 4013) of a password, as SCRAM-SHA-256 asks before hashing it (RFC 7677), with
// the stringprep profile ICU carries (USPREP_RFC4013_SASLPREP): non-ASCII spaces map to a
// space, the characters "commonly mapped to nothing" (soft hyphen, zero-width joiners, ...)
// are removed, the result is normalized with NFKC, and prohibited output (controls, private
// use, surrogates, non-characters, ...), unassigned code points and strings that break the
// bidirectional rules are refused. Drivers prepare passwords the same way (pymongo's and the
// Node.js driver's saslprep refuse unassigned code points too), so a user's keys match.
//
// Thread-safe. Linear in the password's length.
#pragma once

#include <string>
#include <string_view>

namespace mongostore::server::auth {

/// The prepared form of `password` (UTF-8). Errors: BadValue (2) for a password that is not
/// valid UTF-8, holds a prohibited or unassigned character, breaks the bidirectional rules,
/// or prepares to the empty string.
std::string saslprep(std::string_view password);

}  // namespace mongostore::server::auth
