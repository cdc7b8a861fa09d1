#include <string>

#include "client/remote_client.h"
#include "client/write_validation.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"

namespace mongostore::client {

Database Client::database(std::string_view name) {
  return Database(shared_from_this(), std::string(name));
}

Collection Database::collection(std::string_view name) const {
  return Collection(client_, name_, std::string(name));
}

UpdateResult Collection::update_one(bson::DocumentView filter, bson::DocumentView update,
                                    const UpdateOptions& options) const {
  require_update_operators(update, "updateOne");
  return client_->update_one(db_, name_, filter, update, options);
}

UpdateResult Collection::update_many(bson::DocumentView filter, bson::DocumentView update,
                                     const UpdateOptions& options) const {
  require_update_operators(update, "updateMany");
  return client_->update_many(db_, name_, filter, update, options);
}

namespace {

// cacheSizeMB: whole MiB from 1 to WiredTiger's largest cache (10 TiB).
size_t cache_size_mb(std::string_view value) {
  constexpr size_t kMaxMb = size_t{10} << 20;
  size_t mb = 0;
  bool ok = !value.empty() && value.size() <= 8;
  for (char c : value) {
    if (c < '0' || c > '9') ok = false;
    if (ok) mb = mb * 10 + size_t(c - '0');
  }
  if (!ok || mb == 0 || mb > kMaxMb) {
    throw Error(ErrorCode::kBadValue,
                "connect: cacheSizeMB must be a whole number of MiB from 1 to " +
                    std::to_string(kMaxMb) + ", not '" + std::string(value) + "'");
  }
  return mb;
}

}  // namespace

std::shared_ptr<Client> connect(std::string_view uri) {
  if (uri.starts_with("mongodb://") || uri.starts_with("mongodb+srv://")) {
    return connect_remote(uri);
  }
  std::string_view rest = uri;
  if (rest.starts_with("embedded:")) rest.remove_prefix(9);
  if (rest.empty()) throw Error(ErrorCode::kBadValue, "connect: empty URI");
  engine::EngineOptions options;
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (rest == "memory") {
    options.durability = engine::Durability::kInMemory;
  } else {
    options.path = std::string(rest);
  }
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view option = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    size_t eq = option.find('=');
    std::string_view name = option.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? "" : option.substr(eq + 1);
    if (name == "durability") {
      engine::Durability d = engine::parse_durability(value);
      if (rest == "memory" && d != engine::Durability::kInMemory) {
        throw Error(ErrorCode::kBadValue, "connect: durability=" + std::string(value) +
                                              " does not apply to embedded:memory");
      }
      if (rest != "memory") options.durability = d;
    } else if (name == "cacheSizeMB") {
      options.cache_size_mb = cache_size_mb(value);
    } else {
      throw Error(ErrorCode::kBadValue, "connect: unknown URI option '" + std::string(name) + "'");
    }
  }
  return open_embedded(options);
}

}  // namespace mongostore::client
