#include "records/record_validator.h"

#include "mongostore/bson/builder.h"

namespace mongostore::records {
namespace {

using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

void append_type(DocumentBuilder& b, ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kInt:
      b.append("bsonType", make_array("int", "long"));
      return;
    case ColumnKind::kString:
      b.append("bsonType", "string");
      return;
    case ColumnKind::kBool:
      b.append("bsonType", "bool");
      return;
    case ColumnKind::kBytes:
      b.append("bsonType", "binData");
      return;
    case ColumnKind::kDouble:
      b.append("bsonType", "double");
      return;
  }
}

bool has_exact(const FieldSchema& f) {
  const FieldType& t = f.type.kind == FieldKind::kList ? *f.type.element : f.type;
  return t.kind == FieldKind::kFloat || t.kind == FieldKind::kRational ||
         t.kind == FieldKind::kMatrix;
}

}  // namespace

bson::Document record_validator(const RecordSchema& schema, bool store_timestamps) {
  DocumentBuilder f_properties;
  DocumentBuilder f_required;  // used as an array
  size_t required_count = 0;
  DocumentBuilder f_dependencies;
  bool any_dependency = false;
  for (const FieldSchema& field : schema.fields()) {
    if (!field.stored()) continue;
    std::vector<Column> columns = field.columns();
    if (field.role() == FieldRole::kChild) {
      DocumentBuilder element;
      DocumentBuilder properties;
      DocumentBuilder required;  // used as an array
      for (const Column& c : columns) {
        properties.open_document(c.name);
        append_type(properties, c.kind);
        properties.close();
        required.push(c.name);
      }
      element.append("bsonType", "object").append("properties", properties.finish());
      element.append("required", required.finish_array()).append("additionalProperties", false);
      f_properties.open_document(field.name)
          .append("bsonType", "array")
          .append("items", element.finish())
          .close();
      if (!field.optional) {
        f_required.push(field.name);
        ++required_count;
      }
      continue;
    }
    for (const Column& c : columns) {
      f_properties.open_document(c.name);
      append_type(f_properties, c.kind);
      f_properties.close();
      if (!field.optional) {
        f_required.push(c.name);
        ++required_count;
      }
    }
    if (has_exact(field)) {
      std::string exact = field.name + "_exact";
      for (const Column& c : columns) {
        if (c.name == exact) continue;
        f_dependencies.append(c.name, make_array(exact));
        any_dependency = true;
      }
    }
  }
  DocumentBuilder f;
  f.append("bsonType", "object").append("additionalProperties", true);
  f.append("properties", f_properties.finish());
  // The server refuses `required: []`: a record without required columns states none.
  if (required_count > 0) f.append("required", f_required.finish_array());
  if (any_dependency) f.append("dependencies", f_dependencies.finish());

  DocumentBuilder required;  // used as an array
  for (const char* key : {"_id", "_httk_role", "f", "logical_id"}) required.push(key);
  if (store_timestamps) required.push("store_timestamp");
  if (schema.dedup() == Dedup::kContentId) required.push("content_id");
  DocumentBuilder properties;
  properties.append("_id", make_document("bsonType", make_array("int", "long")));
  properties.append("_httk_role", make_document("enum", make_array("main", "dep")));
  properties.append("f", f.finish());
  properties.append("logical_id", make_document("bsonType", make_array("int", "long")));
  properties.append("alt_id", make_document("bsonType", make_array("int", "long")));
  properties.append("alt_kind", make_document("bsonType", "string"));
  if (store_timestamps) {
    properties.append("store_timestamp", make_document("bsonType", make_array("long", "int")));
  }
  if (schema.dedup() == Dedup::kContentId) {
    properties.append("content_id",
                      make_document("bsonType", "string", "pattern", "^[0-9a-fA-F]{64}$"));
  }
  DocumentBuilder root;
  root.append("bsonType", "object").append("required", required.finish_array());
  root.append("properties", properties.finish()).append("additionalProperties", false);
  return make_document("$jsonSchema", root.finish());
}

bson::Document dispatch_validator(const std::vector<std::string>& record_names) {
  DocumentBuilder names;  // used as an array
  for (const std::string& n : record_names) names.push(n);
  DocumentBuilder root;
  root.append("bsonType", "object").append("required", make_array("_id", "record", "sid"));
  root.append("properties", make_document("_id", make_document("bsonType", "string"), "record",
                                          make_document("enum", names.finish_array()), "sid",
                                          make_document("bsonType", make_array("int", "long"))));
  root.append("additionalProperties", false);
  return make_document("$jsonSchema", root.finish());
}

}  // namespace mongostore::records
