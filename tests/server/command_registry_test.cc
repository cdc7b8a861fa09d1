// The command registry: how a command is declared (names, aliases, fields), how its fields
// are checked, and that the families' declarations agree with what their handlers do.
#include "server/commands/command_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "mongostore/server/command_dispatcher.h"
#include "server/commands/command_families.h"

namespace mongostore::server {
namespace {

void noop(const CommandContext&, bson::DocumentBuilder&) {}

// The error `check_fields` throws for `json` against `spec`, or {0, ""}.
std::pair<int32_t, std::string> field_error(const CommandSpec& spec, const char* json) {
  try {
    CommandRegistry::check_fields(bson::Document::from_json(json).view(), spec);
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {0, ""};
}

CommandRegistry every_command() {
  CommandRegistry registry;
  register_handshake_commands(registry);
  register_diagnostic_commands(registry);
  register_catalog_commands(registry);
  register_write_commands(registry);
  register_read_commands(registry);
  register_index_commands(registry);
  return registry;
}

TEST(CommandRegistry, AliasesShareOneDeclarationUnderTheCanonicalName) {
  CommandRegistry registry;
  registry.add({"findAndModify", "findandmodify"}, &noop, kWrites | kCollection, {"query"});
  const CommandSpec* canonical = registry.find("findAndModify");
  const CommandSpec* alias = registry.find("findandmodify");
  ASSERT_NE(canonical, nullptr);
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->name, "findAndModify");
  EXPECT_EQ(alias->flags, kWrites | kCollection);
  EXPECT_EQ(alias->handler, canonical->handler);
  EXPECT_EQ(registry.find("FINDANDMODIFY"), nullptr);  // names are case-sensitive
  EXPECT_EQ(registry.all().size(), 2u);
}

TEST(CommandRegistry, AddingANameTwiceKeepsTheFirstDeclaration) {
  CommandRegistry registry;
  registry.add({"ping"}, &noop, kApiV1);
  registry.add({"ping"}, &noop, kAdminOnly);
  EXPECT_EQ(registry.find("ping")->flags, kApiV1);
}

TEST(CommandRegistry, CheckFieldsPassesHonouredAndGenericFields) {
  CommandSpec spec{"find", &noop, kReads, {"filter", "sort"}, {"tailable"}};
  EXPECT_EQ(field_error(spec, R"({"find": "c", "filter": {}, "sort": {}, "$db": "x",
                                  "lsid": {}, "comment": "c", "maxTimeMS": 5})")
                .first,
            0);
  // The command's own first field is never checked, whatever it is called.
  EXPECT_EQ(field_error(spec, R"({"anything": 1})").first, 0);
}

TEST(CommandRegistry, CheckFieldsRefusesUnsupportedByNameUnlessFalse) {
  CommandSpec spec{"find", &noop, kReads, {"filter"}, {"tailable"}};
  auto [code, message] = field_error(spec, R"({"find": "c", "tailable": true})");
  EXPECT_EQ(code, 238);
  EXPECT_EQ(message, "the 'tailable' option of find is not supported by mongostore");
  EXPECT_EQ(field_error(spec, R"({"find": "c", "tailable": false})").first, 0);
}

TEST(CommandRegistry, CheckFieldsRefusesUnknownFieldsAsMongodsParser) {
  CommandSpec spec{"find", &noop, kReads, {"filter"}, {}};
  auto [code, message] = field_error(spec, R"({"find": "c", "bogus": 1})");
  EXPECT_EQ(code, 40415);
  EXPECT_EQ(message, "BSON field 'find.bogus' is an unknown field.");
  CommandSpec open{"currentOp", &noop, kOpenFields, {}, {}};
  EXPECT_EQ(field_error(open, R"({"currentOp": 1, "bogus": 1})").first, 0);
}

TEST(CommandRegistry, NoTwoFamiliesDeclareOneName) {
  using Register = void (*)(CommandRegistry&);
  std::set<std::string> seen;
  for (Register family :
       {&register_handshake_commands, &register_diagnostic_commands, &register_catalog_commands,
        &register_write_commands, &register_read_commands, &register_index_commands}) {
    CommandRegistry registry;
    family(registry);
    EXPECT_FALSE(registry.all().empty());
    for (const auto& [name, spec] : registry.all()) {
      EXPECT_TRUE(seen.insert(name).second) << name << " is declared by two families";
      EXPECT_NE(spec.handler, nullptr) << name;
    }
  }
  EXPECT_EQ(seen.size(), every_command().all().size());
}

TEST(CommandRegistry, WritesAndReadsAreDeclaredWhereTheyTakeWriteAndReadConcern) {
  CommandRegistry registry = every_command();
  for (const char* name : {"insert", "update", "delete", "findAndModify", "findandmodify", "create",
                           "drop", "dropDatabase", "createIndexes", "aggregate"}) {
    ASSERT_NE(registry.find(name), nullptr) << name;
    EXPECT_TRUE(registry.find(name)->flags & kWrites) << name;
  }
  for (const char* name : {"find", "aggregate", "count", "distinct", "listIndexes"}) {
    EXPECT_TRUE(registry.find(name)->flags & kReads) << name;
  }
  for (const char* name : {"hello", "ping", "getMore", "killCursors", "serverStatus"}) {
    EXPECT_FALSE(registry.find(name)->flags & (kWrites | kReads)) << name;
  }
  EXPECT_EQ(registry.find("ismaster")->name, "isMaster");
  EXPECT_EQ(registry.find("deleteIndexes")->name, "dropIndexes");
}

// A command declared kCollection has its first field read as a collection name before its
// handler runs: {<name>: ""} fails InvalidNamespace naming the command as it was sent.
TEST(CommandRegistry, EveryCollectionCommandRefusesAnEmptyCollectionName) {
  engine::EngineOptions options;
  options.durability = engine::Durability::kInMemory;
  CommandDispatcher dispatcher(engine::Engine::open(options));
  ConnectionInfo connection;
  size_t checked = 0;
  CommandRegistry registry = every_command();
  for (const auto& [name, spec] : registry.all()) {
    if (!(spec.flags & kCollection)) continue;
    bson::DocumentBuilder b;
    b.append(name, "");
    b.append("$db", (spec.flags & kAdminOnly) ? "admin" : "test");
    bson::Document reply = dispatcher.run(b.finish(), connection);
    EXPECT_EQ(reply.get("code").as_int32(), 73) << name << ": " << reply.to_json();
    EXPECT_EQ(reply.get("errmsg").as_string(),
              "collection name for '" + name + "' must be a non-empty string")
        << reply.to_json();
    ++checked;
  }
  EXPECT_GE(checked, 15u);
}

}  // namespace
}  // namespace mongostore::server
