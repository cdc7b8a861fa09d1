#include "server/commands/command_registry.h"

#include <algorithm>
#include <utility>

#include "mongostore/error.h"
#include "server/generic_arguments.h"

namespace mongostore::server {

void CommandRegistry::add(std::initializer_list<std::string> names, CommandHandler handler,
                          unsigned flags, std::vector<std::string_view> fields,
                          std::vector<std::string_view> unsupported) {
  CommandSpec spec{*names.begin(), handler, flags, std::move(fields), std::move(unsupported)};
  for (const std::string& name : names) commands_.emplace(name, spec);
}

const CommandSpec* CommandRegistry::find(std::string_view name) const {
  auto it = commands_.find(name);
  return it == commands_.end() ? nullptr : &it->second;
}

// A field the command honours passes; one MongoDB has and mongostore does not fails
// NotImplemented naming it; anything else fails as mongod's parser answers.
void CommandRegistry::check_fields(const bson::DocumentView& cmd, const CommandSpec& spec) {
  bool first = true;
  for (const bson::Element& e : cmd) {
    if (std::exchange(first, false)) continue;
    if (is_generic_argument(e.key) || (spec.flags & kOpenFields)) continue;
    auto among = [&](const std::vector<std::string_view>& names) {
      return std::find(names.begin(), names.end(), e.key) != names.end();
    };
    if (among(spec.fields)) continue;
    if (among(spec.unsupported)) {
      // `false` asks for what mongostore does anyway (returnKey: false, tailable: false,
      // repair: false, ...): honoured, as drivers send some flags with their default.
      if (e.value.type() == bson::BsonType::kBool && !e.value.as_bool()) continue;
      throw Error(ErrorCode::kNotImplemented, "the '" + std::string(e.key) + "' option of " +
                                                  spec.name + " is not supported by mongostore");
    }
    throw Error(ErrorCode::kUnknownField,
                "BSON field '" + spec.name + "." + std::string(e.key) + "' is an unknown field.");
  }
}

}  // namespace mongostore::server
