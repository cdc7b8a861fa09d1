// `mongostore user add`: makes a user of `serve --auth` in a data directory that is not being
// served (the other way to make the first user besides the localhost exception). The
// password is read from the first line of stdin, never from the command line, where other
// users of the machine could read it (ps).
#include <fmt/core.h>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "mongostore/server/users.h"

namespace mongostore::tool {

void register_user_command(CLI::App& app, Action* action) {
  static std::string dbpath, db = "admin", user;
  static std::vector<std::string> roles;
  auto* group = app.add_subcommand("user", "Manage the users of `serve --auth`");
  group->require_subcommand(1);
  auto* add = group->add_subcommand(
      "add",
      "Create a user (password: the first line of stdin) in a data directory not being "
      "served");
  add->add_option("--dbpath", dbpath, "Data directory")->required();
  add->add_option("--user", user, "User name")->required();
  add->add_option("--db", db, "The user's database (its authSource)")->capture_default_str();
  add->add_option("--role", roles,
                  "A built-in role, as ROLE (on --db) or ROLE@DB; repeat for several")
      ->required();
  add->callback([action] {
    *action = [] {
      std::string password;
      if (!std::getline(std::cin, password)) {
        throw Error(ErrorCode::kBadValue, "give the password on the first line of stdin");
      }
      if (!password.empty() && password.back() == '\r') password.pop_back();
      std::vector<std::pair<std::string, std::string>> granted;
      for (const std::string& r : roles) {
        size_t at = r.find('@');
        granted.emplace_back(r.substr(0, at), at == std::string::npos ? db : r.substr(at + 1));
      }
      engine::EngineOptions options;
      options.path = dbpath;
      options.durability = engine::Durability::kDurable;
      auto engine = engine::Engine::open(options);
      server::add_user(*engine, db, user, password, granted);
      engine.reset();
      fmt::print(stderr, "mongostore user add: created \"{}@{}\"\n", user, db);
      return 0;
    };
  });
}

}  // namespace mongostore::tool
