// RemoteCommandRunner: sends one MongoDB command through a libmongoc client pool and returns
// the reply as a bson::Document, or throws the typed mongostore::Error the reply stands for.
//
// This is the only place of the remote backend that touches libmongoc's command API, so the
// mapping from server replies and transport failures to mongostore errors lives in one spot:
//
// - a reply with ok: 0 becomes Error(code, errmsg), and DuplicateKeyError for 11000;
// - a write reply's first writeErrors entry becomes the same (ordered writes stop there);
// - a writeConcernError becomes Error(code, errmsg);
// - a server that cannot be selected or a broken connection becomes HostUnreachable (6), a
//   socket timeout NetworkTimeout (89).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "client/command_monitoring.h"
#include "mongostore/bson/document.h"

struct _mongoc_client_pool_t;
struct _mongoc_client_t;
struct _mongoc_client_session_t;
struct _bson_error_t;

namespace mongostore::client {

/// How a command is routed: reads follow the URI's read preference; writes (and reads that
/// write, such as an aggregate ending in $out) go to the primary and carry the URI's write
/// concern.
/// kPlain: neither (ping, hello: commands that take no readConcern / writeConcern, which a
/// server refuses on them).
enum class CommandKind { kRead, kWrite, kReadWrite, kPlain };

class RemoteCommandRunner {
 public:
  /// Takes ownership of `pool`. With an `observer`, every command of the pool's clients is
  /// reported to it (installed here, so before any client is popped; kept alive with the
  /// pool).
  explicit RemoteCommandRunner(_mongoc_client_pool_t* pool, CommandObserver observer = nullptr);
  /// A runner whose commands run in `session` (started on `client`, a client popped from
  /// `base`'s pool and held by the session's owner): every command goes through `client`
  /// with the session's lsid (and txnNumber and transaction fields in a transaction)
  /// appended. `base` is kept alive.
  RemoteCommandRunner(std::shared_ptr<RemoteCommandRunner> base, _mongoc_client_t* client,
                      _mongoc_client_session_t* session);
  ~RemoteCommandRunner();

  _mongoc_client_pool_t* pool() const { return pool_; }
  RemoteCommandRunner(const RemoteCommandRunner&) = delete;
  RemoteCommandRunner& operator=(const RemoteCommandRunner&) = delete;

  /// Runs `command` on database `db`. `server_id` (non-zero) pins the command to one server,
  /// as getMore and killCursors must go where their cursor lives. Throws as described above;
  /// write replies are checked for writeErrors / writeConcernError.
  bson::Document run(CommandKind kind, std::string_view db, bson::DocumentView command,
                     uint32_t server_id = 0);
  /// As run(), but also returns the id of the server that answered (for cursors).
  bson::Document run_pinned(CommandKind kind, std::string_view db, bson::DocumentView command,
                            uint32_t* server_id);

 private:
  bson::Document run_on(_mongoc_client_t* client, CommandKind kind, std::string_view db,
                        bson::DocumentView command, uint32_t server_id);

  _mongoc_client_pool_t* pool_;
  // Outlives the pool: the pool is destroyed in the destructor's body (its endSessions is
  // still observed), members after it.
  std::unique_ptr<CommandObserver> observer_;
  std::shared_ptr<RemoteCommandRunner> base_;  // set in a session's runner
  _mongoc_client_t* session_client_ = nullptr;
  _mongoc_client_session_t* session_ = nullptr;
};

/// A labelled mongostore::Error for a failed libmongoc call: `reply` is the server's reply
/// (maybe empty), whose errorLabels (libmongoc adds TransientTransactionError /
/// UnknownTransactionCommitResult to it for network errors in a transaction) the error
/// carries.
[[noreturn]] void throw_remote_error(const bson::Document& reply, const _bson_error_t& error);

/// Throws the error a write reply ({n, writeErrors, writeConcernError}) reports, if any.
void throw_on_write_errors(const bson::Document& reply);

}  // namespace mongostore::client
