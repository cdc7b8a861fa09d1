// `serve --tls-mode`: certificates made here with the openssl CLI (a CA and a server
// certificate for 127.0.0.1); libmongoc connects with tls=true and the CA; requireTLS closes
// plain connections; allowTLS takes both; the remote backend passes TLS options and
// credentials from its URI to `serve --auth --tls-mode requireTLS`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "server/auth_server_test.h"
#include "server/mongoc_test_client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

namespace mongostore::testing {
namespace {

using bson::make_array;
using bson::make_document;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string d = dir_->path();
    std::ofstream(d + "/ext.cnf") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    std::string script =
        "cd " + d +
        " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        " -keyout ca.key -out ca.pem -days 2 -subj /CN=mongostore-test-ca"
        " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        " -keyout server.key -out server.csr -subj /CN=localhost"
        " && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial"
        " -out server.crt -days 2 -extfile ext.cnf"
        " && cat server.crt server.key > server.pem";
    ASSERT_EQ(std::system(("(" + script + ") >" + d + "/openssl.log 2>&1").c_str()), 0)
        << "openssl failed";
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::vector<std::string> tls_args(const std::string& mode) {
    return {"--memory", "--tls-mode", mode, "--tls-cert-key-file", dir_->path() + "/server.pem"};
  }
  static std::string tls_options() {
    return "serverSelectionTimeoutMS=3000&tls=true&tlsCAFile=" + dir_->path() + "/ca.pem";
  }
  static TempDir* dir_;
};

TempDir* TlsTest::dir_ = nullptr;

TEST_F(TlsTest, RequireTlsServesTlsClientsOnly) {
  ServerProcess server(tls_args("requireTLS"));
  MongocClient tls(server.uri(tls_options()));
  CommandOutcome ping = tls.run("admin", make_document("ping", 1));
  EXPECT_TRUE(ping.succeeded) << ping.error.message;
  EXPECT_TRUE(
      tls.run("db", make_document("insert", "c", "documents", make_array(make_document("a", 1))))
          .succeeded);
  MongocClient plain(server.uri("serverSelectionTimeoutMS=1000"));
  EXPECT_FALSE(plain.run("admin", make_document("ping", 1)).succeeded);
  // A client that does not trust the server's CA is refused by its own side.
  MongocClient untrusting(server.uri("serverSelectionTimeoutMS=1000&tls=true"));
  EXPECT_FALSE(untrusting.run("admin", make_document("ping", 1)).succeeded);
}

TEST_F(TlsTest, AllowTlsServesBoth) {
  ServerProcess server(tls_args("allowTLS"));
  EXPECT_TRUE(
      MongocClient(server.uri(tls_options())).run("admin", make_document("ping", 1)).succeeded);
  EXPECT_TRUE(MongocClient(server.uri("serverSelectionTimeoutMS=3000"))
                  .run("admin", make_document("ping", 1))
                  .succeeded);
}

TEST_F(TlsTest, RemoteBackendWithCredentialsOverTls) {
  std::vector<std::string> args = tls_args("requireTLS");
  args.push_back("--auth");
  ServerProcess server(args);
  std::string host = server.uri().substr(10);
  CommandOutcome made = make_root_user(server.uri(tls_options()));
  ASSERT_TRUE(made.succeeded) << made.error.message;
  auto client = client::connect("mongodb://root:rootpw@" + host + "?" + tls_options() +
                                "&authMechanism=SCRAM-SHA-256");
  client->insert_one("shop", "orders", make_document("_id", 1).view());
  EXPECT_TRUE(client->find_one("shop", "orders", make_document("_id", 1).view(), {}).has_value());
}

TEST_F(TlsTest, MissingCertificateRefusesToStart) {
  std::string command = std::string(testing::tool_path()) +
                        " serve --memory --port 0 --tls-mode requireTLS --tls-cert-key-file " +
                        dir_->path() + "/missing.pem >/dev/null 2>&1";
  EXPECT_NE(std::system(command.c_str()), 0);
}

}  // namespace
}  // namespace mongostore::testing
