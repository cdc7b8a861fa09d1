// The program every consumer example builds: it uses mongostore the way an application does
// (an embedded in-memory store: insert, find) and prints the version it was built against.
// Shared by the three ways of using the library (find_package, pkg-config, add_subdirectory).
#include <cstdio>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/version.h"

int main() {
  auto client = mongostore::client::connect("embedded:memory");
  auto orders = client->database("shop").collection("orders");
  orders.insert_one(mongostore::bson::make_document("_id", 1, "item", "tea"));
  auto found = orders.find_one(mongostore::bson::make_document("_id", 1));
  if (!found || found->get("item").as_string() != "tea") {
    std::fprintf(stderr, "consumer: the document did not come back\n");
    return 1;
  }
  std::printf("consumer ok: mongostore %s\n", mongostore::kVersion);
  return 0;
}
