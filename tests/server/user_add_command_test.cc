// `mongostore user add` makes a user offline; `serve --auth` on that data directory then logs
// it in, and the localhost exception is over (a user exists).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/mongoc_test_client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

namespace mongostore::testing {
namespace {

using bson::make_array;
using bson::make_document;

int tool(const std::string& args, const std::string& stdin_text, const TempDir& dir) {
  std::string input = dir.path() + "/stdin.txt";
  std::ofstream(input) << stdin_text;
  std::string command = std::string(testing::tool_path()) + " " + args + " <" + input +
                        " >/dev/null 2>" + dir.path() + "/stderr.txt";
  return std::system(command.c_str());
}

TEST(UserAddCommand, MakesAUserServeAuthLogsIn) {
  TempDir dir;
  std::string data = dir.path() + "/data";
  ASSERT_EQ(tool("user add --dbpath " + data + " --user admin --role root", "adminpw\n", dir), 0);
  ASSERT_EQ(tool("user add --dbpath " + data +
                     " --user clerk --db shop --role readWrite "
                     "--role read@other",
                 "clerkpw\n", dir),
            0);
  // A second user of the same name, an unknown role, no password: refused.
  EXPECT_NE(tool("user add --dbpath " + data + " --user admin --role root", "x\n", dir), 0);
  EXPECT_NE(tool("user add --dbpath " + data + " --user y --role superuser", "x\n", dir), 0);
  EXPECT_NE(tool("user add --dbpath " + data + " --user z --role root", "", dir), 0);

  ServerProcess server({"--dbpath", data, "--auth"});
  std::string host = server.uri("serverSelectionTimeoutMS=5000").substr(10);
  MongocClient anonymous(server.uri("serverSelectionTimeoutMS=5000"));
  CommandOutcome refused = anonymous.run(
      "admin", make_document("createUser", "late", "pwd", "x", "roles", make_array("root")));
  EXPECT_FALSE(refused.succeeded) << refused.reply.to_json();
  MongocClient clerk("mongodb://clerk:clerkpw@" + host + "&authSource=shop");
  EXPECT_TRUE(clerk
                  .run("shop", make_document("insert", "items", "documents",
                                             make_array(make_document("a", 1))))
                  .succeeded);
  MongocClient admin("mongodb://admin:adminpw@" + host);
  CommandOutcome users =
      admin.run("admin", make_document("usersInfo", make_document("forAllDBs", true)));
  ASSERT_TRUE(users.succeeded) << users.reply.to_json();
  EXPECT_EQ(users.reply.get("users").as_array().count(), 2u) << users.reply.to_json();
}

}  // namespace
}  // namespace mongostore::testing
