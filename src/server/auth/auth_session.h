// AuthSession: what one connection has proved about itself: the users it authenticated
// (with their roles, read when they authenticated) and the SASL conversation under way, if
// any. One per connection (ConnectionInfo::auth); a connection runs one command at a time,
// but the commands of a connection may run on different worker threads, so every access
// takes the session's lock.
//
// Failed authentications are counted: past kMaxFailures on one connection, every further
// attempt fails at once without a conversation (the client must reconnect), so a client
// cannot use one connection to try passwords without end.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/auth/roles.h"
#include "server/auth/scram.h"

namespace mongostore::server::auth {

struct AuthenticatedUser {
  std::string user;
  std::string db;
  std::vector<RoleName> roles;
};

class AuthSession {
 public:
  static constexpr int kMaxFailures = 10;

  /// The lock every other member is read and written under.
  std::mutex mutex;
  std::vector<AuthenticatedUser> users;
  /// The conversation saslStart began and saslContinue continues; its database and id.
  std::unique_ptr<ScramConversation> conversation;
  std::string conversation_db;
  int32_t conversation_id = 0;
  /// True once the conversation's proof was accepted and the server's signature sent: the
  /// client may send one more, empty, saslContinue to end it (skipEmptyExchange: false).
  bool awaiting_empty_exchange = false;
  /// saslStart's options.skipEmptyExchange: the server's signature ends the conversation.
  bool skip_empty_exchange = false;
  int failures = 0;

  /// Adds (or refreshes) `user`: authenticating again as the same user replaces it.
  void add(AuthenticatedUser user) {
    for (AuthenticatedUser& u : users) {
      if (u.user == user.user && u.db == user.db) {
        u = std::move(user);
        return;
      }
    }
    users.push_back(std::move(user));
  }
};

/// The users `session` has authenticated (a copy taken under its lock); none for null.
inline std::vector<AuthenticatedUser> users_of(const std::shared_ptr<AuthSession>& session) {
  if (!session) return {};
  std::lock_guard lock(session->mutex);
  return session->users;
}

/// "user@db" of each of `users`, sorted: who owns the cursors and sessions a connection opens
/// (mongod ties both to the users authenticated when they were opened).
inline std::vector<std::string> user_names(const std::vector<AuthenticatedUser>& users) {
  std::vector<std::string> names;
  for (const AuthenticatedUser& u : users) names.push_back(u.user + "@" + u.db);
  std::sort(names.begin(), names.end());
  return names;
}

/// `names` (user_names) as one string: the owner of the sessions a connection starts.
inline std::string session_owner(const std::vector<std::string>& names) {
  std::string owner;
  for (const std::string& name : names) owner += (owner.empty() ? "" : ",") + name;
  return owner;
}

/// mongod's coauthorization: two sets of users may share a cursor when both are empty or
/// they have a user in common.
inline bool coauthorized(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() && b.empty()) return true;
  for (const std::string& name : a) {
    if (std::find(b.begin(), b.end(), name) != b.end()) return true;
  }
  return false;
}

}  // namespace mongostore::server::auth
