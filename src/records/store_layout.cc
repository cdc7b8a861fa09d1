#include "records/store_layout.h"

// GCC 12 reports -Wmaybe-uninitialized inside std::variant's copy when a CanonicalJson
// object is built from a braced list (a known false positive of its inliner at -O2); every
// value here is constructed before it is copied.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <functional>
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/records/errors.h"

namespace mongostore::records {
namespace {

using CJ = CanonicalJson;

std::string_view role_name(FieldRole role) {
  switch (role) {
    case FieldRole::kScalar:
      return "scalar";
    case FieldRole::kEncoded:
      return "encoded";
    case FieldRole::kFixedArray:
      return "fixed_array";
    case FieldRole::kChild:
      return "child";
    case FieldRole::kReference:
      return "reference";
  }
  return "scalar";
}

std::string_view codec_name(const FieldType& type) {
  switch (type.kind) {
    case FieldKind::kInt:
      return "int";
    case FieldKind::kString:
      return "str";
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kBytes:
      return "bytes";
    case FieldKind::kFloat:
      return "float";
    case FieldKind::kRational:
      return "rational";
    case FieldKind::kDateTime:
      return "datetime";
    case FieldKind::kDate:
      return "date";
    case FieldKind::kMatrix:
      return "rational_matrix";
    case FieldKind::kReference:
      return "record";
    case FieldKind::kList:
      return type.element ? codec_name(*type.element) : "list";
  }
  return "";
}

std::string_view column_kind(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kInt:
      return "int";
    case ColumnKind::kString:
      return "str";
    case ColumnKind::kBool:
      return "bool";
    case ColumnKind::kBytes:
      return "bytes";
    case ColumnKind::kDouble:
      return "float";
  }
  return "";
}

const FieldType& value_type(const FieldSchema& f) {
  return f.type.kind == FieldKind::kList ? *f.type.element : f.type;
}

CJ columns_json(const FieldSchema& f, bool child) {
  CJ::Array out;
  for (const Column& c : f.columns()) {
    out.push_back(CJ::Object{{"name", c.name},
                             {"kind", std::string(column_kind(c.kind))},
                             {"nullable", child ? false : f.optional},
                             {"indexed", f.indexed},
                             {"unique", f.unique}});
  }
  return out;
}

CJ target_name(const FieldType& t) {
  if (t.kind != FieldKind::kReference) return CJ();
  auto target = t.target_schema();
  return target ? CJ(target->storage_name()) : CJ();
}

CJ field_json(const RecordSchema& schema, const FieldSchema& f) {
  const FieldType& vt = value_type(f);
  bool child = f.role() == FieldRole::kChild;
  CJ shape;
  if (vt.kind == FieldKind::kMatrix) shape = CJ::Array{CJ(vt.rows), CJ(vt.cols)};
  CJ container;
  if (f.type.kind == FieldKind::kList) container = f.type.tuple ? "tuple" : "list";
  CJ child_json;
  if (child) {
    child_json = CJ::Object{{"table_name", schema.storage_name() + "_" + f.name},
                            {"element_columns", columns_json(f, true)},
                            {"target", target_name(vt)}};
  }
  return CJ::Object{{"role", std::string(role_name(f.role()))},
                    {"codec_name", std::string(codec_name(f.type))},
                    {"shape", shape},
                    {"optional", f.optional},
                    {"derived", f.derived()},
                    {"container", container},
                    {"identity_skipped", f.identity == Identity::kIdentitySkip},
                    {"columns", child ? CJ(CJ::Array{}) : columns_json(f, false)},
                    {"child", child_json},
                    {"target", child ? CJ() : target_name(vt)},
                    {"related", CJ()}};
}

CJ families_json(const std::vector<EntryFamily>& families) {
  std::vector<const EntryFamily*> sorted;
  for (const EntryFamily& f : families) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(),
            [](const EntryFamily* a, const EntryFamily* b) { return a->name < b->name; });
  CJ::Array out;
  for (const EntryFamily* f : sorted) {
    CJ::Array records;
    for (const EntryRecord& r : f->records) {
      records.push_back(CJ::Object{{"definition_id", r.definition_id}, {"record", r.name}});
    }
    out.push_back(
        CJ::Object{{"definition_id", f->definition_id}, {"family", f->name}, {"records", records}});
  }
  return out;
}

// A fingerprint JSON text as a BSON document (the text is ours: plain JSON).
bson::Document parse(const std::string& json) {
  return bson::Document::from_json(json);
}

std::string bson_json(bson::Value v) {
  return v.to_json();
}

}  // namespace

CanonicalJson table_fingerprint(const RecordSchema& schema) {
  CJ::Object fields;
  for (const FieldSchema& f : schema.fields()) {
    if (!f.stored()) continue;  // a Skip field is neither stored nor identity
    fields.emplace(f.name, field_json(schema, f));
  }
  CJ::Array indexes;
  for (const auto& index : schema.indexes()) {
    CJ::Array names;
    for (const std::string& n : index) names.push_back(n);
    indexes.push_back(names);
  }
  return CJ::Object{{"identity_name", schema.identity_name()},
                    {"dedup", std::string(dedup_name(schema.dedup()))},
                    {"composite_indexes", indexes},
                    {"links", CJ::Array{}},
                    {"fields", fields}};
}

std::map<std::string, std::shared_ptr<const RecordSchema>> reference_closure(
    const std::vector<std::shared_ptr<const RecordSchema>>& roots) {
  std::map<std::string, std::shared_ptr<const RecordSchema>> out;
  std::vector<std::shared_ptr<const RecordSchema>> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    std::shared_ptr<const RecordSchema> s = stack.back();
    stack.pop_back();
    auto [it, inserted] = out.emplace(s->storage_name(), s);
    if (!inserted) {
      if (it->second.get() != s.get() &&
          table_fingerprint(*it->second).dump() != table_fingerprint(*s).dump()) {
        throw SchemaError("record types " + it->second->identity_name() + " and " +
                          s->identity_name() + " both claim the collection '" + s->storage_name() +
                          "'");
      }
      continue;
    }
    for (const FieldSchema& f : s->fields()) {
      if (!f.stored()) continue;
      const FieldType& t = value_type(f);
      if (t.kind == FieldKind::kReference) stack.push_back(t.target_schema());
    }
  }
  return out;
}

std::string entry_schemas_json(
    const std::map<std::string, std::shared_ptr<const RecordSchema>>& closure) {
  CJ::Object tables;
  for (const auto& [name, schema] : closure) tables.emplace(name, table_fingerprint(*schema));
  return CJ(CJ::Object{{"tables", tables}}).dump();
}

std::string entry_schemas_json(const std::vector<EntryFamily>& families) {
  std::vector<std::shared_ptr<const RecordSchema>> roots;
  for (const EntryFamily& f : families) {
    for (const EntryRecord& r : f.records) roots.push_back(r.schema);
  }
  return entry_schemas_json(reference_closure(roots));
}

std::string table_diff(const std::string& table, const std::string& stored,
                       const std::string& declared, bool* additive) {
  *additive = true;
  if (stored == declared) return "";
  *additive = additive_change(stored, declared);
  return CJ(CJ::Object{{"schema", CJ::Object{{table, CJ::Object{{"expected", stored},
                                                                {"actual", declared}}}}}})
      .dump();
}

std::string entry_declaration_json(const std::vector<EntryFamily>& families) {
  return CJ(CJ::Object{{"families", families_json(families)}, {"format", 2}}).dump();
}

std::string timestamps_marker(const RecordStoreOptions& options) {
  return options.store_timestamps ? "v1:" + std::to_string(options.store_timestamp_resolution)
                                  : "off";
}

bson::Document layout_document(const RecordStoreOptions& options,
                               const std::vector<EntryFamily>& families) {
  return bson::make_document(
      "_id", kLayoutId, "protocol", "2", "entry_declaration", entry_declaration_json(families),
      "entry_schemas", entry_schemas_json(families), "document_layout", "mongo-v2", "generation",
      int64_t{0}, "store_timestamps", timestamps_marker(options));
}

bool additive_change(const std::string& expected, const std::string& actual) {
  bson::Document e = parse(expected), a = parse(actual);
  for (const char* key : {"identity_name", "dedup", "composite_indexes", "links"}) {
    if (bson_json(e.get(key)) != bson_json(a.get(key))) return false;
  }
  bson::Value ef = e.get("fields"), af = a.get("fields");
  if (!ef.is_document() || !af.is_document()) return false;
  for (const bson::Element& old_field : ef.as_document()) {
    bson::Value now = af.as_document().get(old_field.key);
    if (now.is_missing() || bson_json(now) != bson_json(old_field.value)) return false;
  }
  for (const bson::Element& new_field : af.as_document()) {
    if (ef.as_document().has(new_field.key)) continue;
    if (!new_field.value.is_document()) return false;
    bson::DocumentView f = new_field.value.as_document();
    if (bson_json(f.get("role")) == "\"child\"" || f.get("derived").truthy() ||
        !f.get("identity_skipped").truthy()) {
      return false;
    }
    bson::Value columns = f.get("columns");
    if (!columns.is_array()) return false;
    for (const bson::Element& c : columns.as_array()) {
      if (!c.value.is_document() || !c.value.as_document().get("nullable").truthy()) return false;
    }
  }
  return true;
}

std::string layout_diff(bson::DocumentView stored, const RecordStoreOptions& options,
                        const std::vector<EntryFamily>& families, bool* additive) {
  *additive = true;
  CJ::Object diff;
  bson::Document expected = layout_document(options, families);
  std::set<std::string> keys;
  for (const bson::Element& e : expected) keys.insert(std::string(e.key));
  CJ::Array unexpected_keys, missing_keys;
  for (const bson::Element& e : stored) {
    if (!keys.count(std::string(e.key))) unexpected_keys.push_back(std::string(e.key));
  }
  for (const std::string& k : keys) {
    if (!stored.has(k)) missing_keys.push_back(k);
  }
  if (!unexpected_keys.empty() || !missing_keys.empty()) {
    diff.emplace("metadata",
                 CJ::Object{{"missing", missing_keys}, {"unexpected", unexpected_keys}});
  }
  auto text = [&](std::string_view key) {
    bson::Value v = stored.get(key);
    return v.is_string() ? std::string(v.as_string()) : v.to_json();
  };
  for (const char* key : {"protocol", "document_layout"}) {
    std::string want(expected.get(key).as_string());
    if (stored.has(key) && text(key) != want) {
      diff.emplace(key, CJ::Object{{"expected", want}, {"actual", text(key)}});
    }
  }
  CJ::Object declaration;
  if (stored.has("store_timestamps") && text("store_timestamps") != timestamps_marker(options)) {
    declaration.emplace("store_timestamps", CJ::Object{{"expected", text("store_timestamps")},
                                                       {"actual", timestamps_marker(options)}});
  }
  std::string declared = entry_declaration_json(families);
  if (stored.has("entry_declaration") && text("entry_declaration") != declared) {
    declaration.emplace("entry_declaration",
                        CJ::Object{{"expected", text("entry_declaration")}, {"actual", declared}});
  }
  if (!declaration.empty()) diff.emplace("declaration", declaration);
  if (diff.size()) *additive = false;

  // Per table: the stored fingerprint is what the documents were written with.
  CJ::Object schema_diff;
  if (stored.has("entry_schemas")) {
    bson::Document stored_tables = parse(text("entry_schemas"));
    bson::Document declared_tables = parse(entry_schemas_json(families));
    bson::Value st = stored_tables.get("tables"), dt = declared_tables.get("tables");
    if (st.is_document() && dt.is_document()) {
      for (const bson::Element& t : dt.as_document()) {
        bson::Value old = st.as_document().get(t.key);
        std::string actual = t.value.to_json();
        if (old.is_missing()) {
          schema_diff.emplace(std::string(t.key),
                              CJ::Object{{"expected", CJ()}, {"actual", "new"}});
          continue;
        }
        if (old.to_json() == actual) continue;
        schema_diff.emplace(std::string(t.key),
                            CJ::Object{{"expected", old.to_json()}, {"actual", actual}});
        if (!additive_change(old.to_json(), actual)) *additive = false;
      }
      for (const bson::Element& t : st.as_document()) {
        if (!dt.as_document().has(t.key)) {
          schema_diff.emplace(std::string(t.key),
                              CJ::Object{{"expected", t.value.to_json()}, {"actual", CJ()}});
          *additive = false;
        }
      }
    }
  }
  if (!schema_diff.empty()) diff.emplace("schema", schema_diff);
  if (diff.empty()) return "";
  return CJ(std::move(diff)).dump();
}

}  // namespace mongostore::records
