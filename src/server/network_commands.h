// Which requests the server answers on its network threads instead of its workers.
//
// Commands run on a worker pool so that one that waits (an fsync, a long scan) never holds a
// network thread. A few commands never touch the engine and must stay quick however busy the
// workers are: the handshake (`hello` / `isMaster`, also a new connection's first message and
// the drivers' heartbeat) and `ping`. Those are answered where the message was read.
#pragma once

#include <cstdint>
#include <span>

namespace mongostore::server {

/// True when `message` (a whole wire message, header included, of any length and content:
/// it is untrusted) is an OP_MSG whose body's first field names hello, isMaster, ismaster,
/// ping or buildInfo, or a legacy OP_QUERY (only the handshake is served on OP_QUERY). Reads
/// at most the header, the flag bits and the first field's name; never throws.
bool runs_on_network_thread(std::span<const uint8_t> message);

}  // namespace mongostore::server
