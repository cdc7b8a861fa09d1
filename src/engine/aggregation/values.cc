// Value helpers shared by expressions and stages: building owned values, field-path
// traversal, numeric conversions.
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/aggregation/internal.h"
#include "engine/update/decimal_math.h"

namespace mongostore::engine::aggregation_detail {

void fail(int32_t code, std::string message) {
  throw Error(code, std::move(message));
}

void check_expression_bytes(std::string_view op, uint64_t bytes) {
  if (bytes >= static_cast<uint64_t>(kMaxExpressionBytes)) {
    fail(ErrorCode::kExceededMemoryLimit, std::string(op) + " would use too much memory (" +
                                              std::to_string(bytes) +
                                              " bytes) and cannot spill to disk. Memory limit: " +
                                              std::to_string(kMaxExpressionBytes) + " bytes");
  }
}

OwnedValue make_array_value(const std::vector<OwnedValue>& elements) {
  bson::DocumentBuilder b;
  b.open_array("");
  for (const OwnedValue& e : elements) {
    Value v = e.view();
    if (v.is_missing()) {
      b.push(bson::Null{});
    } else {
      b.push(v);
    }
  }
  b.close();
  Document d = b.finish();
  return OwnedValue(d.get(""));
}

OwnedValue make_array_value(const std::vector<Value>& elements) {
  bson::DocumentBuilder b;
  b.open_array("");
  for (const Value& v : elements) {
    if (v.is_missing()) {
      b.push(bson::Null{});
    } else {
      b.push(v);
    }
  }
  b.close();
  Document d = b.finish();
  return OwnedValue(d.get(""));
}

OwnedValue make_document_value(DocumentView doc) {
  return make_value(doc);
}

Value document_as_value(DocumentView doc) {
  return Value(BsonType::kDocument, doc.data(), static_cast<uint32_t>(doc.size()));
}

std::vector<Value> array_elements(const Value& array) {
  std::vector<Value> out;
  for (const bson::Element& e : array.as_array()) out.push_back(e.value);
  return out;
}

void append_value(bson::DocumentBuilder& b, std::string_view key, const Value& v) {
  if (!v.is_missing()) b.append(key, v);
}

std::string type_name(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

std::string render(const Value& v) {
  if (v.is_missing()) return "missing";
  if (v.is_document()) return v.as_document().to_json();
  if (v.is_array()) return v.as_array().to_json_array();
  return v.to_json();
}

namespace {
void set_path_into(bson::DocumentBuilder& b, DocumentView doc, const std::vector<std::string>& path,
                   size_t i, const Value& v) {
  bool done = false;
  for (const bson::Element& e : doc) {
    if (e.key != path[i]) {
      b.append(e.key, e.value);
      continue;
    }
    done = true;
    if (i + 1 == path.size()) {
      append_value(b, e.key, v);
    } else {
      b.open_document(e.key);
      set_path_into(b, e.value.is_document() ? e.value.as_document() : DocumentView(), path, i + 1,
                    v);
      b.close();
    }
  }
  if (done || v.is_missing()) return;
  if (i + 1 == path.size()) {
    b.append(path[i], v);
  } else {
    b.open_document(path[i]);
    set_path_into(b, DocumentView(), path, i + 1, v);
    b.close();
  }
}
}  // namespace

Document set_path(DocumentView doc, const std::vector<std::string>& path, const Value& v) {
  bson::DocumentBuilder b;
  set_path_into(b, doc, path, 0, v);
  return b.finish();
}

Value get_path(DocumentView doc, const std::vector<std::string>& path) {
  Value cur = document_as_value(doc);
  for (const std::string& p : path) {
    if (!cur.is_document()) return Value();
    cur = cur.as_document().get(p);
  }
  return cur;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

namespace {
void traverse_into(const Value& v, const std::vector<std::string>& parts, size_t i,
                   std::vector<OwnedValue>* out);
}

OwnedValue traverse_path(const Value& start, const std::vector<std::string>& parts, size_t from) {
  if (from >= parts.size()) return OwnedValue(start);
  if (start.is_document()) {
    return traverse_path(start.as_document().get(parts[from]), parts, from + 1);
  }
  if (start.is_array()) {
    std::vector<OwnedValue> out;
    for (const bson::Element& e : start.as_array()) traverse_into(e.value, parts, from, &out);
    return make_array_value(out);
  }
  return OwnedValue();
}

namespace {
void traverse_into(const Value& v, const std::vector<std::string>& parts, size_t i,
                   std::vector<OwnedValue>* out) {
  // Inside an array: documents follow the path, nested arrays recurse, others vanish.
  if (v.is_document()) {
    OwnedValue r = traverse_path(v.as_document().get(parts[i]), parts, i + 1);
    if (!r.view().is_missing()) out->push_back(std::move(r));
  } else if (v.is_array()) {
    OwnedValue r = traverse_path(v, parts, i);
    out->push_back(std::move(r));
  }
}
}  // namespace

OwnedValue number_from_double(double d) {
  return make_value(d);
}

bson::Decimal128 to_decimal(const Value& v) {
  return update_detail::to_decimal(v);
}

bson::Decimal128 decimal_from_double(double d) {
  if (std::isnan(d)) return bson::Decimal128::from_string("NaN");
  if (std::isinf(d)) return bson::Decimal128::from_string(d > 0 ? "Infinity" : "-Infinity");
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", d);
  return bson::Decimal128::from_string(buf);
}

double decimal_to_double(const bson::Decimal128& d) {
  OwnedValue o = make_value(d);
  return o.view().number_as_double();
}

OwnedValue integral_result(int64_t v, bool prefer_int32) {
  if (prefer_int32 && v >= std::numeric_limits<int32_t>::min() &&
      v <= std::numeric_limits<int32_t>::max()) {
    return make_value(static_cast<int32_t>(v));
  }
  return make_value(v);
}

bool to_int32_exact(const Value& v, int32_t* out) {
  int64_t i = 0;
  if (!v.is_number() || !v.number_as_exact_int64(&i)) return false;
  if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *out = static_cast<int32_t>(i);
  return true;
}

}  // namespace mongostore::engine::aggregation_detail
