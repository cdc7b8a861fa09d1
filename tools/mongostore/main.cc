// mongostore: the command-line tool. `mongostore --help` lists the commands.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "mongostore/error.h"
#include "mongostore/version.h"

int main(int argc, char** argv) {
  CLI::App app{"mongostore: durable MongoDB-backed stores for C++ programs"};
  app.set_version_flag("--version", std::string("mongostore ") + mongostore::kVersion);
  app.require_subcommand(1);
  mongostore::tool::Action action;
  mongostore::tool::register_demo_command(app, &action);
  mongostore::tool::register_exec_commands(app, &action);
  mongostore::tool::register_records_commands(app, &action);
  mongostore::tool::register_optimade_command(app, &action);
  mongostore::tool::register_workload_command(app, &action);
  mongostore::tool::register_document_commands(app, &action);
  mongostore::tool::register_serve_command(app, &action);
  mongostore::tool::register_user_command(app, &action);
  mongostore::tool::register_bench_command(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a wrong option or value is a usage error: exit 2, as
    // getopt-style tools do (CLI11's own codes, 105..115, mean nothing to a shell script).
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const mongostore::Error& e) {
    fmt::print(stderr, "mongostore: error: {} ({} {})\n", e.what(), e.code_name(), e.code());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "mongostore: error: {}\n", e.what());
    return 1;
  }
}
