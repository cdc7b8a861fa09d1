#include "server/auth/user_store.h"

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::server::auth {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

std::string id_of(const std::string& db, const std::string& user) {
  return db + "." + user;
}

void append_credentials(DocumentBuilder& b, std::string_view name, const ScramCredentials& c) {
  b.open_document(name)
      .append("iterationCount", c.iterations)
      .append("salt", base64_encode(c.salt))
      .append("storedKey", base64_encode(c.stored_key))
      .append("serverKey", base64_encode(c.server_key))
      .close();
}

std::optional<ScramCredentials> read_credentials(DocumentView credentials, std::string_view name) {
  Value v = credentials.get(name);
  if (!v.is_document()) return std::nullopt;
  DocumentView d = v.as_document();
  ScramCredentials c;
  int64_t iterations = 0;
  if (!d.get("iterationCount").number_as_exact_int64(&iterations)) return std::nullopt;
  c.iterations = static_cast<int32_t>(iterations);
  c.salt = base64_decode(d.get("salt").as_string());
  c.stored_key = base64_decode(d.get("storedKey").as_string());
  c.server_key = base64_decode(d.get("serverKey").as_string());
  return c;
}

StoredUser parse(DocumentView doc) {
  StoredUser u;
  u.user = std::string(doc.get("user").as_string());
  u.db = std::string(doc.get("db").as_string());
  for (const bson::Element& r : doc.get("roles").as_array()) {
    DocumentView role = r.value.as_document();
    u.roles.push_back(
        {std::string(role.get("role").as_string()), std::string(role.get("db").as_string())});
  }
  DocumentView credentials = doc.get("credentials").as_document();
  u.sha1 = read_credentials(credentials, "SCRAM-SHA-1");
  u.sha256 = read_credentials(credentials, "SCRAM-SHA-256");
  return u;
}

Document to_document(const StoredUser& u) {
  DocumentBuilder b;
  b.append("_id", id_of(u.db, u.user));
  b.append("user", u.user);
  b.append("db", u.db);
  b.open_document("credentials");
  if (u.sha1) append_credentials(b, "SCRAM-SHA-1", *u.sha1);
  if (u.sha256) append_credentials(b, "SCRAM-SHA-256", *u.sha256);
  b.close();
  b.open_array("roles");
  for (const RoleName& r : u.roles)
    b.push_document().append("role", r.role).append("db", r.db).close();
  b.close();
  return b.finish();
}

void check_roles(const std::vector<RoleName>& roles) {
  for (const RoleName& r : roles) {
    if (!is_builtin_role(r.role, r.db)) {
      throw Error(ErrorCode::kRoleNotFound, "Could not find role: " + r.role + "@" + r.db);
    }
  }
}

void set_password(StoredUser& u, std::string_view password,
                  const std::vector<ScramMechanism>& mechanisms) {
  if (password.empty()) throw Error(ErrorCode::kBadValue, "Password cannot be empty");
  bool sha1 = mechanisms.empty(), sha256 = mechanisms.empty();
  for (ScramMechanism m : mechanisms) (m == ScramMechanism::kSha1 ? sha1 : sha256) = true;
  u.sha1.reset();
  u.sha256.reset();
  if (sha256) u.sha256 = make_credentials(ScramMechanism::kSha256, u.user, password);
  if (sha1) u.sha1 = make_credentials(ScramMechanism::kSha1, u.user, password);
}

}  // namespace

void UserStore::create(const std::string& db, const std::string& user, std::string_view password,
                       const std::vector<RoleName>& roles,
                       const std::vector<ScramMechanism>& mechanisms) {
  if (user.empty())
    throw Error(ErrorCode::kBadValue, "User document needs 'user' field to be non-empty");
  check_roles(roles);
  StoredUser u{user, db, roles, std::nullopt, std::nullopt};
  set_password(u, password, mechanisms);
  try {
    engine_.insert_one(kUsersDb, kUsersCollection, to_document(u).view());
  } catch (const Error& e) {
    if (e.error_code() != ErrorCode::kDuplicateKey) throw;
    throw Error(51003, "User \"" + user + "@" + db + "\" already exists");
  }
}

void UserStore::update(const std::string& db, const std::string& user,
                       const std::optional<std::string>& password,
                       const std::optional<std::vector<RoleName>>& roles,
                       const std::vector<ScramMechanism>& mechanisms) {
  std::optional<StoredUser> u = find(db, user);
  if (!u)
    throw Error(ErrorCode::kUserNotFound,
                "Could not find user \"" + user + "\" for db \"" + db + "\"");
  if (roles) {
    check_roles(*roles);
    u->roles = *roles;
  }
  if (password) set_password(*u, *password, mechanisms);
  engine_.replace_one(kUsersDb, kUsersCollection,
                      bson::make_document("_id", id_of(db, user)).view(), to_document(*u).view());
}

void UserStore::drop(const std::string& db, const std::string& user) {
  if (engine_.delete_one(kUsersDb, kUsersCollection,
                         bson::make_document("_id", id_of(db, user)).view()) == 0) {
    throw Error(ErrorCode::kUserNotFound,
                "Could not find user \"" + user + "\" for db \"" + db + "\"");
  }
}

std::optional<StoredUser> UserStore::find(const std::string& db, const std::string& user) {
  std::optional<Document> doc = engine_.find_one(
      kUsersDb, kUsersCollection, bson::make_document("_id", id_of(db, user)).view());
  if (!doc) return std::nullopt;
  return parse(doc->view());
}

std::vector<StoredUser> UserStore::all(const std::string& db) {
  std::vector<StoredUser> out;
  Document filter = db.empty() ? Document() : bson::make_document("db", db);
  engine::FindOptions options;
  options.sort = bson::make_document("_id", 1);
  for (const Document& d :
       engine_.find(kUsersDb, kUsersCollection, filter.view(), options)->to_vector()) {
    out.push_back(parse(d.view()));
  }
  return out;
}

bool UserStore::any() {
  return engine_.find_one(kUsersDb, kUsersCollection, Document().view()).has_value();
}

Document describe(const StoredUser& u, bool credentials) {
  DocumentBuilder b;
  b.append("_id", id_of(u.db, u.user));
  b.append("user", u.user);
  b.append("db", u.db);
  b.open_array("roles");
  for (const RoleName& r : u.roles)
    b.push_document().append("role", r.role).append("db", r.db).close();
  b.close();
  if (credentials) {
    b.open_document("credentials");
    if (u.sha1) append_credentials(b, "SCRAM-SHA-1", *u.sha1);
    if (u.sha256) append_credentials(b, "SCRAM-SHA-256", *u.sha256);
    b.close();
  }
  b.open_array("mechanisms");
  if (u.sha1) b.push("SCRAM-SHA-1");
  if (u.sha256) b.push("SCRAM-SHA-256");
  b.close();
  return b.finish();
}

}  // namespace mongostore::server::auth
