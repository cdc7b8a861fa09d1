#include "server/auth/saslprep.h"

#include "mongostore/error.h"

namespace mongostore::server::auth {

std::string saslprep(std::string_view password) {
  for (unsigned char c : password) {
    if (c >= 0x80) {
      throw Error(ErrorCode::kBadValue,
                  "passwords with characters outside ASCII are not supported by mongostore "
                  "(SASLprep beyond ASCII is not implemented)");
    }
    if (c < 0x20 || c == 0x7f) {
      throw Error(ErrorCode::kBadValue, "SASLprep: the password contains a control character");
    }
  }
  return std::string(password);
}

}  // namespace mongostore::server::auth
