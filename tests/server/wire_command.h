// Helpers for tests that speak to `mongostore serve` over a raw WireConnection: run a command
// and take its reply body, read `ok` (int_at and path_at are in reply_path.h). Failures are gtest
// expectations naming the command or the reply, so a test reads as its assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>

#include "mongostore/bson/document.h"
#include "server/reply_path.h"
#include "server/wire_connection.h"

namespace mongostore::testing {

/// The reply body of `command` on `conn` (empty, and a failed expectation, if none came).
inline bson::Document run(WireConnection& conn, const bson::Document& command) {
  auto reply = conn.command(command);
  EXPECT_TRUE(reply.has_value()) << command.to_json();
  return reply ? reply->body : bson::Document();
}

/// The reply's `ok` (-1 when it has none).
inline double ok_of(const bson::Document& reply) {
  return reply.get("ok").is_number() ? reply.get("ok").number_as_double() : -1;
}

}  // namespace mongostore::testing
