// Users of `mongostore serve --auth`, managed outside the server: what `mongostore user add`
// does to make the first user without the localhost exception. The engine must not be
// served at the same time (open the data directory here, then serve it).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/engine/engine.h"

namespace mongostore::server {

/// Creates `user` of database `db` with SCRAM-SHA-1 and SCRAM-SHA-256 keys for `password`
/// and the built-in `roles` ({role, db} pairs), stored as the server stores them
/// (admin.system.users: salted keys only). Location51003 when the user exists; BadValue for
/// an empty password or a password outside printable ASCII; RoleNotFound (31) for a role that
/// is not built in.
void add_user(engine::Engine& engine, const std::string& db, const std::string& user,
              std::string_view password,
              const std::vector<std::pair<std::string, std::string>>& roles);

}  // namespace mongostore::server
