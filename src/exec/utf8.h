// UTF-8 validation for strings the store turns into BSON keys and values (a string BSON
// would reject must fail with a clear error before anything is written).
#pragma once

#include <string_view>

namespace mongostore::exec {

bool is_valid_utf8(std::string_view s);

}  // namespace mongostore::exec
