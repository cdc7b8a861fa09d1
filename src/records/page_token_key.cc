#include "records/page_token_key.h"

#include <openssl/rand.h>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/error.h"
#include "records/store_layout.h"

namespace mongostore::records {

namespace {

constexpr size_t kKeyBytes = 32;

std::optional<std::string> stored_key(const client::Collection& metadata) {
  std::optional<bson::Document> doc =
      metadata.find_one(bson::make_document("_id", kPageTokenKeyId));
  if (!doc) return std::nullopt;
  bson::Value key = doc->view().get("key");
  if (key.type() != bson::BsonType::kBinary || key.as_binary().bytes.size() != kKeyBytes) {
    throw Error(ErrorCode::kOperationFailed,
                std::string("the page token key (") + kMetadataCollection + " {_id: \"" +
                    kPageTokenKeyId + "\"}) is not 32 bytes of binary data");
  }
  auto bytes = key.as_binary().bytes;
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

std::string page_token_key(const client::Database& db) {
  client::Collection metadata = db.collection(kMetadataCollection);
  if (std::optional<std::string> key = stored_key(metadata)) return *key;
  unsigned char fresh[kKeyBytes];
  if (RAND_bytes(fresh, static_cast<int>(kKeyBytes)) != 1) {
    throw Error(ErrorCode::kInternalError, "no random bytes for the page token key");
  }
  bson::DocumentBuilder doc;
  doc.append("_id", kPageTokenKeyId);
  doc.append("key", bson::BinaryView{0, std::span<const uint8_t>(fresh, kKeyBytes)});
  try {
    metadata.insert_one(doc.finish());
  } catch (const DuplicateKeyError&) {
    // Another process made it first: theirs is the key.
  }
  return *stored_key(metadata);
}

}  // namespace mongostore::records
