#include "optimade/optimade_entry_type.h"

#include <fmt/core.h>

#include <ctime>

#include "mongostore/bson/builder.h"
#include "stored_fields.h"

namespace mongostore::tool::optimade {
namespace {

using records::FieldKind;
using records::FieldSchema;
using records::FieldType;

std::string base64(std::span<const uint8_t> bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = uint32_t{bytes[i]} << 16;
    if (i + 1 < bytes.size()) n |= uint32_t{bytes[i + 1]} << 8;
    if (i + 2 < bytes.size()) n |= bytes[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// OPTIMADE's type of a field (the filter translation's, optimade_filter_searcher.h).
std::string optimade_type(const FieldType& t) {
  switch (t.kind) {
    case FieldKind::kInt:
    case FieldKind::kReference:
      return "integer";
    case FieldKind::kFloat:
    case FieldKind::kRational:
      return "float";
    case FieldKind::kBool:
      return "boolean";
    case FieldKind::kDateTime:
      return "timestamp";
    case FieldKind::kMatrix:
    case FieldKind::kList:
      return "list";
    case FieldKind::kString:
    case FieldKind::kDate:
    case FieldKind::kBytes:
      return "string";
  }
  return "string";
}

// One matrix row: the doubles `name_<first>` .. `name_<first + cols - 1>` of `holder`.
void append_row(bson::DocumentBuilder& b, std::string_view key, const std::string& name,
                size_t first, size_t cols, bson::DocumentView holder) {
  b.open_array(key);
  for (size_t c = 0; c < cols; ++c) b.push(holder.get(name + "_" + std::to_string(first + c)));
  b.close();
}

// One value of type `t` stored under `name` in `holder` (the `f` document or one element of a
// child list), appended as `key`.
void append_value(bson::DocumentBuilder& b, std::string_view key, const FieldType& t,
                  const std::string& name, bson::DocumentView holder) {
  switch (t.kind) {
    case FieldKind::kReference: {
      int64_t sid = 0;
      if (holder.get(name + "_sid").number_as_exact_int64(&sid)) {
        b.append(key, sid);
      } else {
        b.append(key, bson::Null{});
      }
      return;
    }
    case FieldKind::kMatrix: {
      if (!holder.has(name + "_0") || t.cols == 0) {
        b.append(key, bson::Null{});
        return;
      }
      size_t rows = t.rows == 0 ? 1 : t.rows;
      b.open_array(key);
      for (size_t r = 0; r < rows; ++r) {
        append_row(b, std::to_string(r), name, r * t.cols, t.cols, holder);
      }
      b.close();
      return;
    }
    case FieldKind::kBytes: {
      bson::Value v = holder.get(name);
      if (v.type() == bson::BsonType::kBinary) {
        b.append(key, base64(v.as_binary().bytes));
      } else {
        b.append(key, bson::Null{});
      }
      return;
    }
    default:
      // Scalars and encoded values keep their readable form under `name` (a rational's
      // nearest double, a datetime's ISO text).
      append_stored_or_null(b, key, holder, name);
      return;
  }
}

void append_field(bson::DocumentBuilder& b, const std::string& key, const FieldSchema& field,
                  bson::DocumentView f) {
  if (field.role() != records::FieldRole::kChild) {
    append_value(b, key, field.type, field.name, f);
    return;
  }
  append_stored_list(
      b, key, f.get(field.name),
      [&field](bson::DocumentBuilder& b, std::string_view index, bson::DocumentView element) {
        if (field.type.kind == FieldKind::kMatrix) {  // variable rows: a row each
          append_row(b, index, field.name, 0, field.type.cols, element);
        } else {
          append_value(b, index, *field.type.element, field.name, element);
        }
      });
}

}  // namespace

std::string rfc3339(int64_t ns) {
  int64_t seconds = ns / 1'000'000'000, fraction = ns % 1'000'000'000;
  if (fraction < 0) {
    fraction += 1'000'000'000;
    --seconds;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (fraction != 0) {
    std::string digits = fmt::format("{:09}", fraction);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out + "Z";
}

OptimadeEntryType::OptimadeEntryType(std::string name, std::string table,
                                     std::shared_ptr<const records::RecordSchema> schema,
                                     std::string prefix, int64_t timestamp_resolution)
    : name_(std::move(name)),
      table_(std::move(table)),
      schema_(std::move(schema)),
      prefix_(std::move(prefix)),
      timestamp_resolution_(timestamp_resolution) {
  property_names_ = {"id",
                     "type",
                     "immutable_id",
                     "last_modified",
                     prefix_ + "sid",
                     prefix_ + "logical_id",
                     prefix_ + "store_timestamp"};
  for (const FieldSchema& f : schema_->fields()) {
    if (f.stored()) property_names_.push_back(prefix_ + "custom_" + f.name);
  }
}

bool OptimadeEntryType::has_property(const std::string& name) const {
  for (const std::string& p : property_names_) {
    if (p == name) return true;
  }
  return false;
}

bson::Document OptimadeEntryType::properties_info() const {
  bson::DocumentBuilder b;
  auto add = [&b](const std::string& name, const std::string& description,
                  const std::string& type) {
    b.open_document(name)
        .append("description", description)
        .append("type", type)
        .append("sortable", false)
        .close();
  };
  add("id", "The entry's id: \"" + name_ + "-<sid>\" (filter with =, != and STARTS WITH)",
      "string");
  add("type", "The entry type, \"" + name_ + "\"", "string");
  add("immutable_id", "The record's content id (SHA-256 of its identity), when it has one",
      "string");
  add("last_modified", "The record's store timestamp (when it was saved), UTC", "timestamp");
  add(prefix_ + "sid", "The record's sid in its collection '" + table_ + "'", "integer");
  add(prefix_ + "logical_id", "The sid of the first version of the record's lineage", "integer");
  add(prefix_ + "store_timestamp", "The record's store timestamp (filterable as a timestamp)",
      "timestamp");
  for (const FieldSchema& f : schema_->fields()) {
    if (!f.stored()) continue;
    std::string description = "The record's field '" + f.name + "' (" + f.type.describe() + ")";
    if (f.type.kind == FieldKind::kReference) description += ": the referenced record's sid";
    if (f.type.kind == FieldKind::kRational) description += ": the nearest double";
    if (f.type.kind == FieldKind::kMatrix) description += ": rows of nearest doubles";
    add(prefix_ + "custom_" + f.name, description, optimade_type(f.type));
  }
  return b.finish();
}

std::string OptimadeEntryType::id_of(int64_t sid) const {
  return name_ + "-" + std::to_string(sid);
}

int64_t OptimadeEntryType::sid_of(const std::string& id) const {
  if (id.size() <= name_.size() + 1 || id.compare(0, name_.size(), name_) != 0 ||
      id[name_.size()] != '-' || id[name_.size() + 1] == '0') {  // id_of writes no leading 0
    return 0;
  }
  int64_t sid = 0;
  for (size_t i = name_.size() + 1; i < id.size(); ++i) {
    char c = id[i];
    if (c < '0' || c > '9' || sid > (INT64_MAX - 9) / 10) return 0;
    sid = sid * 10 + (c - '0');
  }
  return sid;
}

bson::Document OptimadeEntryType::resource(bson::DocumentView stored,
                                           const std::vector<std::string>& fields) const {
  auto wanted = [&fields](const std::string& name) {
    if (fields.empty()) return true;
    for (const std::string& f : fields) {
      if (f == name) return true;
    }
    return false;
  };
  int64_t sid = 0;
  stored.get("_id").number_as_exact_int64(&sid);
  bson::DocumentBuilder b;
  b.append("id", id_of(sid)).append("type", name_);
  b.open_document("attributes");
  if (wanted("immutable_id")) {
    bson::Value content_id = stored.get("content_id");
    if (content_id.is_string()) {
      b.append("immutable_id", content_id);
    } else {
      b.append("immutable_id", bson::Null{});
    }
  }
  int64_t timestamp = 0;
  bool timestamped = stored.get("store_timestamp").number_as_exact_int64(&timestamp);
  std::string when = timestamped ? rfc3339(timestamp * timestamp_resolution_) : std::string();
  auto append_when = [&](const std::string& key) {
    if (!wanted(key)) return;
    if (timestamped) {
      b.append(key, when);
    } else {
      b.append(key, bson::Null{});
    }
  };
  append_when("last_modified");
  if (wanted(prefix_ + "sid")) b.append(prefix_ + "sid", sid);
  if (wanted(prefix_ + "logical_id")) {
    int64_t logical_id = 0;
    if (stored.get("logical_id").number_as_exact_int64(&logical_id)) {
      b.append(prefix_ + "logical_id", logical_id);
    } else {
      b.append(prefix_ + "logical_id", bson::Null{});
    }
  }
  append_when(prefix_ + "store_timestamp");
  bson::Value f = stored.get("f");
  bson::Document none;
  bson::DocumentView holder = f.is_document() ? f.as_document() : none.view();
  for (const FieldSchema& field : schema_->fields()) {
    if (!field.stored()) continue;
    std::string key = prefix_ + "custom_" + field.name;
    if (wanted(key)) append_field(b, key, field, holder);
  }
  b.close();
  return b.finish();
}

}  // namespace mongostore::tool::optimade
