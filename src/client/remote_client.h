// The remote backend: the Client seam over a MongoDB deployment through libmongoc.
//
// Internal header: connect() in connect.cc is the public way in. Every operation pops a client
// from one mongoc_client_pool_t (so a RemoteClient is safe to share between threads), sends
// the MongoDB command that the operation is (insert, update, find, aggregate, ...) and turns
// the reply into the seam's result types, or into the same typed exceptions the embedded
// backend raises: mongostore::Error with the server's code, DuplicateKeyError (carrying
// keyPattern and keyValue) for 11000.
#pragma once

#include <memory>
#include <string_view>

#include "client/command_monitoring.h"
#include "mongostore/client/client.h"

namespace mongostore::client {

/// Opens the remote backend on a `mongodb://` or `mongodb+srv://` URI and waits until the
/// deployment answers a ping: libmongoc's pooled server selection keeps retrying the servers
/// (every 500 ms) for up to serverSelectionTimeoutMS (the URI option; default 30 000 ms), and
/// connect retries a failed ping with backoff (50 ms doubling to 1 s) until that same deadline.
/// Throws Error(BadValue) for an unparsable URI and Error(HostUnreachable, 6) when no server
/// answered in time.
std::shared_ptr<Client> connect_remote(std::string_view uri);

/// As connect_remote(uri), with every command the client (and its sessions) sends reported to
/// `observer` (see command_monitoring.h; the connect-time ping included). For tests that
/// check the commands sent, such as the unified spec runner's expectEvents.
std::shared_ptr<Client> connect_remote(std::string_view uri, CommandObserver observer);

class RemoteCommandRunner;

/// The remote Client whose commands go through `runner` (a session's runner, for
/// RemoteSession).
std::shared_ptr<Client> remote_client_on(std::shared_ptr<RemoteCommandRunner> runner);

}  // namespace mongostore::client
