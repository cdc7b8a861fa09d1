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
/// `mongostore serve`: the MongoDB wire protocol in front of the embedded engine.
void register_serve_command(CLI::App& app, Action* action);
/// `mongostore user add`: a user of `serve --auth`, made offline.
void register_user_command(CLI::App& app, Action* action);
/// `mongostore demo [exec|records]`: the ExecutionStore and RecordStore demos.
void register_demo_command(CLI::App& app, Action* action);
/// `mongostore exec ls|show|trace`: inspect an ExecutionStore.
void register_exec_commands(CLI::App& app, Action* action);
/// `mongostore records layout|show|history|fsck`: inspect and check a RecordStore.
void register_records_commands(CLI::App& app, Action* action);
/// `mongostore optimade`: a RecordStore's entry families as an OPTIMADE v1 API over HTTP.
void register_optimade_command(CLI::App& app, Action* action);
/// `mongostore bench`: runs the benchmarks of bench/ and prints their ratio tables.
void register_bench_command(CLI::App& app, Action* action);

}  // namespace mongostore::tool
