// OperationSessionInfo: the session fields of one command (lsid, txnNumber, autocommit,
// startTransaction), parsed and checked as mongod 7.0 checks them before anything runs.
//
// lsid is {id: UUID (binData subtype 4), uid: binData (optional, what a mongos or an
// authenticated driver session may carry)}. txnNumber is a non-negative integer and needs an
// lsid; autocommit may only be false and needs a txnNumber; startTransaction may only be true
// and needs autocommit: false. Errors are mongod's: TypeMismatch (14) for a wrong type,
// Location40414 for a missing lsid.id, Location40415 for an unknown lsid field, BadValue (2)
// for a negative txnNumber, InvalidOptions (72) for a field without the one it needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mongostore/bson/document.h"

namespace mongostore::server {

struct SessionInfo {
  /// The session's key: lsid.id's 16 bytes followed by lsid.uid's, when present. Empty when
  /// the command carries no lsid.
  std::string lsid;
  std::optional<int64_t> txn_number;
  /// True when the command is a statement of a multi-document transaction (autocommit: false).
  bool in_transaction = false;
  bool start_transaction = false;
};

/// Parses and checks the session fields of `cmd`.
SessionInfo parse_session_info(const bson::DocumentView& cmd);

/// Parses one logical session id document ({id: UUID, uid?: binData}) as `field` names it in
/// errors (endSessions.0, ...) and returns its key.
std::string parse_lsid(const bson::Value& lsid, std::string_view field);

/// The lsid document ({id: UUID}) of a session key.
bson::Document lsid_document(const std::string& key);

}  // namespace mongostore::server
