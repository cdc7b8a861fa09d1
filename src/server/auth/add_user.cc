#include "mongostore/server/users.h"

#include "server/auth/user_store.h"

namespace mongostore::server {

void add_user(engine::Engine& engine, const std::string& db, const std::string& user,
              std::string_view password,
              const std::vector<std::pair<std::string, std::string>>& roles) {
  std::vector<auth::RoleName> names;
  for (const auto& [role, role_db] : roles) names.push_back({role, role_db});
  auth::UserStore(engine).create(db, user, password, names, {});
}

}  // namespace mongostore::server
