// SessionCatalog: the server's logical sessions (mongod's SessionCatalog plus its logical
// session cache), keyed by lsid.
//
// A session belongs to the users authenticated when it was created (its owner, "" without
// --auth), as mongod's lsid carries the uid of its user: the same lsid sent by another user
// names another session, and killSessions without killAnySession ends only the caller's.
//
// A session is created by the first command that names it (or by startSession) and lives
// until endSessions / killSessions names it or it goes unused for `timeout`
// (logicalSessionTimeoutMinutes, 30 by default; refreshSessions and every command using it
// count as use). Ending a session, for whatever reason, aborts its open transaction and
// kills the cursors it opened.
//
// A command checks its session out for the time it runs (Checkout): the commands of one
// session run one at a time, as mongod serialises them, and the session's state (its
// highest txnNumber, the reply of its last retryable write, its transaction, its cursors)
// is read and changed only by the holder. A session ended while checked out is cleaned up
// when its holder returns it; the next command naming the lsid starts a new session.
//
// Bounded: at most `max_sessions` sessions exist at once; one more fails
// TooManyLogicalSessions (261), as mongod's maxSessions does.
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/transaction.h"

namespace mongostore::server {

/// One logical session's state. Read and changed only by the command holding it checked out.
struct Session {
  explicit Session(std::string key, std::string owner = "")
      : key(std::move(key)), owner(std::move(owner)) {}
  /// The lsid's id (16 bytes).
  const std::string key;
  /// Who owns it: the users authenticated when it was created ("" without --auth).
  const std::string owner;

  /// The highest txnNumber the session has used (-1: none yet).
  int64_t txn_number = -1;
  /// The reply of the retryable write made under txn_number (not a transaction), kept so a
  /// retry returns it without writing again. Empty when that write failed as a whole (it
  /// may then run again).
  std::optional<bson::Document> write_reply;
  /// The transaction started under txn_number, when txn_number is a transaction's (it stays
  /// after commit or abort, so a retried commit or a late statement is answered right).
  std::shared_ptr<engine::Transaction> transaction;
  /// The cursors the session's commands opened and did not exhaust.
  std::set<int64_t> cursors;

  /// Set once the session is ended (it is out of the catalog); whoever holds it cleans it.
  std::atomic<bool> ended{false};

 private:
  friend class SessionCatalog;
  std::mutex run_mutex;  // held by the Checkout
  std::chrono::steady_clock::time_point last_use;
  int users = 0;  // Checkouts holding or waiting for it (guarded by the catalog's mutex)
};

class SessionCatalog {
 public:
  /// `cleanup` runs once for each ended session, with the session checked out (it aborts the
  /// transaction and kills the cursors).
  SessionCatalog(std::chrono::milliseconds timeout, size_t max_sessions,
                 std::function<void(Session&)> cleanup);
  ~SessionCatalog();

  /// A session checked out for one command; returns it on destruction.
  class Checkout {
   public:
    Checkout(Checkout&& other) noexcept : catalog_(other.catalog_), session_(other.session_) {
      other.session_ = nullptr;
    }
    Checkout& operator=(Checkout&&) = delete;
    ~Checkout();
    Session& operator*() const { return *session_; }
    Session* operator->() const { return session_.get(); }

   private:
    friend class SessionCatalog;
    Checkout(SessionCatalog* catalog, std::shared_ptr<Session> session)
        : catalog_(catalog), session_(std::move(session)) {}
    SessionCatalog* catalog_;
    std::shared_ptr<Session> session_;
  };

  /// The session `key` (created when new), checked out: waits while another command of the
  /// same session runs. Expires idle sessions first. Fails TooManyLogicalSessions (261).
  /// Sessions are per owner (see above): `owner` names whose session `key` is meant.
  Checkout check_out(const std::string& key, const std::string& owner = "");

  /// Creates session `key` of `owner` unless it exists (startSession). Fails as check_out.
  void start(const std::string& key, const std::string& owner = "");

  /// Marks session `key` of `owner` used now (refreshSessions); a no-op for an unknown one.
  void refresh(const std::string& key, const std::string& owner = "");

  /// Ends session `key` of `owner` (endSessions, killSessions); a no-op for an unknown one.
  void end(const std::string& key, const std::string& owner = "");

  /// Ends session `key` of every owner (killSessions by a user with killAnySession).
  void end_of_any_owner(const std::string& key);

  /// Ends every session (killSessions with an empty list by a user with killAnySession).
  void end_all();

  /// Ends every session of `owner` (killSessions with an empty list by anyone else).
  void end_all_of(const std::string& owner);

  /// Ends the sessions unused for longer than the timeout; returns how many.
  size_t expire_idle();

  /// The number of sessions.
  size_t size() const;

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  static std::string map_key(const std::string& key, const std::string& owner);
  std::shared_ptr<Session> find_or_create_locked(const std::string& key, const std::string& owner);
  void end_if(const std::function<bool(const Session&)>& which);
  void end_locked(std::vector<std::shared_ptr<Session>>& ended,
                  std::unordered_map<std::string, std::shared_ptr<Session>>::iterator it);
  void finish_ending(std::vector<std::shared_ptr<Session>>& ended);
  void clean(Session& session);

  const std::chrono::milliseconds timeout_;
  const size_t max_sessions_;
  const std::function<void(Session&)> cleanup_;
  mutable std::mutex mutex_;
  // Keyed by map_key(lsid, owner).
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  std::chrono::steady_clock::time_point next_expiry_;
};

}  // namespace mongostore::server
