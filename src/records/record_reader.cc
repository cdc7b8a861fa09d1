#include "records/record_reader.h"

#include <algorithm>

#include "mongostore/bson/builder.h"
#include "mongostore/records/errors.h"
#include "records/stored_form.h"

namespace mongostore::records {
namespace {

constexpr const char* kDynamicType = "dynamic";
// Sids per {_id: {$in}} query (the planner bounds at most 4,096 points).
constexpr size_t kInChunk = 1000;

}  // namespace

Value::RecordPtr RecordReader::cached(const std::string& table, int64_t sid) {
  return std::static_pointer_cast<const DynamicRecord>(store_.cache.find(table, sid, kDynamicType));
}

void RecordReader::load(std::map<Key, SchemaPtr> wanted) {
  while (!wanted.empty()) {
    // One $in query per collection for this level.
    std::map<std::string, std::vector<int64_t>> by_table;
    std::map<std::string, SchemaPtr> schemas;
    for (const auto& [key, schema] : wanted) {
      if (documents_.count(key) || built_.count(key)) continue;
      if (Value::RecordPtr live = cached(key.first, key.second)) {
        built_[key] = live;
        continue;
      }
      by_table[key.first].push_back(key.second);
      schemas[key.first] = schema;
    }
    std::map<Key, SchemaPtr> next;
    for (const auto& [table, sids] : by_table) {
      // One {_id: {$in}} per collection and level (in chunks: the planner bounds at most 4,096
      // points), a read of just those keys on every backend.
      client::Collection coll = store_.collection(table);
      for (size_t begin = 0; begin < sids.size(); begin += kInChunk) {
        const size_t end = std::min(sids.size(), begin + kInChunk);
        bson::DocumentBuilder in;
        in.open_document("_id").open_array("$in");
        for (size_t i = begin; i < end; ++i) in.push(sids[i]);
        in.close().close();
        for (bson::Document& doc : coll.find(in.finish())->to_vector()) {
          int64_t sid = 0;
          if (!doc.get("_id").number_as_exact_int64(&sid)) continue;
          bson::Value f = doc.get("f");
          if (f.is_document()) {
            referenced_sids(f.as_document(), *schemas[table],
                            [&](const SchemaPtr& target, int64_t ref) {
                              Key k{target->storage_name(), ref};
                              if (!documents_.count(k) && !built_.count(k)) next.emplace(k, target);
                            });
          }
          documents_.emplace(Key{table, sid}, std::move(doc));
        }
      }
    }
    wanted = std::move(next);
  }
}

Value::RecordPtr RecordReader::build(const SchemaPtr& schema, int64_t sid) {
  Key key{schema->storage_name(), sid};
  if (auto it = built_.find(key); it != built_.end()) return it->second;
  if (Value::RecordPtr live = cached(key.first, sid)) return built_[key] = live;
  auto doc = documents_.find(key);
  if (doc == documents_.end()) throw RecordNotFound(schema->storage_name(), sid);
  if (!building_.insert(key).second) {
    throw Error(ErrorCode::kInternalError, schema->storage_name() + " sid " + std::to_string(sid) +
                                               " refers to itself through its references");
  }
  bson::Value f = doc->second.get("f");
  if (!f.is_document()) {
    throw SchemaError(schema->storage_name() + " sid " + std::to_string(sid) +
                      " has no `f` document");
  }
  std::vector<Value> values;
  values.reserve(schema->fields().size());
  auto resolve = [this](const SchemaPtr& target, int64_t ref) { return build(target, ref); };
  const std::vector<std::vector<Column>>& columns = columns_of(schema);
  for (size_t i = 0; i < schema->fields().size(); ++i) {
    const FieldSchema& field = schema->fields()[i];
    if (!field.stored()) {
      values.emplace_back();
      continue;
    }
    if (field.derived()) {
      // A stored property's stored value is only what queries see: a typed fetch recomputes
      // it (httk never decodes it), so one that is missing or malformed reads as None.
      try {
        values.push_back(decode_field(f.as_document(), field, columns[i], resolve));
      } catch (const Error&) {
        values.emplace_back();
      }
      continue;
    }
    try {
      values.push_back(decode_field(f.as_document(), field, columns[i], resolve));
    } catch (const RecordNotFound&) {
      throw;
    } catch (const SchemaError& e) {
      throw SchemaError(schema->storage_name() + " sid " + std::to_string(sid) + ": " + e.what());
    }
  }
  building_.erase(key);
  auto record = std::make_shared<const DynamicRecord>(schema, std::move(values), sid);
  store_.cache.put(key.first, sid, kDynamicType, record);
  return built_[key] = record;
}

const std::vector<std::vector<Column>>& RecordReader::columns_of(const SchemaPtr& schema) {
  auto [it, added] = columns_.try_emplace(schema);
  if (added) {
    it->second.reserve(schema->fields().size());
    for (const FieldSchema& field : schema->fields()) it->second.push_back(field.columns());
  }
  return it->second;
}

Value::RecordPtr RecordReader::fetch(const SchemaPtr& schema, int64_t sid) {
  if (Value::RecordPtr live = cached(schema->storage_name(), sid)) return live;
  load({{Key{schema->storage_name(), sid}, schema}});
  return build(schema, sid);
}

std::vector<Value::RecordPtr> RecordReader::fetch_many(const SchemaPtr& schema,
                                                       std::vector<int64_t> sids) {
  std::sort(sids.begin(), sids.end());
  std::map<Key, SchemaPtr> wanted;
  for (int64_t sid : sids) wanted.emplace(Key{schema->storage_name(), sid}, schema);
  load(std::move(wanted));
  std::vector<Value::RecordPtr> out;
  out.reserve(sids.size());
  for (int64_t sid : sids) out.push_back(build(schema, sid));
  return out;
}

std::vector<Value::RecordPtr> RecordReader::fetch_matching(const SchemaPtr& schema,
                                                           bson::DocumentView filter) {
  client::FindOptions options;
  options.sort = bson::make_document("_id", 1);
  options.projection = bson::make_document("_id", 1);
  std::vector<int64_t> sids;
  for (const bson::Document& doc :
       store_.collection(schema->storage_name()).find(filter, options)->to_vector()) {
    int64_t sid = 0;
    if (doc.get("_id").number_as_exact_int64(&sid)) sids.push_back(sid);
  }
  return fetch_many(schema, std::move(sids));
}

}  // namespace mongostore::records
