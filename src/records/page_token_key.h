// The key that signs a store's page tokens (page_token.h).
//
// 32 random bytes (OpenSSL's RAND_bytes) in the store's metadata collection, as
// `{_id: "mongostore/page_token_key", key: BinData}`: a document of our own beside httk's
// layout document, which stays byte-equal to httk's so the two systems can open each other's
// stores (store_layout.h). Every process opening the store reads the same key, so a token made
// by one is accepted by another and survives a reopen; tokens of another store (another key)
// are refused. The first page of a store makes the key; when two processes race, one insert
// wins and the other reads it (DuplicateKey).
//
// Errors: OperationFailed (96) when the stored key is not binary data of 32 bytes (someone
// wrote it by hand: no page token of this store can be checked until it is removed, after
// which a new key is made and older tokens are refused); backend errors.
#pragma once

#include <string>

#include "mongostore/client/client.h"

namespace mongostore::records {

inline constexpr const char* kPageTokenKeyId = "mongostore/page_token_key";

/// The page token key of the store in `db`, made on first use.
std::string page_token_key(const client::Database& db);

}  // namespace mongostore::records
