// The remote backend (client::connect with a mongodb:// URI) against `serve --auth`: the
// URI's credentials, authSource and authMechanism reach libmongoc, a user with the role
// reads and writes, a wrong password fails to connect and a read-only user's write fails
// Unauthorized (13).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "server/auth_server_test.h"

namespace mongostore::testing {
namespace {

using bson::make_array;
using bson::make_document;

class RemoteBackendAuth : public AuthServerTest {};

TEST_F(RemoteBackendAuth, UriCredentialsReachTheServer) {
  std::string host = server_->uri("serverSelectionTimeoutMS=3000").substr(10);
  std::unique_ptr<MongocClient> admin = root();
  ASSERT_TRUE(admin
                  ->run("shop", make_document("createUser", "clerk", "pwd", "clerkpw", "roles",
                                              make_array("readWrite")))
                  .succeeded);
  ASSERT_TRUE(admin
                  ->run("shop", make_document("createUser", "viewer", "pwd", "viewerpw", "roles",
                                              make_array("read")))
                  .succeeded);

  auto clerk = client::connect("mongodb://clerk:clerkpw@" + host +
                               "&authSource=shop&authMechanism=SCRAM-SHA-256");
  clerk->insert_one("shop", "orders", make_document("_id", 1, "total", 9.5).view());
  ASSERT_TRUE(clerk->find_one("shop", "orders", make_document("_id", 1).view(), {}).has_value());

  EXPECT_THROW(client::connect("mongodb://clerk:wrong@" + host + "&authSource=shop"), Error);

  auto viewer = client::connect("mongodb://viewer:viewerpw@" + host + "&authSource=shop");
  EXPECT_TRUE(viewer->find_one("shop", "orders", make_document("_id", 1).view(), {}).has_value());
  try {
    viewer->insert_one("shop", "orders", make_document("_id", 2).view(), {});
    ADD_FAILURE() << "a read-only user wrote";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 13) << e.what();
  }
  EXPECT_FALSE(clerk->find_one("shop", "orders", make_document("_id", 2).view(), {}).has_value());
}

}  // namespace
}  // namespace mongostore::testing
