// MongoDB's built-in roles that mongostore implements, and what each allows.
//
// A role is granted on one database ({role: "readWrite", db: "shop"}); the AnyDatabase forms,
// root and userAdminAnyDatabase exist on admin only, as on mongod. Custom roles are not
// supported (createRole is not a command here).
#pragma once

#include <string>
#include <string_view>

namespace mongostore::server::auth {

struct RoleName {
  std::string role;
  std::string db;
  friend bool operator==(const RoleName&, const RoleName&) = default;
};

/// True for a built-in role mongostore implements that may be granted on `db`.
bool is_builtin_role(std::string_view role, std::string_view db);

}  // namespace mongostore::server::auth
