// The subcommands of the `mongostore` tool. Each registers itself on the CLI11 app and runs
// when chosen; errors propagate as mongostore::Error and become a one-line message in main.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace mongostore::tool {

using Action = std::function<int()>;

/// `mongostore workload`: the embedded workload the README's first command runs.
void register_workload_command(CLI::App& app, Action* action);
/// `mongostore insert`, `find`, `ls`: small document tools over a data directory.
void register_document_commands(CLI::App& app, Action* action);

}  // namespace mongostore::tool
