#include "mongostore/records/schema.h"

#include <cctype>
#include <set>

#include "mongostore/records/errors.h"

namespace mongostore::records {
namespace {

// Top-level keys of a record document, and names httk reserves for its own columns.
const std::set<std::string, std::less<>> kReserved = {"sid", "content_id", "_httk_role",
                                                      "store_timestamp", "logical_id"};

ColumnKind scalar_column(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return ColumnKind::kInt;
    case FieldKind::kString:
      return ColumnKind::kString;
    case FieldKind::kBool:
      return ColumnKind::kBool;
    case FieldKind::kBytes:
      return ColumnKind::kBytes;
    default:
      return ColumnKind::kDouble;
  }
}

// The columns one value of `type` takes under the key `name` (no container).
void value_columns(const std::string& name, const FieldType& type, std::vector<Column>* out) {
  switch (type.kind) {
    case FieldKind::kInt:
    case FieldKind::kString:
    case FieldKind::kBool:
    case FieldKind::kBytes:
      out->push_back({name, scalar_column(type.kind)});
      return;
    case FieldKind::kFloat:
    case FieldKind::kRational:
      out->push_back({name, ColumnKind::kDouble});
      out->push_back({name + "_exact", ColumnKind::kString});
      return;
    case FieldKind::kDateTime:
    case FieldKind::kDate:
      out->push_back({name, ColumnKind::kString});
      return;
    case FieldKind::kMatrix: {
      size_t cells = (type.rows == 0 ? 1 : type.rows) * type.cols;
      for (size_t i = 0; i < cells; ++i)
        out->push_back({name + "_" + std::to_string(i), ColumnKind::kDouble});
      out->push_back({name + "_exact", ColumnKind::kString});
      return;
    }
    case FieldKind::kReference:
      out->push_back({name + "_sid", ColumnKind::kInt});
      return;
    case FieldKind::kList:
      return;  // a child: its element's columns, see FieldSchema::columns
  }
}

}  // namespace

std::string_view dedup_name(Dedup dedup) {
  switch (dedup) {
    case Dedup::kContentId:
      return "content_id";
    case Dedup::kByValue:
      return "by_value";
    case Dedup::kNone:
      return "none";
  }
  return "content_id";
}

std::shared_ptr<const RecordSchema> FieldType::target_schema() const {
  if (!target) return nullptr;
  return target();
}

std::string FieldType::describe() const {
  switch (kind) {
    case FieldKind::kInt:
      return "int";
    case FieldKind::kString:
      return "string";
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
      return "matrix[" + (rows == 0 ? std::string("*") : std::to_string(rows)) + "x" +
             std::to_string(cols) + "]";
    case FieldKind::kList:
      return std::string(tuple ? "tuple[" : "list[") + (element ? element->describe() : "?") + "]";
    case FieldKind::kReference: {
      auto t = target_schema();
      return "record<" + (t ? t->identity_name() : std::string("?")) + ">";
    }
  }
  return "?";
}

FieldRole FieldSchema::role() const {
  switch (type.kind) {
    case FieldKind::kInt:
    case FieldKind::kString:
    case FieldKind::kBool:
    case FieldKind::kBytes:
      return FieldRole::kScalar;
    case FieldKind::kFloat:
    case FieldKind::kRational:
    case FieldKind::kDateTime:
    case FieldKind::kDate:
      return FieldRole::kEncoded;
    case FieldKind::kMatrix:
      return type.rows == 0 ? FieldRole::kChild : FieldRole::kFixedArray;
    case FieldKind::kList:
      return FieldRole::kChild;
    case FieldKind::kReference:
      return FieldRole::kReference;
  }
  return FieldRole::kScalar;
}

std::vector<Column> FieldSchema::columns() const {
  std::vector<Column> out;
  if (type.kind == FieldKind::kList) {
    value_columns(name, *type.element, &out);
  } else {
    value_columns(name, type, &out);
  }
  return out;
}

RecordSchema::RecordSchema(std::string identity_name, std::string storage_name, Dedup dedup,
                           std::vector<FieldSchema> fields,
                           std::vector<std::vector<std::string>> indexes,
                           std::vector<std::vector<PageIndexKey>> page_indexes)
    : identity_name_(std::move(identity_name)),
      storage_name_(std::move(storage_name)),
      dedup_(dedup),
      fields_(std::move(fields)),
      indexes_(std::move(indexes)),
      page_indexes_(std::move(page_indexes)) {
  const std::string& who = identity_name_;
  if (identity_name_.empty()) throw SchemaError("a record needs an identity name");
  if (storage_name_.empty() || storage_name_.rfind("_httk_", 0) == 0 ||
      storage_name_.rfind("system.", 0) == 0 || storage_name_.find('$') != std::string::npos ||
      storage_name_.find('\0') != std::string::npos) {
    throw SchemaError(who + ": storage name '" + storage_name_ +
                      "' is reserved or not a valid collection name");
  }
  std::set<std::string, std::less<>> names;
  for (const FieldSchema& f : fields_) {
    std::string where = who + "." + f.name;
    if (f.name.empty() || f.name.find('.') != std::string::npos || f.name[0] == '$' ||
        f.name.find('\0') != std::string::npos) {
      throw SchemaError(where + ": not a valid field name");
    }
    if (kReserved.count(f.name)) throw SchemaError(where + ": the name is reserved by the store");
    if (!names.insert(f.name).second) throw SchemaError(where + ": declared twice");
    if (f.type.kind == FieldKind::kList) {
      if (!f.type.element || f.type.element->kind == FieldKind::kList ||
          f.type.element->kind == FieldKind::kMatrix) {
        throw SchemaError(where + ": a list of lists or of matrices is not supported");
      }
    }
    if (f.type.kind == FieldKind::kMatrix && f.type.cols == 0) {
      throw SchemaError(where + ": a matrix needs at least one column");
    }
    if (f.type.kind == FieldKind::kReference && !f.type.target) {
      throw SchemaError(where + ": a reference needs a target record type");
    }
    if (f.role() == FieldRole::kChild && (f.indexed || f.unique)) {
      throw SchemaError(where + ": a child list cannot be indexed or unique");
    }
    if (f.derived()) {
      const FieldType& value = f.type.kind == FieldKind::kList ? *f.type.element : f.type;
      if (value.kind == FieldKind::kReference) {
        throw SchemaError(where +
                          ": a stored property of records (a reference or a list of records) "
                          "is not supported");
      }
    }
  }
  // An optional child `c` reserves `c_present` (httk's presence column of the SQL backend).
  for (const FieldSchema& f : fields_) {
    if (f.role() == FieldRole::kChild && f.optional && names.count(f.name + "_present")) {
      throw SchemaError(who + "." + f.name +
                        "_present: the name is reserved by the optional "
                        "child '" +
                        f.name + "'");
    }
  }
  for (const auto& index : indexes_) {
    if (index.empty()) throw SchemaError(who + ": a composite index names no field");
    std::set<std::string, std::less<>> seen;
    for (const std::string& name : index) {
      std::optional<size_t> i = field_index(name);
      if (!i) throw SchemaError(who + ": composite index names unknown field '" + name + "'");
      if (fields_[*i].role() == FieldRole::kChild || !fields_[*i].stored()) {
        throw SchemaError(who + "." + name +
                          ": a composite index takes scalar, encoded or "
                          "reference fields only");
      }
      if (!seen.insert(name).second) {
        throw SchemaError(who + ": composite index names '" + name + "' twice");
      }
    }
  }
  for (const auto& order : page_indexes_) {
    if (order.empty() || order.size() > 31) {
      throw SchemaError(who + ": a page index names 1..31 fields");
    }
    std::set<std::string, std::less<>> seen;
    for (const PageIndexKey& key : order) {
      std::optional<size_t> i = field_index(key.field);
      if (!i) throw SchemaError(who + ": page index names unknown field '" + key.field + "'");
      const FieldSchema& f = fields_[*i];
      if (!f.stored() || (f.role() != FieldRole::kScalar && f.role() != FieldRole::kEncoded &&
                          f.role() != FieldRole::kReference)) {
        throw SchemaError(who + "." + key.field +
                          ": a page index takes scalar, encoded or reference fields only");
      }
      if (!seen.insert(key.field).second) {
        throw SchemaError(who + ": page index names '" + key.field + "' twice");
      }
    }
  }
}

std::optional<size_t> RecordSchema::field_index(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return i;
  }
  return std::nullopt;
}

std::string default_storage_name(std::string_view name) {
  // Acronym-aware: a capital starts a new word when it follows a lowercase letter or digit,
  // or when it is followed by a lowercase letter after another capital ("HTTPServer").
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (std::isupper(c)) {
      bool after_lower = i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                                   std::isdigit(static_cast<unsigned char>(name[i - 1])));
      bool acronym_end = i > 0 && std::isupper(static_cast<unsigned char>(name[i - 1])) &&
                         i + 1 < name.size() &&
                         std::islower(static_cast<unsigned char>(name[i + 1]));
      if (!out.empty() && out.back() != '_' && (after_lower || acronym_end)) out += '_';
      out += static_cast<char>(std::tolower(c));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace mongostore::records
