// ConnectRetry: the retry schedule of ExecutionStore::connect and its async twin.
//
// A worker often starts beside its database (compose, a test harness), so a refused
// connection is retried with backoff (50 ms doubling to 1 s) until the deadline; then the
// last error is raised, saying how long it tried. Only a remote server can come up later: an
// embedded data directory that fails to open, or a URI that does not parse, fails at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mongostore::exec {

class ConnectRetry {
 public:
  ConnectRetry(std::string_view uri, std::chrono::milliseconds deadline);

  /// After a failed attempt with error `code`: how long to wait before the next attempt, or
  /// nullopt to give up.
  std::optional<std::chrono::milliseconds> after_failure(int32_t code);
  /// The URI to connect with. A remote URI that sets no serverSelectionTimeoutMS gets the
  /// time left before the deadline (at least 100 ms): libmongoc's server selection then
  /// waits for the server as long as the caller is willing to, and no longer (its default,
  /// 30 s, would overrun a shorter deadline). The client keeps it for later operations.
  std::string attempt_uri() const;
  /// The error to raise when giving up.
  [[noreturn]] void give_up(int32_t code, std::string_view message) const;

 private:
  std::string uri_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds backoff_{50};
  int attempts_ = 0;
};

/// "mongodb://user:secret@host" -> "mongodb://<credentials>@host": errors name the server,
/// never the password.
std::string redact_uri(std::string_view uri);

}  // namespace mongostore::exec
