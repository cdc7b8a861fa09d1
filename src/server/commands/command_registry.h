// CommandRegistry: every command the server runs, each declared once: its canonical name and
// aliases, its handler, what it takes of the generic arguments (writeConcern when it writes,
// readConcern when it reads documents, the Stable API), whether it runs against admin only,
// whether its first field names a collection, the fields it honours and the MongoDB fields it
// refuses with NotImplemented (238).
//
// The command families (command_families.h) fill it once, before the server serves; after
// that it is only read, so any thread may read it at once without a lock. Adding a name that
// is already there keeps the first declaration.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"

namespace mongostore::server {

struct CommandContext;

/// Runs one command: appends the reply's own fields to the builder (the dispatcher adds
/// `ok: 1`), or throws mongostore::Error, which the dispatcher turns into an error reply.
using CommandHandler = void (*)(const CommandContext&, bson::DocumentBuilder&);

enum CommandFlags : unsigned {
  kWrites = 1,         // it writes: takes writeConcern (and honours j / fsync after it runs)
  kReads = 2,          // it reads documents: takes readConcern
  kAdminOnly = 4,      // runs against the admin database only (Unauthorized, 13, elsewhere)
  kApiV1 = 8,          // in the Stable API version 1 (else apiStrict: true fails 323)
  kOpenFields = 16,    // the handler reads every other field itself (a filter, names)
  kCollection = 32,    // its first field names a collection of $db (CommandContext::collection)
  kNoAuth = 64,        // runs without an authenticated user under --auth (handshake, SASL)
  kOwnSessions = 128,  // manages sessions itself (endSessions): its lsid is not checked out
};

struct CommandSpec {
  std::string name;  // the canonical name, as mongod names the command in its errors
  CommandHandler handler = nullptr;
  unsigned flags = 0;
  std::vector<std::string_view> fields;       // honoured besides the name and generic ones
  std::vector<std::string_view> unsupported;  // MongoDB's, refused with NotImplemented
};

class CommandRegistry {
 public:
  /// Declares a command under each of `names` (the first is its canonical name).
  void add(std::initializer_list<std::string> names, CommandHandler handler, unsigned flags = 0,
           std::vector<std::string_view> fields = {},
           std::vector<std::string_view> unsupported = {});

  /// The command named `name` exactly (names are case-sensitive, as on mongod), or nullptr.
  const CommandSpec* find(std::string_view name) const;

  /// Every name (aliases included) with its declaration, in name order (listCommands).
  const std::map<std::string, CommandSpec, std::less<>>& all() const { return commands_; }

  /// Checks the fields of `cmd` (all but its first) against `spec`: a field the command
  /// honours or a generic argument passes; one MongoDB has and mongostore does not fails
  /// NotImplemented (238) naming it, unless it is `false` (asking for what mongostore does
  /// anyway); anything else fails UnknownField (Location40415) as mongod's parser answers.
  static void check_fields(const bson::DocumentView& cmd, const CommandSpec& spec);

 private:
  std::map<std::string, CommandSpec, std::less<>> commands_;
};

}  // namespace mongostore::server
