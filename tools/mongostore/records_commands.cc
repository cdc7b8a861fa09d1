// `mongostore records layout | ls | show | history | fsck`: look at (and check) a RecordStore on a
// data directory (--data) or a server (--uri), from the store's own layout and schema
// documents (stored_layout.h): no C++ record types needed. Aligned tables by default, --json
// for machines; errors are one line (main.cc) with exit status 1, usage errors 2, and fsck
// exits 2 when it reports violations.
#include <fmt/core.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/records/content_id.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/rational.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"
#include "stored_fields.h"
#include "stored_layout.h"
#include "table.h"

namespace mongostore::tool {
namespace {

using bson::make_document;
using records::FieldKind;
using records::FieldSchema;
using records::FieldType;
using records::RecordSchema;

struct Location {
  std::string data = "mongostore-data";
  std::string uri;
  std::string database = "materials";
};

void add_location_options(CLI::App* cmd, Location& where) {
  cmd->add_option("--data", where.data, "Embedded data directory")->capture_default_str();
  cmd->add_option("--uri", where.uri, "A MongoDB or `mongostore serve` URI instead of --data");
  cmd->add_option("--database", where.database, "Database of the RecordStore")
      ->capture_default_str();
}

std::shared_ptr<client::Client> connect(const Location& where) {
  if (where.uri.empty()) {
    // Do not create a directory by looking at one that is not there.
    if (!std::filesystem::is_directory(where.data)) {
      throw Error(ErrorCode::kDataDirectoryInvalid,
                  "no data directory at '" + where.data + "' (give --data DIR or --uri URI)");
    }
    return client::connect("embedded:" + where.data);
  }
  return client::connect(where.uri);
}

// "p/q" as stored, reduced; an integer without its "/1".
std::string readable_rational(std::string_view text) {
  std::string r = records::Rational::parse(text).to_string();
  if (r.size() > 2 && r.compare(r.size() - 2, 2, "/1") == 0) r.resize(r.size() - 2);
  return r;
}

// A matrix's `_exact` text "d;n0,n1,..." as rows of readable rationals.
void append_matrix(bson::DocumentBuilder& b, std::string_view key, std::string_view exact,
                   size_t cols) {
  size_t semi = exact.find(';');
  if (semi == std::string_view::npos || cols == 0) {
    b.append(key, exact);  // not the stored form: show it as it is
    return;
  }
  std::string d(exact.substr(0, semi));
  std::vector<std::string> values;
  std::string_view rest = exact.substr(semi + 1);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    values.push_back(readable_rational(std::string(rest.substr(0, comma)) + "/" + d));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  b.open_array(key);
  for (size_t row = 0; row * cols < values.size(); ++row) {
    b.push_array();
    for (size_t c = 0; c < cols && row * cols + c < values.size(); ++c)
      b.push(values[row * cols + c]);
    b.close();
  }
  b.close();
}

class Decoder {
 public:
  Decoder(const StoredLayout& layout, client::Database db) : layout_(layout), db_(std::move(db)) {}

  /// The record `sid` of `table` as {record, sid, role, ..., fields}; references resolved
  /// `depth` levels (deeper ones as {record, sid}). nullopt when there is no such document.
  std::optional<bson::Document> record(const std::string& table, int64_t sid, int depth) {
    std::shared_ptr<const RecordSchema> schema = layout_.schema(table);
    std::optional<bson::Document> doc = db_.collection(table).find_one(make_document("_id", sid));
    if (!doc) return std::nullopt;
    bson::DocumentBuilder b;
    b.append("record", table).append("sid", sid);
    for (const char* key :
         {"_httk_role", "logical_id", "alt_id", "alt_kind", "store_timestamp", "content_id"}) {
      bson::Value v = doc->get(key);
      if (!v.is_missing()) b.append(key[0] == '_' ? "role" : key, v);
    }
    b.open_document("fields");
    bson::Value f = doc->get("f");
    if (f.is_document()) {
      for (const FieldSchema& field : schema->fields()) decode(b, field, f.as_document(), depth);
    }
    b.close();
    return b.finish();
  }

 private:
  void reference(bson::DocumentBuilder& b, std::string_view key, const FieldType& t,
                 bson::Value sid_value, int depth) {
    int64_t sid = 0;
    std::string target = t.target_schema()->storage_name();
    if (!sid_value.number_as_exact_int64(&sid)) {
      b.append(key, bson::Null{});
      return;
    }
    if (depth > 0) {
      if (std::optional<bson::Document> r = record(target, sid, depth - 1)) {
        b.append(key, r->view());
        return;
      }
      b.append(key, make_document("record", target, "sid", sid, "missing", true));
      return;
    }
    b.append(key, make_document("record", target, "sid", sid));
  }

  // One value of type `t` stored under `name` in `holder` (the `f` document or a child
  // element), appended as `key`.
  void value(bson::DocumentBuilder& b, std::string_view key, const FieldType& t,
             const std::string& name, bson::DocumentView holder, int depth) {
    switch (t.kind) {
      case FieldKind::kRational: {
        bson::Value exact = holder.get(name + "_exact");
        if (exact.is_string()) {
          b.append(key, readable_rational(exact.as_string()));
        } else {
          b.append(key, bson::Null{});
        }
        return;
      }
      case FieldKind::kMatrix: {
        bson::Value exact = holder.get(name + "_exact");
        if (exact.is_string()) {
          append_matrix(b, key, exact.as_string(), t.cols);
        } else {
          b.append(key, bson::Null{});
        }
        return;
      }
      case FieldKind::kReference:
        reference(b, key, t, holder.get(name + "_sid"), depth);
        return;
      default:
        append_stored_or_null(b, key, holder, name);
        return;
    }
  }

  void decode(bson::DocumentBuilder& b, const FieldSchema& field, bson::DocumentView f, int depth) {
    const std::string& name = field.name;
    bool child = field.role() == records::FieldRole::kChild;
    if (!child) {
      // An optional field that is None has no keys.
      bool present = false;
      for (const records::Column& c : field.columns()) present |= f.has(c.name);
      if (!present && field.type.kind != FieldKind::kReference) {
        if (!f.has(name + "_exact")) {
          b.append(name, bson::Null{});
          return;
        }
      }
      value(b, name, field.type, name, f, depth);
      return;
    }
    // A list holds its element type; a variable-row matrix holds one row per element.
    FieldType element = field.type.kind == FieldKind::kList ? *field.type.element : field.type;
    if (element.kind == FieldKind::kMatrix && element.rows == 0) element.rows = 1;
    append_stored_list(
        b, name, f.get(name),
        [&](bson::DocumentBuilder& b, std::string_view index, bson::DocumentView holder) {
          value(b, index, element, name, holder, depth);
        });
  }

  const StoredLayout& layout_;
  client::Database db_;
};

// A decoded value as table text: a resolved record as "<record> <sid>: k=v, ...".
std::string text_of(bson::Value v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_null() || v.is_missing()) return "-";
  if (v.type() == bson::BsonType::kDouble) return fmt::format("{}", v.as_double());  // shortest
  if (v.is_array()) {
    std::string out = "[";
    for (const bson::Element& e : v.as_array()) {
      if (out.size() > 1) out += ", ";
      out += text_of(e.value);
    }
    return out + "]";
  }
  if (v.is_document()) {
    bson::DocumentView d = v.as_document();
    if (d.get("record").is_string()) {
      std::string out = std::string(d.get("record").as_string()) + " " + d.get("sid").to_json();
      if (d.get("missing").truthy()) return out + " (missing!)";
      if (!d.get("fields").is_document()) return out;
      std::string fields;
      for (const bson::Element& e : d.get("fields").as_document()) {
        fields += (fields.empty() ? ": " : ", ") + std::string(e.key) + "=" + text_of(e.value);
      }
      return out + fields;
    }
  }
  return v.to_json();
}

int64_t count(const client::Database& db, const std::string& collection) {
  return db.collection(collection).count_documents(bson::Document());
}

// A sid: a positive decimal integer, said plainly when it is not.
const CLI::Validator kSid(
    [](std::string& text) -> std::string {
      size_t used = 0;
      try {
        if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) &&
            std::stoll(text, &used) > 0 && used == text.size()) {
          return "";
        }
      } catch (const std::exception&) {
      }
      return "a sid is a positive integer, not '" + text + "'";
    },
    "SID");

void require_record(const StoredLayout& layout, const std::string& record) {
  layout.schema(record);  // BadValue naming the known ones
}

// The columns `records ls` shows in its table: one value per field (lists and matrices are
// left to `records show`).
bool listed(const FieldSchema& f) {
  records::FieldRole role = f.role();
  return role == records::FieldRole::kScalar || role == records::FieldRole::kEncoded ||
         role == records::FieldRole::kReference;
}

}  // namespace

void register_records_commands(CLI::App& app, Action* action) {
  static Location where;
  static std::string record;
  static int64_t sid = 0;
  static bool json = false, repair = false, collect_garbage = false, force = false;
  static std::string filter, cursor;
  static int64_t page_size = 20;
  static bool latest = false;

  auto* records_cmd = app.add_subcommand(
      "records", "Inspect and check a RecordStore from its own layout (no C++ types needed)");
  records_cmd->require_subcommand(1);
  records_cmd->footer(
      "Records are named by their collection (see `records layout`). Exit status: 0 ok, 1 an "
      "error (missing store, unknown record or sid), 2 a usage error or fsck violations.");

  auto* layout_cmd = records_cmd->add_subcommand(
      "layout",
      "Families, record collections with document counts, schema fingerprints, transaction "
      "mode and layout generation");
  add_location_options(layout_cmd, where);
  layout_cmd->add_flag("--json", json, "One JSON document");
  layout_cmd->callback([action] {
    *action = [] {
      auto client = connect(where);
      client::Database db = client->database(where.database);
      StoredLayout layout = read_stored_layout(db);
      // The transaction mode is the store's answer when it opens (it asks the server); a store
      // this tool cannot reopen still has its layout shown.
      std::string mode;
      try {
        records::RecordStore store = records::RecordStore::open(client, layout.store_options());
        mode = store.transactions_enabled() ? "transactions" : "degraded";
      } catch (const std::exception& e) {
        mode = std::string("unknown (") + e.what() + ")";
      }
      struct Row {
        std::string table, identity, dedup, fingerprint;
        int64_t documents, main, fields;
        bool in_layout;
      };
      std::vector<Row> rows;
      for (const auto& [table, fp] : layout.fingerprints) {
        auto s = layout.schemas.at(table);
        bool in_layout = std::find(layout.family_tables.begin(), layout.family_tables.end(),
                                   table) != layout.family_tables.end();
        rows.push_back({table, s->identity_name(), std::string(records::dedup_name(s->dedup())),
                        records::sha256_hex(fp).substr(0, 16), count(db, table),
                        db.collection(table).count_documents(make_document("_httk_role", "main")),
                        static_cast<int64_t>(s->fields().size()), in_layout});
      }
      if (json) {
        bson::DocumentBuilder b;
        b.append("database", layout.database)
            .append("protocol", layout.protocol)
            .append("document_layout", layout.document_layout)
            .append("store_timestamps", layout.timestamps_marker)
            .append("generation", layout.generation)
            .append("transaction_mode", mode);
        b.open_array("families");
        for (const StoredFamily& f : layout.families) {
          b.push_document().append("family", f.name).append("definition_id", f.definition_id);
          b.open_array("records");
          for (const auto& r : f.records) {
            b.push(make_document("record", r.name, "definition_id", r.definition_id));
          }
          b.close().close();
        }
        b.close();
        b.open_array("collections");
        for (const Row& r : rows) {
          b.push_document()
              .append("collection", r.table)
              .append("identity_name", r.identity)
              .append("dedup", r.dedup)
              .append("documents", r.documents)
              .append("main", r.main)
              .append("fields", r.fields)
              .append("fingerprint_sha256", records::sha256_hex(layout.fingerprints.at(r.table)))
              .append("in_layout", r.in_layout)
              .close();
        }
        b.close();
        fmt::print("{}\n", b.finish().to_json());
        return 0;
      }
      fmt::print("database {}: protocol {}, {}, store_timestamps {}, generation {}\n",
                 layout.database, layout.protocol, layout.document_layout, layout.timestamps_marker,
                 layout.generation);
      fmt::print("transaction mode: {}\n", mode == "degraded"
                                               ? "degraded (no multi-document transactions: "
                                                 "every write a durable single-document write)"
                                               : mode);
      fmt::print("\nfamilies ({}):\n", layout.families.size());
      if (!layout.families.empty()) {
        Table t({"FAMILY", "DEFINITION", "RECORDS"});
        for (const StoredFamily& f : layout.families) {
          std::string names;
          for (const auto& r : f.records) names += (names.empty() ? "" : ", ") + r.name;
          t.add({f.name, f.definition_id, names});
        }
        fmt::print("{}", t.render());
      }
      fmt::print("\nrecord collections ({}):\n", rows.size());
      Table t({"COLLECTION", "IDENTITY NAME", "DEDUP", "DOCUMENTS", "MAIN", "FIELDS", "FINGERPRINT",
               "IN LAYOUT"});
      for (const Row& r : rows) {
        t.add({r.table, r.identity, r.dedup, std::to_string(r.documents), std::to_string(r.main),
               std::to_string(r.fields), r.fingerprint, r.in_layout ? "yes" : "no"});
      }
      fmt::print("{}", t.render());
      return 0;
    };
  });

  auto* ls = records_cmd->add_subcommand(
      "ls",
      "A record collection's records (alternatives hidden) in sid order, one keyset page at a "
      "time, optionally filtered by an OPTIMADE filter (run on the server)");
  add_location_options(ls, where);
  ls->add_option("record", record, "The record's collection (see `records layout`)")->required();
  ls->add_option("--filter", filter,
                 "An OPTIMADE filter, e.g. '_httk_custom_spacegroup = 225 AND "
                 "_httk_custom_formula STARTS \"Fe\"'");
  ls->add_option("--page-size", page_size, "Records per page (1..10000)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}))
      ->capture_default_str();
  ls->add_option("--cursor", cursor,
                 "The page token a previous `records ls` of the same record and filter printed");
  ls->add_flag("--latest", latest, "Only the latest version of each lineage");
  ls->add_flag("--json", json, "One JSON document: rows (as `records show --json`), next, total");
  ls->footer(
      "Filter properties: a stored field F is _httk_custom_F (a reference's fields as "
      "_httk_custom_F.G), the record's own keys _httk_sid, _httk_logical_id and "
      "_httk_store_timestamp (RFC 3339). Supported: comparisons, CONTAINS, STARTS [WITH], ENDS "
      "[WITH], HAS / HAS ALL / HAS ANY / HAS ONLY, LENGTH, IS [UN]KNOWN, AND, OR, NOT; anything "
      "else is refused naming it (docs/record-store.md). The next page's token is printed after "
      "the table (`next` with --json). Exit status: 0 ok, 1 an error (unknown record, bad "
      "filter or token), 2 a usage error.");
  ls->callback([action] {
    *action = [] {
      auto client = connect(where);
      client::Database db = client->database(where.database);
      StoredLayout layout = read_stored_layout(db);
      std::shared_ptr<const RecordSchema> schema = layout.schema(record);
      records::RecordStore store = records::RecordStore::open(client, layout.store_options());
      records::SearchOptions options;
      options.only_latest = latest;
      // Without a filter, the filter that every record satisfies.
      records::OptimadeSearch search = [&] {
        if (!filter.empty()) {
          return records::optimade_filter_searcher(store, schema, filter, {}, options);
        }
        records::Searcher searcher = store.searcher(options);
        records::Var var = searcher.variable(schema);
        return records::OptimadeSearch{std::move(searcher), var, {}};
      }();
      for (const std::string& w : search.warnings)
        fmt::print(stderr, "mongostore: warning: {}\n", w);
      search.searcher.output(search.record.sid(), "sid");
      std::optional<std::string> token;
      if (!cursor.empty()) token = cursor;
      records::ResultPage page = search.searcher.page(page_size, {{"sid"}}, token, true);
      Decoder decoder(layout, db);
      std::vector<bson::Document> rows;
      for (const records::Value& v : page.rows.column("sid")) {
        int64_t sid = v.as<int64_t>();
        std::optional<bson::Document> doc = decoder.record(record, sid, 0);
        // Deleted between the search and this read (fsck's sweep only takes `dep` records).
        if (doc) rows.push_back(std::move(*doc));
      }
      int64_t total = page.total.value_or(0);
      if (json) {
        bson::DocumentBuilder b;
        b.append("record", record).append("filter", filter).append("total", total);
        b.open_array("rows");
        for (const bson::Document& d : rows) b.push(d);
        b.close();
        if (page.next) {
          b.append("next", *page.next);
        } else {
          b.append("next", bson::Null{});
        }
        if (page.previous) {
          b.append("previous", *page.previous);
        } else {
          b.append("previous", bson::Null{});
        }
        fmt::print("{}\n", b.finish().to_json());
        return 0;
      }
      std::vector<std::string> header = {"SID"};
      for (const FieldSchema& f : schema->fields()) {
        if (listed(f)) header.push_back(f.name);
      }
      Table t(header);
      for (const bson::Document& d : rows) {
        std::vector<std::string> row = {d.get("sid").to_json()};
        bson::DocumentView fields = d.get("fields").as_document();
        for (const FieldSchema& f : schema->fields()) {
          if (listed(f)) row.push_back(text_of(fields.get(f.name)));
        }
        t.add(std::move(row));
      }
      fmt::print("{}", t.render());
      fmt::print("{} of {} {} records{}\n", rows.size(), total, record,
                 filter.empty() ? "" : " matching the filter");
      if (page.previous) fmt::print("previous page: --cursor {}\n", *page.previous);
      if (page.next) {
        fmt::print("next page: --cursor {}\n", *page.next);
      } else {
        fmt::print("(last page)\n");
      }
      return 0;
    };
  });

  auto* show = records_cmd->add_subcommand(
      "show", "One record's document, its references resolved one level, rationals as a/b");
  add_location_options(show, where);
  show->add_option("record", record, "The record's collection (see `records layout`)")->required();
  show->add_option("sid", sid, "The record's sid")->required()->check(kSid);
  show->add_flag("--json", json, "One JSON document");
  show->callback([action] {
    *action = [] {
      auto client = connect(where);
      client::Database db = client->database(where.database);
      StoredLayout layout = read_stored_layout(db);
      require_record(layout, record);
      Decoder decoder(layout, db);
      std::optional<bson::Document> doc = decoder.record(record, sid, 1);
      if (!doc) {
        throw Error(ErrorCode::kNoSuchKey, fmt::format("no {} with sid {}", record, sid));
      }
      if (json) {
        fmt::print("{}\n", doc->to_json());
        return 0;
      }
      Table t({"FIELD", "VALUE"});
      for (const bson::Element& e : doc->view()) {
        if (e.key == "fields" || e.key == "record") continue;
        t.add({std::string(e.key), text_of(e.value)});
      }
      for (const bson::Element& e : doc->get("fields").as_document()) {
        // A list of records: one line each.
        if (e.value.is_array() && !e.value.as_array().empty() &&
            e.value.as_array().begin()->value.is_document()) {
          size_t i = 0;
          for (const bson::Element& item : e.value.as_array()) {
            t.add({fmt::format("{}[{}]", e.key, i++), text_of(item.value)});
          }
          continue;
        }
        t.add({std::string(e.key), text_of(e.value)});
      }
      fmt::print("{} {}\n{}", record, sid, t.render());
      return 0;
    };
  });

  auto* history = records_cmd->add_subcommand(
      "history", "A record's lineage: every version (replace), oldest first, and the latest");
  add_location_options(history, where);
  history->add_option("record", record, "The record's collection (see `records layout`)")
      ->required();
  history->add_option("sid", sid, "The sid of any version")->required()->check(kSid);
  history->add_flag("--json", json, "One JSON document");
  history->callback([action] {
    *action = [] {
      auto client = connect(where);
      client::Database db = client->database(where.database);
      StoredLayout layout = read_stored_layout(db);
      require_record(layout, record);
      client::Collection coll = db.collection(record);
      std::optional<bson::Document> doc = coll.find_one(make_document("_id", sid));
      if (!doc) throw Error(ErrorCode::kNoSuchKey, fmt::format("no {} with sid {}", record, sid));
      int64_t logical_id = 0;
      if (!doc->get("logical_id").number_as_exact_int64(&logical_id)) {
        throw Error(ErrorCode::kBadValue,
                    fmt::format("{} {} has no readable logical_id", record, sid));
      }
      client::FindOptions options;
      options.sort = make_document("_id", 1);
      std::vector<bson::Document> versions =
          coll.find(make_document("logical_id", logical_id), options)->to_vector();
      auto int_text = [](bson::Value v) { return v.is_missing() ? std::string("-") : v.to_json(); };
      if (json) {
        bson::DocumentBuilder b;
        b.append("record", record).append("logical_id", logical_id);
        b.open_array("versions");
        for (size_t i = 0; i < versions.size(); ++i) {
          const bson::Document& v = versions[i];
          b.push_document().append("sid", v.get("_id")).append("role", v.get("_httk_role"));
          for (const char* key : {"store_timestamp", "content_id", "alt_kind"}) {
            if (!v.get(key).is_missing()) b.append(key, v.get(key));
          }
          b.append("latest", i + 1 == versions.size()).close();
        }
        b.close();
        fmt::print("{}\n", b.finish().to_json());
        return 0;
      }
      Table t({"SID", "ROLE", "STORE TIMESTAMP", "CONTENT ID", "LATEST"});
      for (size_t i = 0; i < versions.size(); ++i) {
        const bson::Document& v = versions[i];
        t.add({int_text(v.get("_id")), text_of(v.get("_httk_role")),
               int_text(v.get("store_timestamp")), text_of(v.get("content_id")),
               i + 1 == versions.size() ? "latest" : ""});
      }
      fmt::print("{} lineage {} ({} versions)\n{}", record, logical_id, versions.size(),
                 t.render());
      return 0;
    };
  });

  auto* fsck_cmd = records_cmd->add_subcommand(
      "fsck",
      "Check the store (RecordStore fsck): attribution, dispatches, timestamps, reachability; "
      "repairs and collects garbage only when asked");
  add_location_options(fsck_cmd, where);
  fsck_cmd->add_flag("--repair", repair, "Write missing dispatch documents");
  fsck_cmd->add_flag("--collect-garbage", collect_garbage,
                     "Delete unreachable `dep` documents (never `main` ones)");
  fsck_cmd->add_flag("--force", force,
                     "Take over a stale fsck lease and delete stale writer leases");
  fsck_cmd->add_flag("--json", json, "Print only the summary, as one JSON document");
  fsck_cmd->footer(
      "The record types come from the store's layout and schema fingerprints; a collection "
      "none of them explains blocks the sweep and is reported. Exit status: 0 nothing to "
      "report, 1 an error (e.g. a live fsck holds the store), 2 violations reported.");
  fsck_cmd->callback([action] {
    *action = [] {
      auto client = connect(where);
      client::Database db = client->database(where.database);
      StoredLayout layout = read_stored_layout(db);
      records::RecordStore store = records::RecordStore::open(client, layout.store_options());
      records::FsckOptions options;
      options.repair = repair;
      options.collect_garbage = collect_garbage;
      options.force = force;
      for (const auto& [table, schema] : layout.schemas) options.known_types.push_back(schema);
      // Progress on stderr: one updating line on a terminal, a line every 2 s otherwise, and
      // the final count either way (none with --json).
      bool tty = isatty(STDERR_FILENO) != 0 && !json;
      auto last = std::chrono::steady_clock::now();
      records::FsckProgress latest;
      auto show = [tty](const records::FsckProgress& p) {
        fmt::print(stderr, "{}fsck: {}/{} collections, {} documents marked{}", tty ? "\r" : "",
                   p.collections_examined, p.collections_total, p.documents_marked,
                   tty ? "   " : "\n");
        std::fflush(stderr);
      };
      options.progress = [&](const records::FsckProgress& p) {
        latest = p;
        auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(tty ? 200 : 2000)) return;
        last = now;
        show(p);
      };
      records::FsckSummary summary = store.fsck(options);
      if (!json) {
        show(latest);  // where it ended
        if (tty) fmt::print(stderr, "\n");
      }
      records::FsckCollectionSummary totals = summary.totals();
      if (json) {
        bson::DocumentBuilder b;
        b.append("generation", summary.generation());
        b.open_document("collections");
        for (const auto& [name, c] : summary.collections()) {
          b.append(name, make_document("examined", c.examined, "repaired", c.repaired, "conflicts",
                                       c.conflicts, "deleted", c.deleted));
        }
        b.close();
        b.append("totals", make_document("examined", totals.examined, "repaired", totals.repaired,
                                         "conflicts", totals.conflicts, "deleted", totals.deleted));
        b.open_array("violations");
        for (const std::string& v : summary.violations()) b.push(v);
        b.close();
        fmt::print("{}\n", b.finish().to_json());
        return summary.violations().empty() ? 0 : 2;
      }
      Table t({"COLLECTION", "EXAMINED", "REPAIRED", "CONFLICTS", "DELETED"});
      for (const auto& [name, c] : summary.collections()) {
        t.add({name, std::to_string(c.examined), std::to_string(c.repaired),
               std::to_string(c.conflicts), std::to_string(c.deleted)});
      }
      t.add({"total", std::to_string(totals.examined), std::to_string(totals.repaired),
             std::to_string(totals.conflicts), std::to_string(totals.deleted)});
      fmt::print("{}", t.render());
      fmt::print("generation {}; {}{}\n", summary.generation(),
                 repair ? "repairs on" : "check only (--repair to repair)",
                 collect_garbage ? ", garbage collected" : ", no garbage collection");
      if (summary.violations().empty()) {
        fmt::print("OK: nothing to report\n");
        return 0;
      }
      fmt::print("{} violations:\n", summary.violations().size());
      for (const std::string& v : summary.violations()) fmt::print("  {}\n", v);
      return 2;
    };
  });
}

}  // namespace mongostore::tool
