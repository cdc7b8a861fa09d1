// SASLprep (RFC 4013) of a password, as SCRAM-SHA-256 asks before hashing it.
//
// mongostore implements the part of it that printable ASCII needs and refuses the rest:
// ASCII control characters are prohibited by the profile itself (BadValue, 2); any
// character outside ASCII fails BadValue too, naming the limitation, because mapping it
// correctly needs Unicode normalization (NFKC) and the stringprep tables, which mongostore
// does not carry. Printable ASCII maps to itself under SASLprep, so such passwords hash as
// every driver hashes them.
#pragma once

#include <string>
#include <string_view>

namespace mongostore::server::auth {

/// The prepared form of `password`; BadValue for what is prohibited or not supported.
std::string saslprep(std::string_view password);

}  // namespace mongostore::server::auth
