// The user family: createUser, updateUser, dropUser, usersInfo, over the UserStore
// (admin.system.users). Roles are MongoDB's built-in ones; a role named by a string is of
// the command's database, as on mongod.
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/auth/auth_session.h"
#include "server/auth/privileges.h"
#include "server/auth/scram.h"
#include "server/auth/user_store.h"
#include "server/commands/command_context.h"
#include "server/commands/command_families.h"

namespace mongostore::server {
namespace {

using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

void refuse_external(const CommandContext& ctx) {
  if (ctx.db == "$external") {
    throw Error(ErrorCode::kNotImplemented,
                "users of $external (LDAP, x.509, Kerberos) are not supported by mongostore");
  }
}

std::string user_name(const CommandContext& ctx) {
  Value name = ctx.cmd.get(ctx.name);
  if (!name.is_string() || name.as_string().empty()) {
    throw Error(ErrorCode::kBadValue, ctx.name + " needs a non-empty user name");
  }
  return std::string(name.as_string());
}

std::vector<auth::RoleName> roles_of(const CommandContext& ctx, Value roles) {
  if (!roles.is_array()) {
    throw Error(ErrorCode::kBadValue, "\"" + ctx.name + "\" command requires a \"roles\" array");
  }
  std::vector<auth::RoleName> out;
  for (const bson::Element& e : roles.as_array()) {
    if (e.value.is_string()) {
      out.push_back({std::string(e.value.as_string()), ctx.db});
    } else if (e.value.is_document() && e.value.as_document().get("role").is_string() &&
               e.value.as_document().get("db").is_string()) {
      out.push_back({std::string(e.value.as_document().get("role").as_string()),
                     std::string(e.value.as_document().get("db").as_string())});
    } else {
      throw Error(ErrorCode::kBadValue,
                  "Role names must be either strings or objects with 'role' and 'db'");
    }
  }
  return out;
}

std::vector<auth::ScramMechanism> mechanisms_of(const CommandContext& ctx) {
  std::vector<auth::ScramMechanism> out;
  Value m = ctx.cmd.get("mechanisms");
  if (m.is_missing()) return out;
  if (!m.is_array()) throw Error(ErrorCode::kBadValue, "mechanisms must be an array");
  for (const bson::Element& e : m.as_array()) {
    std::optional<auth::ScramMechanism> named =
        e.value.is_string() ? auth::mechanism_named(e.value.as_string()) : std::nullopt;
    if (!named) {
      throw Error(ErrorCode::kBadValue,
                  "Unknown auth mechanism (mongostore offers SCRAM-SHA-1 "
                  "and SCRAM-SHA-256)");
    }
    out.push_back(*named);
  }
  if (out.empty()) throw Error(ErrorCode::kBadValue, "mechanisms field must not be empty");
  return out;
}

std::string password_of(const CommandContext& ctx) {
  Value pwd = ctx.cmd.get("pwd");
  if (!pwd.is_string()) {
    throw Error(ErrorCode::kBadValue, "Must provide a 'pwd' field for all user documents");
  }
  return std::string(pwd.as_string());
}

void create_user(const CommandContext& ctx, DocumentBuilder&) {
  refuse_external(ctx);
  std::string user = user_name(ctx);
  std::vector<auth::RoleName> roles = roles_of(ctx, ctx.cmd.get("roles"));
  ctx.users.create(ctx.db, user, password_of(ctx), roles, mechanisms_of(ctx));
}

void update_user(const CommandContext& ctx, DocumentBuilder&) {
  refuse_external(ctx);
  std::string user = user_name(ctx);
  std::optional<std::string> password;
  if (ctx.cmd.has("pwd")) password = password_of(ctx);
  std::optional<std::vector<auth::RoleName>> roles;
  if (ctx.cmd.has("roles")) roles = roles_of(ctx, ctx.cmd.get("roles"));
  if (!password && !roles) {
    throw Error(ErrorCode::kBadValue, "Must specify at least one field to update in updateUser");
  }
  if (ctx.cmd.has("mechanisms") && !password) {
    throw Error(ErrorCode::kBadValue, "mechanisms field may only be given with a new password");
  }
  ctx.users.update(ctx.db, user, password, roles, mechanisms_of(ctx));
}

void drop_user(const CommandContext& ctx, DocumentBuilder&) {
  refuse_external(ctx);
  ctx.users.drop(ctx.db, user_name(ctx));
}

// usersInfo: 1 (every user of the database), "name", {user, db}, or an array of those;
// forAllDBs: true (on admin) for every user. Under --auth any user may view itself (mongod's
// implicit viewUser on one's own user); any other user needs userAdmin on its database, and
// forAllDBs userAdminAnyDatabase or root. A user that may not be viewed fails the whole
// command with Unauthorized (13), existing or not, so the answer reveals nothing.
void users_info(const CommandContext& ctx, DocumentBuilder& b) {
  Value which = ctx.cmd.get("usersInfo");
  bool credentials = ctx.cmd.get("showCredentials").truthy();
  std::vector<auth::AuthenticatedUser> me;
  if (ctx.options.auth_required) me = auth::users_of(ctx.connection.auth);
  auto check = [&](std::string_view user, std::string_view db) {
    if (!ctx.options.auth_required) return;
    bool ok = user.empty() ? auth::allowed(me, auth::Action::kUserAdmin, db)
                           : auth::may_view_user(me, user, db);
    if (!ok) {
      throw Error(ErrorCode::kUnauthorized,
                  "not authorized on " + std::string(db) + " to execute command usersInfo");
    }
  };
  std::vector<auth::StoredUser> found;
  auto add_named = [&](Value v) {
    std::string user, db = ctx.db;
    if (v.is_string()) {
      user = std::string(v.as_string());
    } else if (v.is_document() && v.as_document().get("user").is_string() &&
               v.as_document().get("db").is_string()) {
      user = std::string(v.as_document().get("user").as_string());
      db = std::string(v.as_document().get("db").as_string());
    } else {
      throw Error(ErrorCode::kBadValue,
                  "User and role names must be either strings or objects, or 1");
    }
    check(user, db);
    if (std::optional<auth::StoredUser> u = ctx.users.find(db, user)) found.push_back(*u);
  };
  if (which.is_document() && which.as_document().has("forAllDBs")) {
    if (!which.as_document().get("forAllDBs").truthy() || ctx.db != "admin") {
      throw Error(ErrorCode::kBadValue, "forAllDBs: true runs against admin only");
    }
    if (ctx.options.auth_required && !auth::may_view_all_users(me)) {
      throw Error(ErrorCode::kUnauthorized,
                  "not authorized on admin to execute command usersInfo with forAllDBs");
    }
    found = ctx.users.all();
  } else if (which.is_number()) {
    check("", ctx.db);
    found = ctx.users.all(ctx.db);
  } else if (which.is_array()) {
    for (const bson::Element& e : which.as_array()) add_named(e.value);
  } else {
    add_named(which);
  }
  b.open_array("users");
  for (const auth::StoredUser& u : found) b.push(auth::describe(u, credentials));
  b.close();
}

}  // namespace

void register_user_commands(CommandRegistry& registry) {
  registry.add({"createUser"}, &create_user, kWrites, {"pwd", "roles", "mechanisms"},
               {"customData", "digestPassword", "authenticationRestrictions"});
  registry.add({"updateUser"}, &update_user, kWrites, {"pwd", "roles", "mechanisms"},
               {"customData", "digestPassword", "authenticationRestrictions"});
  registry.add({"dropUser"}, &drop_user, kWrites);
  registry.add({"usersInfo"}, &users_info, 0, {"showCredentials"},
               {"showCustomData", "showPrivileges", "showAuthenticationRestrictions", "filter"});
}

}  // namespace mongostore::server
