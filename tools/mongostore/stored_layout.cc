#include "stored_layout.h"

#include <fmt/core.h>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::tool {
namespace {

using records::FieldKind;
using records::FieldSchema;
using records::FieldType;
using records::RecordSchema;
using SchemaMap = std::map<std::string, std::shared_ptr<const RecordSchema>>;

constexpr const char* kMetadata = "_httk_store_metadata";

[[noreturn]] void unreadable(const std::string& table, const std::string& why) {
  throw Error(ErrorCode::kBadValue, "the stored schema of '" + table + "' cannot be read: " + why);
}

std::string text(bson::DocumentView d, const char* key) {
  bson::Value v = d.get(key);
  return v.is_string() ? std::string(v.as_string()) : "";
}

// The value type a fingerprint's codec and shape describe; `target` names a record's table.
FieldType value_type(const std::string& table, const std::string& codec, bson::Value shape,
                     const std::string& target, const std::shared_ptr<SchemaMap>& all) {
  FieldType t;
  static const std::map<std::string, FieldKind> kinds = {{"int", FieldKind::kInt},
                                                         {"str", FieldKind::kString},
                                                         {"bool", FieldKind::kBool},
                                                         {"bytes", FieldKind::kBytes},
                                                         {"float", FieldKind::kFloat},
                                                         {"rational", FieldKind::kRational},
                                                         {"datetime", FieldKind::kDateTime},
                                                         {"date", FieldKind::kDate},
                                                         {"rational_matrix", FieldKind::kMatrix},
                                                         {"record", FieldKind::kReference}};
  auto it = kinds.find(codec);
  if (it == kinds.end()) unreadable(table, "codec '" + codec + "' is unknown to this tool");
  t.kind = it->second;
  if (t.kind == FieldKind::kMatrix) {
    int64_t rows = -1, cols = -1;
    if (!shape.is_array() || !shape.as_array().get("0").number_as_exact_int64(&rows) ||
        !shape.as_array().get("1").number_as_exact_int64(&cols) || rows < 0 || cols < 1 ||
        rows > 1024 || cols > 1024) {
      unreadable(table, "a matrix without a valid shape");
    }
    t.rows = static_cast<size_t>(rows);
    t.cols = static_cast<size_t>(cols);
  }
  if (t.kind == FieldKind::kReference) {
    if (target.empty()) unreadable(table, "a reference without a target");
    // Lazy, as declarations are: a table may refer to itself. The lookup holds the map
    // weakly (the map holds the schemas, so a strong reference would be a cycle that is
    // never freed); the StoredLayout owns the map for as long as its schemas are used.
    std::weak_ptr<SchemaMap> weak = all;
    t.target = [weak, target, table]() -> std::shared_ptr<const RecordSchema> {
      std::shared_ptr<SchemaMap> map = weak.lock();
      if (!map) unreadable(table, "the layout its schema was read from is gone");
      auto found = map->find(target);
      if (found == map->end()) unreadable(table, "its target '" + target + "' has no schema");
      return found->second;
    };
  }
  return t;
}

FieldSchema field_of(const std::string& table, const std::string& name, bson::DocumentView f,
                     const std::shared_ptr<SchemaMap>& all) {
  FieldSchema out;
  out.name = name;
  std::string role = text(f, "role"), codec = text(f, "codec_name"), container;
  if (f.get("container").is_string()) container = std::string(f.get("container").as_string());
  std::string target = text(f, "target");
  if (role == "child" && f.get("child").is_document()) {
    target = text(f.get("child").as_document(), "target");
  }
  FieldType vt = value_type(table, codec, f.get("shape"), target, all);
  if (!container.empty()) {
    out.type.kind = FieldKind::kList;
    out.type.element = std::make_shared<const FieldType>(std::move(vt));
    out.type.tuple = container == "tuple";
  } else {
    out.type = std::move(vt);
  }
  out.optional = f.get("optional").truthy();
  out.identity = f.get("derived").truthy()            ? records::Identity::kDerived
                 : f.get("identity_skipped").truthy() ? records::Identity::kIdentitySkip
                                                      : records::Identity::kIncluded;
  if (f.get("columns").is_array()) {
    for (const bson::Element& c : f.get("columns").as_array()) {
      if (!c.value.is_document()) continue;
      out.indexed |= c.value.as_document().get("indexed").truthy();
      out.unique |= c.value.as_document().get("unique").truthy();
    }
  }
  if (out.unique) out.indexed = false;  // a declaration sets one or the other
  return out;
}

std::shared_ptr<const RecordSchema> schema_of(const std::string& table, const std::string& json,
                                              const std::shared_ptr<SchemaMap>& all) {
  bson::Document fp;
  try {
    fp = bson::Document::from_json(json);
  } catch (const Error& e) {
    unreadable(table, e.what());
  }
  std::string dedup = text(fp, "dedup");
  records::Dedup policy = dedup == "content_id" ? records::Dedup::kContentId
                          : dedup == "by_value" ? records::Dedup::kByValue
                          : dedup == "none"
                              ? records::Dedup::kNone
                              : (unreadable(table, "dedup '" + dedup + "'"), records::Dedup::kNone);
  std::vector<FieldSchema> fields;
  if (fp.get("fields").is_document()) {
    for (const bson::Element& f : fp.get("fields").as_document()) {
      if (!f.value.is_document()) unreadable(table, "field '" + std::string(f.key) + "'");
      fields.push_back(field_of(table, std::string(f.key), f.value.as_document(), all));
    }
  }
  std::vector<std::vector<std::string>> indexes;
  if (fp.get("composite_indexes").is_array()) {
    for (const bson::Element& index : fp.get("composite_indexes").as_array()) {
      std::vector<std::string> names;
      if (index.value.is_array()) {
        for (const bson::Element& n : index.value.as_array()) {
          if (n.value.is_string()) names.emplace_back(n.value.as_string());
        }
      }
      indexes.push_back(std::move(names));
    }
  }
  try {
    return std::make_shared<const RecordSchema>(text(fp, "identity_name"), table, policy,
                                                std::move(fields), std::move(indexes));
  } catch (const std::exception& e) {
    unreadable(table, e.what());
  }
}

void add_tables(StoredLayout& out, const std::string& json, bool family) {
  bson::Document doc;
  try {
    doc = bson::Document::from_json(json);
  } catch (const Error& e) {
    throw Error(ErrorCode::kBadValue, std::string("unreadable schema fingerprints: ") + e.what());
  }
  if (!doc.get("tables").is_document()) return;
  for (const bson::Element& t : doc.get("tables").as_document()) {
    std::string name(t.key);
    // The families' fingerprints are JSON objects inside one text; the extras document holds
    // one text per table.
    std::string fp = t.value.is_string() ? std::string(t.value.as_string()) : t.value.to_json();
    out.fingerprints.emplace(name, fp);
    if (family) out.family_tables.push_back(name);
  }
}

}  // namespace

std::shared_ptr<const RecordSchema> StoredLayout::schema(const std::string& table) const {
  auto it = schemas.find(table);
  if (it != schemas.end()) return it->second;
  std::string known;
  for (const auto& [name, s] : schemas) known += (known.empty() ? "" : ", ") + name;
  throw Error(ErrorCode::kBadValue, "no record collection '" + table + "' in database '" +
                                        database + "' (known: " + (known.empty() ? "none" : known) +
                                        ")");
}

std::vector<records::EntryFamily> StoredLayout::family_bindings() const {
  std::vector<records::EntryFamily> out;
  for (const StoredFamily& f : families) {
    records::EntryFamily family{f.name, f.definition_id, {}};
    for (const StoredFamily::Record& r : f.records) {
      std::shared_ptr<const RecordSchema> bound;
      if (auto it = schemas.find(r.name); it != schemas.end()) bound = it->second;
      for (const auto& [table, s] : schemas) {
        if (!bound && s->identity_name() == r.name) bound = s;
      }
      if (!bound) {
        throw Error(ErrorCode::kBadValue,
                    "the layout does not say which collection backs record '" + r.name +
                        "' of family '" + f.name +
                        "' (this tool binds a family record to the collection of the same name "
                        "or identity name): it cannot reopen this store without its C++ types");
      }
      family.records.push_back(records::EntryRecord{r.name, bound, r.definition_id});
    }
    out.push_back(std::move(family));
  }
  return out;
}

records::RecordStoreOptions StoredLayout::store_options() const {
  records::RecordStoreOptions options;
  options.database = database;
  options.families = family_bindings();
  if (timestamps_marker == "off") {
    options.store_timestamps = false;
  } else if (timestamps_marker.rfind("v1:", 0) == 0) {
    try {
      options.store_timestamp_resolution = std::stoll(timestamps_marker.substr(3));
    } catch (const std::exception&) {
      throw Error(ErrorCode::kBadValue, "unreadable store_timestamps '" + timestamps_marker + "'");
    }
  }
  options.warn = [](std::string_view) {};  // the tool reports the mode itself
  return options;
}

StoredLayout read_stored_layout(const client::Database& db) {
  StoredLayout out;
  out.database = db.name();
  client::Collection metadata = db.collection(kMetadata);
  std::optional<bson::Document> layout = metadata.find_one(bson::make_document("_id", "layout"));
  if (!layout) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "database '" + out.database + "' holds no RecordStore (no layout document in " +
                    kMetadata + ")");
  }
  out.protocol = text(*layout, "protocol");
  out.document_layout = text(*layout, "document_layout");
  out.timestamps_marker = text(*layout, "store_timestamps");
  layout->get("generation").number_as_exact_int64(&out.generation);
  std::string declaration = text(*layout, "entry_declaration");
  if (!declaration.empty()) {
    bson::Document d;
    try {
      d = bson::Document::from_json(declaration);
    } catch (const Error& e) {
      throw Error(ErrorCode::kBadValue, std::string("unreadable entry_declaration: ") + e.what());
    }
    if (d.get("families").is_array()) {
      for (const bson::Element& f : d.get("families").as_array()) {
        if (!f.value.is_document()) continue;
        bson::DocumentView fd = f.value.as_document();
        StoredFamily family{text(fd, "family"), text(fd, "definition_id"), {}};
        if (fd.get("records").is_array()) {
          for (const bson::Element& r : fd.get("records").as_array()) {
            if (!r.value.is_document()) continue;
            family.records.push_back({text(r.value.as_document(), "record"),
                                      text(r.value.as_document(), "definition_id")});
          }
        }
        out.families.push_back(std::move(family));
      }
    }
  }
  add_tables(out, text(*layout, "entry_schemas"), true);
  if (auto extras = metadata.find_one(bson::make_document("_id", "mongostore/schemas"))) {
    add_tables(out, extras->to_json(), false);
  }
  auto all = std::make_shared<SchemaMap>();
  for (const auto& [table, fp] : out.fingerprints) all->emplace(table, schema_of(table, fp, all));
  out.schemas = *all;
  out.schema_map = all;
  // Every reference must name a table that has a schema: check now, not in the middle of a
  // command.
  for (const auto& [table, s] : out.schemas) {
    for (const FieldSchema& f : s->fields()) {
      const FieldType& t = f.type.kind == FieldKind::kList ? *f.type.element : f.type;
      if (t.kind == FieldKind::kReference) t.target_schema();
    }
  }
  return out;
}

}  // namespace mongostore::tool
