// UserStore: the users `mongostore serve` knows, kept durably in the engine as mongod keeps
// them, one document per user in admin.system.users:
//
//   {_id: "<db>.<user>", user, db, roles: [{role, db}],
//    credentials: {"SCRAM-SHA-1": {iterationCount, salt, storedKey, serverKey}, ...}}
//
// (salt and keys base64, as mongod stores them). A user document holds the salted keys
// only: never the password, never an unsalted hash of it.
//
// Roles are MongoDB's built-in ones (roles.h); a name that is not one fails RoleNotFound (31).
//
// Thread safety: every method may be called from any thread; the engine serializes the
// writes, and a user created concurrently under the same name fails DuplicateKey-like
// Location51003 for all but one caller.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"
#include "server/auth/roles.h"
#include "server/auth/scram.h"

namespace mongostore::server::auth {

constexpr std::string_view kUsersDb = "admin";
constexpr std::string_view kUsersCollection = "system.users";

struct StoredUser {
  std::string user;
  std::string db;
  std::vector<RoleName> roles;
  std::optional<ScramCredentials> sha1;
  std::optional<ScramCredentials> sha256;
};

class UserStore {
 public:
  explicit UserStore(engine::Engine& engine) : engine_(engine) {}

  /// Creates `user` of `db` with keys for each of `mechanisms` (both SCRAM ones when empty).
  /// Location51003 when the user exists; BadValue for an empty password or user name or a
  /// password SASLprep refuses; RoleNotFound for a role that is not built in.
  void create(const std::string& db, const std::string& user, std::string_view password,
              const std::vector<RoleName>& roles, const std::vector<ScramMechanism>& mechanisms);

  /// Replaces the password (new salts and keys) and / or the roles. UserNotFound (11) when
  /// there is no such user.
  void update(const std::string& db, const std::string& user,
              const std::optional<std::string>& password,
              const std::optional<std::vector<RoleName>>& roles,
              const std::vector<ScramMechanism>& mechanisms);

  /// Removes the user; UserNotFound (11) when there is none.
  void drop(const std::string& db, const std::string& user);

  std::optional<StoredUser> find(const std::string& db, const std::string& user);

  /// Every user, or those of `db` when it is not empty, in _id order.
  std::vector<StoredUser> all(const std::string& db = {});

  /// True when at least one user exists (the localhost exception ends then).
  bool any();

 private:
  engine::Engine& engine_;
};

/// The user document as usersInfo shows it ({_id, user, db, roles, mechanisms}, and the
/// credentials when `credentials`).
bson::Document describe(const StoredUser& user, bool credentials);

}  // namespace mongostore::server::auth
