// Command monitoring of the remote backend: a test-visible observer of every command the
// backend's libmongoc clients send (libmongoc's APM callbacks, mongoc_apm_callbacks_t).
//
// Internal: MongoDB's unified spec tests (tests/spec/) check the commands a driver sends
// (expectEvents), and this is how they see them. Only a client opened with
// connect_remote(uri, observer) is monitored; without an observer no callback is installed,
// so the command path pays nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mongostore/bson/document.h"

struct _mongoc_client_pool_t;

namespace mongostore::client {

/// One command monitoring event, as the command monitoring specification names them.
struct CommandEvent {
  enum class Kind { kStarted, kSucceeded, kFailed };
  Kind kind = Kind::kStarted;
  std::string command_name;
  /// kStarted only (libmongoc 1.x reports it for started events alone).
  std::string database_name;
  /// kStarted: the command as sent (with lsid, txnNumber, ... appended); kSucceeded and
  /// kFailed: the server's reply (empty when there was none, e.g. a network error).
  bson::Document document;
  /// kFailed: the error's code (the server's, or libmongoc's for a transport failure).
  int32_t error_code = 0;
};

/// Called on the thread that sends the command, before it returns; it must not run commands
/// on the same client. Sensitive commands (hello with speculative authentication, saslStart,
/// ...) arrive redacted, as libmongoc reports them.
using CommandObserver = std::function<void(const CommandEvent&)>;

/// Installs `observer` (which must outlive the pool) on `pool`: call it before the first
/// client is popped (libmongoc's rule).
void install_command_observer(_mongoc_client_pool_t* pool, const CommandObserver* observer);

}  // namespace mongostore::client
