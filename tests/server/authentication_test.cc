// `mongostore serve --auth` with libmongoc as the client: the localhost exception makes the
// first user, SCRAM-SHA-256 and SCRAM-SHA-1 (speculative, in hello, and by saslStart) log
// users in, wrong passwords / unknown users / another database's users are refused with
// AuthenticationFailed and write nothing, unauthenticated commands fail Unauthorized, and
// the stored user documents hold salted keys only.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/auth/scram.h"
#include "server/auth_server_test.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

class AuthenticationTest : public AuthServerTest {
 protected:
  static int64_t count_in(const std::string& db, const std::string& coll) {
    CommandOutcome out = root()->run(db, make_document("count", coll));
    EXPECT_TRUE(out.succeeded) << out.reply.to_json();
    return int_at(out.reply, "n");
  }
};

// The string at `field` of the first document of the array at `array` ("" when absent).
std::string first_of(bson::DocumentView doc, std::string_view array, std::string_view field) {
  bson::Value a = doc.get_path(array);
  if (!a.is_array() || a.as_array().begin() == a.as_array().end()) return "";
  bson::Value v = a.as_array().begin()->value;
  if (!v.is_document() || !v.as_document().get_path(field).is_string()) return "";
  return std::string(v.as_document().get_path(field).as_string());
}

TEST_F(AuthenticationTest, UnauthenticatedCommandsFailUnauthorizedAndDoNothing) {
  MongocClient anonymous(server_->uri("serverSelectionTimeoutMS=5000"));
  EXPECT_TRUE(anonymous.run("admin", make_document("ping", 1)).succeeded);
  EXPECT_TRUE(anonymous.run("admin", make_document("buildInfo", 1)).succeeded);
  CommandOutcome insert = anonymous.run(
      "shop", make_document("insert", "orders", "documents", make_array(make_document("a", 1))));
  EXPECT_FALSE(insert.succeeded);
  EXPECT_EQ(int_at(insert.reply, "code"), 13) << insert.reply.to_json();
  EXPECT_EQ(insert.reply.get("codeName").as_string(), "Unauthorized");
  EXPECT_EQ(int_at(anonymous.run("shop", make_document("find", "orders")).reply, "code"), 13);
  // The localhost exception ended with the first user.
  CommandOutcome second = anonymous.run(
      "admin", make_document("createUser", "intruder", "pwd", "x", "roles", make_array("root")));
  EXPECT_EQ(int_at(second.reply, "code"), 13) << second.reply.to_json();
  EXPECT_EQ(count_in("shop", "orders"), 0);
  Document users = root()->run("admin", make_document("usersInfo", "intruder")).reply;
  EXPECT_EQ(users.get("users").as_array().count(), 0u) << users.to_json();
}

TEST_F(AuthenticationTest, ScramSha256AndSha1UsersRunCommands) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("shop", make_document("createUser", "clerk", "pwd", "s3cret!", "roles",
                                              make_array("readWrite")))
                  .succeeded);
  for (const char* mechanism : {"SCRAM-SHA-256", "SCRAM-SHA-1"}) {
    MongocClient clerk(
        uri_as("clerk", "s3cret!", std::string("authSource=shop&authMechanism=") + mechanism));
    CommandOutcome insert = clerk.run(
        "shop", make_document("insert", "items", "documents", make_array(make_document("a", 1))));
    EXPECT_TRUE(insert.succeeded) << mechanism << " " << insert.reply.to_json();
    Document status = clerk.run("shop", make_document("connectionStatus", 1)).reply;
    EXPECT_EQ(first_of(status.view(), "authInfo.authenticatedUsers", "user"), "clerk")
        << status.to_json();
    EXPECT_EQ(first_of(status.view(), "authInfo.authenticatedUserRoles", "role"), "readWrite");
  }
  // Without a mechanism the driver asks saslSupportedMechs and picks SCRAM-SHA-256.
  MongocClient negotiated(uri_as("clerk", "s3cret!", "authSource=shop"));
  EXPECT_TRUE(negotiated.run("shop", make_document("count", "items")).succeeded);
  EXPECT_EQ(count_in("shop", "items"), 2);
}

TEST_F(AuthenticationTest, WrongPasswordUnknownUserAndOtherDatabaseFailAndWriteNothing) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("library", make_document("createUser", "reader", "pwd", "right", "roles",
                                                 make_array("readWrite")))
                  .succeeded);
  for (const std::string& uri : {uri_as("reader", "wrong", "authSource=library"),
                                 uri_as("nobody", "right", "authSource=library"),
                                 uri_as("reader", "right", "authSource=admin")}) {
    MongocClient client(uri);
    CommandOutcome insert = client.run("library", make_document("insert", "books", "documents",
                                                                make_array(make_document("t", 1))));
    EXPECT_FALSE(insert.succeeded) << uri;
    EXPECT_EQ(insert.error.domain, static_cast<uint32_t>(MONGOC_ERROR_CLIENT)) << uri;
    EXPECT_EQ(insert.error.code, static_cast<uint32_t>(MONGOC_ERROR_CLIENT_AUTHENTICATE)) << uri;
    EXPECT_NE(std::string(insert.error.message).find("Authentication failed"), std::string::npos)
        << uri << " " << insert.error.message;
  }
  EXPECT_EQ(count_in("library", "books"), 0);
}

TEST_F(AuthenticationTest, UsersAreUpdatedAndDropped) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("ops", make_document("createUser", "temp", "pwd", "one", "roles",
                                             make_array("read")))
                  .succeeded);
  CommandOutcome dup = admin->run(
      "ops", make_document("createUser", "temp", "pwd", "one", "roles", make_array("read")));
  EXPECT_EQ(int_at(dup.reply, "code"), 51003) << dup.reply.to_json();
  CommandOutcome bad_role = admin->run(
      "ops", make_document("createUser", "x", "pwd", "one", "roles", make_array("noSuchRole")));
  EXPECT_EQ(int_at(bad_role.reply, "code"), 31) << bad_role.reply.to_json();
  CommandOutcome empty =
      admin->run("ops", make_document("createUser", "x", "pwd", "", "roles", make_array("read")));
  EXPECT_EQ(int_at(empty.reply, "code"), 2) << empty.reply.to_json();
  ASSERT_TRUE(admin->run("ops", make_document("updateUser", "temp", "pwd", "two")).succeeded);
  EXPECT_FALSE(MongocClient(uri_as("temp", "one", "authSource=ops"))
                   .run("ops", make_document("count", "c"))
                   .succeeded);
  EXPECT_TRUE(MongocClient(uri_as("temp", "two", "authSource=ops"))
                  .run("ops", make_document("count", "c"))
                  .succeeded);
  Document info = admin->run("ops", make_document("usersInfo", "temp")).reply;
  EXPECT_NE(info.to_json().find("\"read\""), std::string::npos) << info.to_json();
  EXPECT_EQ(first_of(info.view(), "users", "user"), "temp") << info.to_json();
  EXPECT_EQ(info.to_json().find("credentials"), std::string::npos) << info.to_json();
  ASSERT_TRUE(admin->run("ops", make_document("dropUser", "temp")).succeeded);
  EXPECT_FALSE(MongocClient(uri_as("temp", "two", "authSource=ops"))
                   .run("ops", make_document("count", "c"))
                   .succeeded);
  EXPECT_EQ(int_at(admin->run("ops", make_document("dropUser", "temp")).reply, "code"), 11);
}

TEST_F(AuthenticationTest, StoredUsersHoldSaltedKeysOnly) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("vault", make_document("createUser", "keeper", "pwd", "VeryS3cretPw",
                                               "roles", make_array("read")))
                  .succeeded);
  CommandOutcome found = admin->run("admin", make_document("find", "system.users", "filter",
                                                           make_document("_id", "vault.keeper")));
  ASSERT_TRUE(found.succeeded) << found.reply.to_json();
  bson::Value batch = found.reply.get_path("cursor.firstBatch");
  ASSERT_TRUE(batch.is_array() && batch.as_array().begin() != batch.as_array().end())
      << found.reply.to_json();
  bson::DocumentView doc = batch.as_array().begin()->value.as_document();
  std::string json = doc.to_json();
  EXPECT_EQ(json.find("VeryS3cretPw"), std::string::npos) << json;
  // Neither the password nor MongoDB's unsalted MD5 digest of it (SCRAM-SHA-1's input).
  EXPECT_FALSE(doc.has("pwd")) << json;
  std::string digest = server::auth::prepared_password(server::auth::ScramMechanism::kSha1,
                                                       "keeper", "VeryS3cretPw");
  EXPECT_EQ(json.find(digest), std::string::npos) << json;
  EXPECT_EQ(json.find(server::auth::base64_encode(digest)), std::string::npos) << json;
  EXPECT_EQ(int_at(doc, "credentials.SCRAM-SHA-256.iterationCount"), 15000) << json;
  EXPECT_EQ(int_at(doc, "credentials.SCRAM-SHA-1.iterationCount"), 10000) << json;
  for (const char* field : {"salt", "storedKey", "serverKey"}) {
    EXPECT_TRUE(doc.get_path(std::string("credentials.SCRAM-SHA-256.") + field).is_string());
  }
}

TEST_F(AuthenticationTest, UsersLackingTheRoleAreRefusedAndWriteNothing) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("depot", make_document("createUser", "viewer", "pwd", "v", "roles",
                                               make_array("read")))
                  .succeeded);
  MongocClient viewer(uri_as("viewer", "v", "authSource=depot"));
  EXPECT_TRUE(viewer.run("depot", make_document("find", "stock")).succeeded);
  CommandOutcome insert = viewer.run(
      "depot", make_document("insert", "stock", "documents", make_array(make_document("n", 1))));
  EXPECT_EQ(int_at(insert.reply, "code"), 13) << insert.reply.to_json();
  // Its role is on depot only.
  EXPECT_EQ(int_at(viewer.run("shop", make_document("find", "items")).reply, "code"), 13);
  EXPECT_EQ(int_at(viewer
                       .run("depot", make_document("createUser", "x", "pwd", "x", "roles",
                                                   make_array("root")))
                       .reply,
                   "code"),
            13);
  EXPECT_EQ(count_in("depot", "stock"), 0);
}

TEST_F(AuthenticationTest, NoRoleButRootWritesTheUsersCollection) {
  auto admin = root();
  ASSERT_TRUE(admin
                  ->run("admin", make_document("createUser", "adminrw", "pwd", "a", "roles",
                                               make_array("readWrite", "readWriteAnyDatabase")))
                  .succeeded);
  MongocClient rw(uri_as("adminrw", "a", "authSource=admin"));
  CommandOutcome forged = rw.run(
      "admin", make_document("insert", "system.users", "documents",
                             make_array(make_document("_id", "admin.forged", "user", "forged"))));
  EXPECT_EQ(int_at(forged.reply, "code"), 13) << forged.reply.to_json();
  CommandOutcome peek = rw.run("admin", make_document("find", "system.users"));
  EXPECT_EQ(int_at(peek.reply, "code"), 13) << peek.reply.to_json();
  // Elsewhere its AnyDatabase role works.
  EXPECT_TRUE(rw.run("elsewhere",
                     make_document("insert", "c", "documents", make_array(make_document("a", 1))))
                  .succeeded);
  Document users = admin->run("admin", make_document("usersInfo", "forged")).reply;
  EXPECT_EQ(users.get("users").as_array().count(), 0u) << users.to_json();
}

bson::Document sasl_start_for(const std::string& user, std::string_view mechanism) {
  static std::string first;
  first = "n,,n=" + user + ",r=fyko+d2lbbFgONRv9qkxdawL";
  return make_document(
      "saslStart", 1, "mechanism", mechanism, "payload",
      bson::BinaryView{0, {reinterpret_cast<const uint8_t*>(first.data()), first.size()}});
}

TEST_F(AuthenticationTest, HelloAnswersSpeculativeAuthenticationAndMechanisms) {
  MongocClient anonymous(server_->uri("serverSelectionTimeoutMS=5000"));
  bson::DocumentBuilder request;
  request.append_elements(sasl_start_for("root", "SCRAM-SHA-256"));
  request.append("db", "admin");
  CommandOutcome hello =
      anonymous.run("admin", make_document("hello", 1, "saslSupportedMechs", "admin.root",
                                           "speculativeAuthenticate", request.finish()));
  ASSERT_TRUE(hello.succeeded) << hello.reply.to_json();
  std::string json = hello.reply.to_json();
  EXPECT_NE(json.find(R"("saslSupportedMechs" : [ "SCRAM-SHA-1", "SCRAM-SHA-256" ])"),
            std::string::npos)
      << json;
  EXPECT_TRUE(hello.reply.get_path("speculativeAuthenticate.payload").type() ==
              bson::BsonType::kBinary)
      << json;
  EXPECT_EQ(int_at(hello.reply, "speculativeAuthenticate.conversationId"), 1) << json;
  // An unknown user: hello still succeeds, without a speculative answer.
  bson::DocumentBuilder unknown;
  unknown.append_elements(sasl_start_for("nobody", "SCRAM-SHA-256"));
  unknown.append("db", "admin");
  CommandOutcome plain = anonymous.run(
      "admin", make_document("hello", 1, "speculativeAuthenticate", unknown.finish()));
  ASSERT_TRUE(plain.succeeded) << plain.reply.to_json();
  EXPECT_FALSE(plain.reply.has("speculativeAuthenticate")) << plain.reply.to_json();
  CommandOutcome plain_mech =
      anonymous.run("admin", make_document("saslStart", 1, "mechanism", "PLAIN", "payload", ""));
  EXPECT_EQ(int_at(plain_mech.reply, "code"), 334) << plain_mech.reply.to_json();
}

TEST_F(AuthenticationTest, RepeatedFailuresOnOneConnectionEndItsAttempts) {
  MongocClient anonymous(server_->uri("serverSelectionTimeoutMS=5000&maxPoolSize=1"));
  for (int i = 0; i < 10; ++i) {
    CommandOutcome failed = anonymous.run("admin", sasl_start_for("ghost", "SCRAM-SHA-256"));
    ASSERT_EQ(int_at(failed.reply, "code"), 18) << failed.reply.to_json();
  }
  // Even a user that exists is no longer tried on this connection.
  CommandOutcome refused = anonymous.run("admin", sasl_start_for("root", "SCRAM-SHA-256"));
  EXPECT_EQ(int_at(refused.reply, "code"), 18) << refused.reply.to_json();
  EXPECT_NE(refused.reply.get("errmsg").as_string().find("too many"), std::string_view::npos)
      << refused.reply.to_json();
  // A new connection may try again.
  MongocClient fresh(server_->uri("serverSelectionTimeoutMS=5000"));
  EXPECT_TRUE(fresh.run("admin", sasl_start_for("root", "SCRAM-SHA-256")).succeeded);
}

}  // namespace
}  // namespace mongostore::testing
