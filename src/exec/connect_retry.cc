#include "exec/connect_retry.h"

#include <algorithm>

#include "mongostore/error.h"

namespace mongostore::exec {

std::string redact_uri(std::string_view uri) {
  size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::string(uri);
  size_t host_end = uri.find('/', scheme + 3);
  size_t at = uri.substr(0, host_end).rfind('@');
  if (at == std::string_view::npos || at < scheme) return std::string(uri);
  return std::string(uri.substr(0, scheme + 3)) + "<credentials>" + std::string(uri.substr(at));
}

ConnectRetry::ConnectRetry(std::string_view uri, std::chrono::milliseconds deadline)
    : uri_(uri), start_(std::chrono::steady_clock::now()), deadline_(start_ + deadline) {}

std::optional<std::chrono::milliseconds> ConnectRetry::after_failure(int32_t code) {
  ++attempts_;
  bool remote = uri_.starts_with("mongodb://") || uri_.starts_with("mongodb+srv://");
  bool permanent = code == static_cast<int32_t>(ErrorCode::kBadValue) ||
                   code == static_cast<int32_t>(ErrorCode::kFailedToParse) ||
                   code == static_cast<int32_t>(ErrorCode::kInvalidOptions);
  auto now = std::chrono::steady_clock::now();
  if (!remote || permanent || now >= deadline_) return std::nullopt;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now);
  // Never sleep past the deadline: the last attempt happens at it.
  auto wait = std::min(backoff_, std::max(left, std::chrono::milliseconds(1)));
  backoff_ = std::min(backoff_ * 2, std::chrono::milliseconds(1000));
  return wait;
}

std::string ConnectRetry::attempt_uri() const {
  bool remote = uri_.starts_with("mongodb://") || uri_.starts_with("mongodb+srv://");
  if (!remote || uri_.find("serverSelectionTimeoutMS") != std::string::npos ||
      uri_.find("serverselectiontimeoutms") != std::string::npos) {
    return uri_;
  }
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline_ - std::chrono::steady_clock::now());
  int64_t ms = std::max<int64_t>(left.count(), 100);
  // mongodb://host[:port][,host...][/[db]][?options]: options follow the first '?', and a
  // '/' must separate them from the host list.
  std::string uri = uri_;
  size_t query = uri.find('?');
  if (query != std::string::npos) {
    return uri + (query + 1 == uri.size() ? "" : "&") +
           "serverSelectionTimeoutMS=" + std::to_string(ms);
  }
  if (uri.find('/', uri.find("://") + 3) == std::string::npos) uri += '/';
  return uri + "?serverSelectionTimeoutMS=" + std::to_string(ms);
}

void ConnectRetry::give_up(int32_t code, std::string_view message) const {
  auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start_);
  throw Error(code, "ExecutionStore::connect(" + redact_uri(uri_) + "): gave up after " +
                        std::to_string(attempts_) + " attempt(s) in " +
                        std::to_string(waited.count()) + " ms: " + std::string(message));
}

}  // namespace mongostore::exec
