// The test commands family: configureFailPoint, which exists only when the server runs with
// --enableTestCommands (mongod's setParameter enableTestCommands=1); without it the command
// is unknown (CommandNotFound, 59), as on a mongod without test commands. Only the
// failCommand fail point is available (server/fail_command.h); any other fails
// NotImplemented naming it.
#include "server/commands/command_families.h"

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/commands/command_context.h"

namespace mongostore::server {
namespace {

void configure_fail_point(const CommandContext& ctx, bson::DocumentBuilder& b) {
  bson::Value name = ctx.cmd.get("configureFailPoint");
  if (!name.is_string()) {
    throw Error(ErrorCode::kTypeMismatch, "configureFailPoint takes the fail point's name");
  }
  if (name.as_string() != "failCommand") {
    throw Error(ErrorCode::kNotImplemented, "fail point " + std::string(name.as_string()) +
                                                " is not supported by mongostore (only "
                                                "failCommand is)");
  }
  bson::Value mode = ctx.cmd.get("mode");
  if (mode.is_missing()) throw Error(ErrorCode::kBadValue, "configureFailPoint needs a 'mode'");
  b.append("count", ctx.fail_command.configure(mode, ctx.cmd.get("data")));
}

}  // namespace

void register_test_commands(CommandRegistry& registry) {
  registry.add({"configureFailPoint"}, &configure_fail_point, kAdminOnly, {"mode", "data"});
}

}  // namespace mongostore::server
