#include "exec/utf8.h"

#include <bson/bson.h>

namespace mongostore::exec {

bool is_valid_utf8(std::string_view s) {
  return bson_utf8_validate(s.data(), s.size(), /*allow_null=*/true);
}

}  // namespace mongostore::exec
