#include "records/stored_form.h"

#include <cmath>
#include <cstdlib>
#include <span>

#include "mongostore/records/content_id.h"
#include "mongostore/records/errors.h"

namespace mongostore::records {
namespace {

using bson::DocumentBuilder;
using bson::DocumentView;

[[noreturn]] void bad_stored(const FieldSchema& field, const std::string& why) {
  throw SchemaError("stored field '" + field.name + "' does not match its declaration (" +
                    field.type.describe() + "): " + why);
}

double finite_double(double v, const std::string& name) {
  if (!std::isfinite(v)) throw SchemaError(name + ": a float must be finite to be stored");
  return v;
}

// The columns of one non-list value under the key `name` (no None: callers handle it).
void encode_value(DocumentBuilder& b, const std::string& name, const FieldType& type,
                  const Value& v, const SidOf& sid_of) {
  switch (type.kind) {
    case FieldKind::kInt:
      b.append(name, v.as<int64_t>());
      return;
    case FieldKind::kString:
      b.append(name, std::string_view(v.as<std::string>()));
      return;
    case FieldKind::kBool:
      b.append(name, v.as<bool>());
      return;
    case FieldKind::kBytes: {
      const std::string& raw = v.as<Bytes>().data;
      b.append(name,
               bson::BinaryView{0, std::span<const uint8_t>(
                                       reinterpret_cast<const uint8_t*>(raw.data()), raw.size())});
      return;
    }
    case FieldKind::kFloat: {
      double d = finite_double(v.as<double>(), name);
      b.append(name, d);
      b.append(name + "_exact", float_hex(d));
      return;
    }
    case FieldKind::kRational: {
      const Rational& r = v.as<Rational>();
      b.append(name, r.nearest_double());
      b.append(name + "_exact", r.to_string());
      return;
    }
    case FieldKind::kDateTime:
      b.append(name, v.as<DateTime>().iso());
      return;
    case FieldKind::kDate:
      b.append(name, v.as<Date>().iso());
      return;
    case FieldKind::kMatrix: {
      const RationalMatrix& m = v.as<RationalMatrix>();
      if (m.cols != type.cols || (type.rows != 0 && m.rows != type.rows) ||
          m.cells.size() != m.rows * m.cols) {
        throw SchemaError(name + ": a " + std::to_string(m.rows) + "x" + std::to_string(m.cols) +
                          " matrix for a field declared " + type.describe());
      }
      for (size_t i = 0; i < m.cells.size(); ++i) {
        b.append(name + "_" + std::to_string(i), m.cells[i].nearest_double());
      }
      b.append(name + "_exact", matrix_exact(m.cells));
      return;
    }
    case FieldKind::kReference:
      b.append(name + "_sid", sid_of(v.as<Value::RecordPtr>()));
      return;
    case FieldKind::kList:
      break;
  }
  throw SchemaError(name + ": a list inside a list is not supported");
}

Value decode_value(DocumentView doc, const std::string& name, const FieldSchema& field,
                   const FieldType& type, const ResolveSid& resolve) {
  auto string_at = [&](const std::string& key) -> std::string {
    bson::Value v = doc.get(key);
    if (!v.is_string()) bad_stored(field, "'" + key + "' is not a string");
    return std::string(v.as_string());
  };
  switch (type.kind) {
    case FieldKind::kInt: {
      bson::Value v = doc.get(name);
      if (v.type() != bson::BsonType::kInt64 && v.type() != bson::BsonType::kInt32) {
        bad_stored(field, "'" + name + "' is not an integer");
      }
      return Value(v.type() == bson::BsonType::kInt64 ? v.as_int64() : int64_t{v.as_int32()});
    }
    case FieldKind::kString:
      return Value(string_at(name));
    case FieldKind::kBool: {
      bson::Value v = doc.get(name);
      if (v.type() != bson::BsonType::kBool) bad_stored(field, "'" + name + "' is not a bool");
      return Value(v.as_bool());
    }
    case FieldKind::kBytes: {
      bson::Value v = doc.get(name);
      if (v.type() != bson::BsonType::kBinary) bad_stored(field, "'" + name + "' is not binData");
      bson::BinaryView bin = v.as_binary();
      return Value(
          Bytes{std::string(reinterpret_cast<const char*>(bin.bytes.data()), bin.bytes.size())});
    }
    case FieldKind::kFloat: {
      // The exact column is authoritative: the double column is for queries.
      std::string hex = string_at(name + "_exact");
      char* end = nullptr;
      double d = std::strtod(hex.c_str(), &end);
      if (hex.rfind("0x", 0) != 0 && hex.rfind("-0x", 0) != 0) {
        bad_stored(field, "'" + name + "_exact' is not hex float text");
      }
      if (end != hex.c_str() + hex.size()) bad_stored(field, "'" + name + "_exact' does not parse");
      return Value(d);
    }
    case FieldKind::kRational:
      return Value(Rational::parse(string_at(name + "_exact")));
    case FieldKind::kDateTime:
      return Value(DateTime::parse_iso(string_at(name)));
    case FieldKind::kDate:
      return Value(Date::parse_iso(string_at(name)));
    case FieldKind::kMatrix: {
      size_t rows = type.rows == 0 ? 1 : type.rows;
      RationalMatrix m{rows, type.cols,
                       parse_matrix_exact(string_at(name + "_exact"), rows * type.cols)};
      return Value(std::move(m));
    }
    case FieldKind::kReference: {
      bson::Value v = doc.get(name + "_sid");
      int64_t sid = 0;
      if (!v.is_number() || !v.number_as_exact_int64(&sid)) {
        bad_stored(field, "'" + name + "_sid' is not an integer");
      }
      return Value(resolve(type.target_schema(), sid));
    }
    case FieldKind::kList:
      break;
  }
  bad_stored(field, "a list inside a list");
}

// True when any of a non-list field's columns is present in `doc`.
bool any_column(DocumentView doc, const std::vector<Column>& columns) {
  for (const Column& c : columns) {
    if (doc.has(c.name)) return true;
  }
  return false;
}

}  // namespace

std::string matrix_exact(const std::vector<Rational>& cells) {
  std::string d = Rational::common_denominator(cells);
  std::string out = d + ";";
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += cells[i].numerator_over(d);
  }
  return out;
}

std::vector<Rational> parse_matrix_exact(std::string_view text, size_t count) {
  size_t semi = text.find(';');
  if (semi == std::string_view::npos)
    throw SchemaError("matrix text without ';': " + std::string(text));
  std::string d(text.substr(0, semi));
  std::vector<Rational> out;
  std::string_view rest = text.substr(semi + 1);
  while (!rest.empty() || out.size() < count) {
    size_t comma = rest.find(',');
    std::string_view n = rest.substr(0, comma);
    out.push_back(Rational::parse(std::string(n) + "/" + d));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (out.size() != count) {
    throw SchemaError("matrix text holds " + std::to_string(out.size()) + " values, expected " +
                      std::to_string(count));
  }
  return out;
}

void encode_field(DocumentBuilder& f, const FieldSchema& field, const Value& value,
                  const SidOf& sid_of) {
  const FieldType& type = field.type;
  bool child_matrix = type.kind == FieldKind::kMatrix && type.rows == 0;
  if (type.kind == FieldKind::kList || child_matrix) {
    f.open_array(field.name);
    if (!value.is_null()) {
      if (child_matrix) {
        const RationalMatrix& m = value.as<RationalMatrix>();
        if (m.cols != type.cols || m.cells.size() != m.rows * m.cols) {
          throw SchemaError(field.name + ": rows of " + std::to_string(m.cols) +
                            " columns for a field declared " + type.describe());
        }
        FieldType row{FieldKind::kMatrix, 1, type.cols};
        for (size_t r = 0; r < m.rows; ++r) {
          RationalMatrix one{1, m.cols,
                             std::vector<Rational>(m.cells.begin() + r * m.cols,
                                                   m.cells.begin() + (r + 1) * m.cols)};
          f.push_document();
          encode_value(f, field.name, row, Value(std::move(one)), sid_of);
          f.close();
        }
      } else {
        for (const Value& item : value.as<Value::List>()) {
          if (item.is_null()) throw SchemaError(field.name + ": a list element is None");
          f.push_document();
          encode_value(f, field.name, *type.element, item, sid_of);
          f.close();
        }
      }
    }
    f.close();
    return;
  }
  if (value.is_null()) {
    if (!field.optional) throw SchemaError(field.name + " cannot be None");
    return;
  }
  encode_value(f, field.name, type, value, sid_of);
}

bson::Document encode_fields(const DynamicRecord& record, const SidOf& sid_of) {
  DocumentBuilder f;
  const RecordSchema& schema = record.schema();
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const FieldSchema& field = schema.fields()[i];
    if (!field.stored()) continue;
    try {
      encode_field(f, field, record.fields()[i], sid_of);
    } catch (const SchemaError& e) {
      if (dynamic_cast<const StorageProjectionCycleError*>(&e)) throw;
      throw SchemaError(schema.identity_name() + "." + field.name + ": " + e.what());
    }
  }
  return f.finish();
}

namespace {

// decode_field; `columns` is field.columns(), or null to compute them only if they are needed
// (a non-list field).
Value decode(DocumentView f, const FieldSchema& field, const std::vector<Column>* columns,
             const ResolveSid& resolve) {
  const FieldType& type = field.type;
  bool child_matrix = type.kind == FieldKind::kMatrix && type.rows == 0;
  if (type.kind == FieldKind::kList || child_matrix) {
    bson::Value v = f.get(field.name);
    if (v.is_missing() || v.is_null()) {
      if (child_matrix) return Value(RationalMatrix{0, type.cols, {}});
      return Value(Value::List{});
    }
    if (!v.is_array()) bad_stored(field, "not an array");
    if (child_matrix) {
      RationalMatrix m{0, type.cols, {}};
      FieldType row{FieldKind::kMatrix, 1, type.cols};
      for (const bson::Element& e : v.as_array()) {
        if (!e.value.is_document()) bad_stored(field, "a row is not a document");
        Value one = decode_value(e.value.as_document(), field.name, field, row, resolve);
        const RationalMatrix& r = one.as<RationalMatrix>();
        m.cells.insert(m.cells.end(), r.cells.begin(), r.cells.end());
        ++m.rows;
      }
      return Value(std::move(m));
    }
    Value::List items;
    for (const bson::Element& e : v.as_array()) {
      if (!e.value.is_document()) bad_stored(field, "an element is not a document");
      items.push_back(
          decode_value(e.value.as_document(), field.name, field, *type.element, resolve));
    }
    return Value(std::move(items));
  }
  if (!(columns ? any_column(f, *columns) : any_column(f, field.columns()))) {
    if (!field.optional) bad_stored(field, "missing");
    return Value();
  }
  return decode_value(f, field.name, field, type, resolve);
}

}  // namespace

Value decode_field(DocumentView f, const FieldSchema& field, const ResolveSid& resolve) {
  return decode(f, field, nullptr, resolve);
}

Value decode_field(DocumentView f, const FieldSchema& field, const std::vector<Column>& columns,
                   const ResolveSid& resolve) {
  return decode(f, field, &columns, resolve);
}

void referenced_sids(
    DocumentView f, const RecordSchema& schema,
    const std::function<void(const std::shared_ptr<const RecordSchema>&, int64_t)>& visit) {
  for (const FieldSchema& field : schema.fields()) {
    if (!field.stored()) continue;
    const FieldType* t = &field.type;
    bool list = false;
    if (t->kind == FieldKind::kList) {
      t = t->element.get();
      list = true;
    }
    if (t->kind != FieldKind::kReference) continue;
    std::string key = field.name + "_sid";
    auto one = [&](DocumentView doc) {
      int64_t sid = 0;
      if (doc.get(key).number_as_exact_int64(&sid)) visit(t->target_schema(), sid);
    };
    if (!list) {
      one(f);
      continue;
    }
    bson::Value arr = f.get(field.name);
    if (!arr.is_array()) continue;
    for (const bson::Element& e : arr.as_array()) {
      if (e.value.is_document()) one(e.value.as_document());
    }
  }
}

}  // namespace mongostore::records
