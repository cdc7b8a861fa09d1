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
      if (rest != "memory") options.durability = d;
    } else if (name == "cacheSizeMB") {
      options.cache_size_mb = std::stoul(std::string(value));
    } else {
      throw Error(ErrorCode::kBadValue, "connect: unknown URI option '" + std::string(name) + "'");
    }
  }
  return open_embedded(options);
}

}  // namespace mongostore::client
