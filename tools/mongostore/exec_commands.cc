// `mongostore exec ls | show | trace`: look at the executions of an ExecutionStore, on a data
// directory (--data) or a server (--uri). Aligned tables by default, --json for machines.
#include <fmt/core.h>

#include <cmath>
#include <filesystem>

#include "commands.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"
#include "table.h"

namespace mongostore::tool {
namespace {

struct StoreLocation {
  std::string data = "mongostore-data";
  std::string uri;
  std::string database = "harel";
};

void add_location_options(CLI::App* cmd, StoreLocation& where) {
  cmd->add_option("--data", where.data, "Embedded data directory")->capture_default_str();
  cmd->add_option("--uri", where.uri, "A MongoDB or `mongostore serve` URI instead of --data");
  cmd->add_option("--database", where.database, "Database of the store")->capture_default_str();
}

exec::ExecutionStore open_store(const StoreLocation& where) {
  exec::ExecutionStoreOptions options;
  options.database = where.database;
  options.create_indexes = false;  // inspection writes nothing
  if (where.uri.empty()) {
    // Do not create a directory by looking at one that is not there.
    if (!std::filesystem::exists(where.data)) {
      throw Error(ErrorCode::kDataDirectoryInvalid,
                  "no data directory at '" + where.data + "' (give --data DIR or --uri URI)");
    }
    return exec::ExecutionStore::connect("embedded:" + where.data, options,
                                         std::chrono::seconds(0));
  }
  return exec::ExecutionStore::connect(where.uri, options, std::chrono::seconds(5));
}

std::string or_dash(const std::optional<std::string>& s) {
  return s ? *s : "-";
}

std::string format_time(double epoch) {
  return fmt::format("{:.3f}", epoch);
}

bson::Document summary_json(const exec::ExecutionSummary& s) {
  bson::DocumentBuilder b;
  b.append("id", s.id)
      .append("definition_id", s.definition_id)
      .append("status", exec::status_name(s.status));
  auto opt = [&](const char* key, const std::optional<std::string>& v) {
    if (v) {
      b.append(key, *v);
    } else {
      b.append(key, bson::Null{});
    }
  };
  opt("outcome", s.outcome);
  opt("active_path", s.active_path);
  b.append("version", s.version);
  opt("parent_id", s.parent_id);
  return b.finish();
}

}  // namespace

void register_exec_commands(CLI::App& app, Action* action) {
  static StoreLocation where;
  static std::vector<std::string> statuses;
  static std::string definition, cursor, id;
  static bool roots = false, json = false, all = false;
  static int64_t limit = 50;

  auto* exec_cmd = app.add_subcommand("exec", "Inspect the executions of an ExecutionStore");
  exec_cmd->require_subcommand(1);

  auto* ls = exec_cmd->add_subcommand("ls", "List executions in id order, a page at a time");
  add_location_options(ls, where);
  ls->add_option("--status", statuses, "Only these statuses (RUNNING, DONE, ...); repeatable");
  ls->add_option("--definition", definition, "Only this definition id");
  ls->add_flag("--roots", roots, "Only executions without a parent");
  ls->add_option("--limit", limit, "Executions per page")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), int64_t(100000)));
  ls->add_option("--cursor", cursor, "Continue from a previous page's next cursor");
  ls->add_flag("--all", all, "Follow the cursor to the end");
  ls->add_flag("--json", json, "One JSON document: {items, next_cursor}");
  ls->callback([action] {
    *action = [] {
      exec::ExecutionStore store = open_store(where);
      exec::ListQuery q;
      for (const auto& s : statuses) q.statuses.push_back(exec::parse_status(s));
      if (!definition.empty()) q.definition_id = definition;
      q.roots_only = roots;
      q.limit = limit;
      if (!cursor.empty()) q.cursor = cursor;
      std::vector<exec::ExecutionSummary> items;
      std::optional<std::string> next;
      do {
        exec::ExecutionPage page = store.list_executions(q);
        for (auto& s : page.items) items.push_back(std::move(s));
        next = page.next_cursor;
        q.cursor = next;
      } while (all && next);
      if (json) {
        bson::DocumentBuilder b;
        b.open_array("items");
        for (size_t i = 0; i < items.size(); ++i)
          b.append(std::to_string(i), summary_json(items[i]));
        b.close();
        if (next) {
          b.append("next_cursor", *next);
        } else {
          b.append("next_cursor", bson::Null{});
        }
        fmt::print("{}\n", b.finish().to_json());
        return 0;
      }
      Table t({"ID", "DEFINITION", "STATUS", "ACTIVE", "OUTCOME", "VERSION", "PARENT"});
      for (const auto& s : items) {
        t.add({s.id, s.definition_id, std::string(exec::status_name(s.status)),
               or_dash(s.active_path), or_dash(s.outcome), std::to_string(s.version),
               or_dash(s.parent_id)});
      }
      fmt::print("{}", t.render());
      fmt::print("{} executions{}\n", items.size(), next ? " (more: --cursor " + *next + ")" : "");
      return 0;
    };
  });

  auto* show = exec_cmd->add_subcommand(
      "show", "One execution: its snapshot, pending outbox, timers and children");
  add_location_options(show, where);
  show->add_option("id", id, "Execution id")->required();
  show->add_flag("--json", json, "One JSON document");
  show->callback([action] {
    *action = [] {
      exec::ExecutionStore store = open_store(where);
      std::optional<exec::Execution> exe = store.load(id);
      if (!exe) throw Error(ErrorCode::kNoSuchKey, "no execution '" + id + "'");
      std::vector<exec::OutboxEntry> outbox;
      for (auto& e : store.pending_outbox()) {
        if (e.source_id == id) outbox.push_back(std::move(e));
      }
      std::vector<exec::DueTimer> timers = store.timers(id);
      if (json) {
        bson::DocumentBuilder b;
        b.append("execution", bson::Document::from_json(exe->to_json()).view());
        b.open_array("outbox");
        for (size_t i = 0; i < outbox.size(); ++i) {
          bson::DocumentBuilder e;
          e.append("seq", outbox[i].seq);
          if (outbox[i].target_id) {
            e.append("target_id", *outbox[i].target_id);
          } else {
            e.append("target_id", bson::Null{});
          }
          e.append("event", bson::Document::from_json(outbox[i].event.to_json()).view());
          b.append(std::to_string(i), e.finish().view());
        }
        b.close();
        b.open_array("timers");
        for (size_t i = 0; i < timers.size(); ++i) {
          b.append(std::to_string(i),
                   bson::make_document("path", timers[i].path, "fire_at", timers[i].fire_at));
        }
        b.close();
        fmt::print("{}\n", b.finish().to_json());
        return 0;
      }
      Table fields({"FIELD", "VALUE"});
      fields.add({"id", exe->id});
      fields.add({"definition", exe->definition_id});
      fields.add({"status", std::string(exec::status_name(exe->status))});
      fields.add({"active", or_dash(exe->active_path)});
      fields.add({"outcome", or_dash(exe->outcome)});
      fields.add({"version", std::to_string(exe->version)});
      fields.add({"parent", or_dash(exe->parent_id)});
      fields.add({"root path", exe->root_path.empty() ? "-" : exe->root_path});
      fields.add({"events processed", std::to_string(exe->processed_events)});
      fields.add({"context", exe->context.to_json()});
      fmt::print("{}", fields.render());
      fmt::print("\nchildren ({}):\n", exe->children.size());
      if (!exe->children.empty()) {
        Table children({"CHILD", "REGION", "FINISHED", "OUTCOME"});
        for (const auto& [child_id, state] : exe->children) {
          children.add(
              {child_id, state.root_path, state.finished ? "yes" : "no", or_dash(state.outcome)});
        }
        fmt::print("{}", children.render());
      }
      fmt::print("\npending outbox ({}):\n", outbox.size());
      if (!outbox.empty()) {
        Table t({"SEQ", "TARGET", "EVENT", "EVENT ID"});
        for (const auto& e : outbox) {
          t.add({std::to_string(e.seq), or_dash(e.target_id), e.event.kind, e.event.id});
        }
        fmt::print("{}", t.render());
      }
      fmt::print("\ntimers ({}):\n", timers.size());
      if (!timers.empty()) {
        Table t({"PATH", "FIRE AT"});
        for (const auto& timer : timers) t.add({timer.path, format_time(timer.fire_at)});
        fmt::print("{}", t.render());
      }
      return 0;
    };
  });

  auto* trace = exec_cmd->add_subcommand("trace", "The trace ring of one execution, in order");
  add_location_options(trace, where);
  trace->add_option("id", id, "Execution id")->required();
  trace->add_flag("--json", json, "A JSON array of the steps");
  trace->callback([action] {
    *action = [] {
      exec::ExecutionStore store = open_store(where);
      if (!store.load(id)) throw Error(ErrorCode::kNoSuchKey, "no execution '" + id + "'");
      std::vector<bson::Document> steps = store.read_trace(id);
      if (json) {
        bson::DocumentBuilder b;
        for (size_t i = 0; i < steps.size(); ++i) b.append(std::to_string(i), steps[i].view());
        fmt::print("{}\n", b.finish().view().to_json_array());
        return 0;
      }
      Table t({"INDEX", "EVENT", "FROM", "TO", "ACTIONS"});
      for (const auto& s : steps) {
        std::string actions;
        if (s.get("actions").is_array()) {
          for (const auto& a : s.get("actions").as_array()) {
            if (!actions.empty()) actions += ", ";
            actions += a.value.is_string() ? std::string(a.value.as_string()) : a.value.to_json();
          }
        }
        auto text = [](const bson::Value& v) {
          return v.is_string() ? std::string(v.as_string()) : v.is_null() ? "-" : v.to_json();
        };
        t.add({text(s.get("index")), text(s.get("event_kind")), text(s.get("from_path")),
               text(s.get("to_path")), actions.empty() ? "-" : actions});
      }
      fmt::print("{}", t.render());
      fmt::print("{} steps\n", steps.size());
      return 0;
    };
  });
}

}  // namespace mongostore::tool
