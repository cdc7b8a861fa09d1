// What hello needs of the authentication family: the speculative saslStart drivers send in
// the handshake (speculativeAuthenticate) and the mechanisms of a user (saslSupportedMechs).
#pragma once

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"

namespace mongostore::server {

struct CommandContext;

/// Runs `request` ({saslStart: 1, mechanism, payload, db}) as saslStart on ctx.connection and
/// appends `speculativeAuthenticate: {conversationId, done, payload}` to `b`; on any failure
/// appends nothing, as mongod does (the driver then authenticates with saslStart).
void speculative_authenticate(const CommandContext& ctx, bson::DocumentView request,
                              bson::DocumentBuilder& b);

/// Appends `saslSupportedMechs: [...]` for "db.user" when that user exists.
void supported_mechanisms(const CommandContext& ctx, std::string_view db_user,
                          bson::DocumentBuilder& b);

}  // namespace mongostore::server
