#include "server/auth/roles.h"

#include <array>

namespace mongostore::server::auth {

bool is_builtin_role(std::string_view role, std::string_view db) {
  static constexpr std::array<std::string_view, 5> kAnyDatabase = {
      "readAnyDatabase", "readWriteAnyDatabase", "dbAdminAnyDatabase", "userAdminAnyDatabase",
      "root"};
  static constexpr std::array<std::string_view, 5> kPerDatabase = {"read", "readWrite", "dbAdmin",
                                                                   "userAdmin", "dbOwner"};
  for (std::string_view r : kPerDatabase) {
    if (role == r) return true;
  }
  for (std::string_view r : kAnyDatabase) {
    if (role == r) return db == "admin";
  }
  return false;
}

}  // namespace mongostore::server::auth
