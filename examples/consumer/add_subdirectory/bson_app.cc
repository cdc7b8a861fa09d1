// The short form of the consumer app for the CTest check: only the BSON layer, so building
// mongostore a second time as a subproject stays quick.
#include <cstdio>

#include "mongostore/bson/builder.h"
#include "mongostore/version.h"

int main() {
  auto doc = mongostore::bson::make_document("_id", 1, "item", "tea");
  if (doc.get("item").as_string() != "tea") return 1;
  std::printf("consumer ok: mongostore %s\n", mongostore::kVersion);
  return 0;
}
