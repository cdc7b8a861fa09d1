#include "records/keyset_segments.h"

#include <limits>
#include <set>

#include "mongostore/bson/builder.h"
#include "records/collection_setup.h"

namespace mongostore::records {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

namespace {

// Every known (non-null) value of a column of this kind, as a range the planner bounds.
Document known(const KeysetKey& k) {
  switch (k.kind) {
    case AnchorKind::kInt:
    case AnchorKind::kFloat:
      return make_document(k.column,
                           make_document("$gte", -std::numeric_limits<double>::infinity()));
    case AnchorKind::kString:
    case AnchorKind::kDateTime:  // stored as ISO text
    case AnchorKind::kDate:
      return make_document(k.column, make_document("$gte", ""));
    case AnchorKind::kBool:
      return make_document(k.column, make_document("$in", make_array(false, true)));
    case AnchorKind::kBytes:
      return make_document(k.column,
                           make_document("$gte", bson::BinaryView{0, std::span<const uint8_t>()}));
  }
  return Document();
}

Document null_point(const KeysetKey& k) {
  return make_document(k.column, make_document("$eq", bson::Null{}));
}

Document all_of(const std::vector<Document>& parts) {
  DocumentBuilder b;
  b.open_array("$and");
  for (const Document& d : parts) b.push(d);
  b.close();
  return b.finish();
}

}  // namespace

std::optional<std::vector<Document>> keyset_segments(const std::vector<KeysetKey>& keys,
                                                     const std::optional<KeysetAnchor>& anchor) {
  std::set<std::string> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    bool repeated = !seen.insert(keys[i].column).second;
    if (i > 0 && !repeated && !keys[i].natural()) return std::nullopt;
  }
  bool forward = !anchor || anchor->forward;
  // The order this page walks: a backward page walks the reverse of the display order.
  auto ascending = [&](const KeysetKey& k) { return k.descending != forward; };
  auto nulls_first = [&](const KeysetKey& k) { return (k.null_rank == 0) == forward; };

  std::vector<Document> out;
  if (keys.empty()) return out;
  if (!anchor) {
    const KeysetKey& k = keys[0];
    if (nulls_first(k)) {
      out.push_back(null_point(k));
      out.push_back(known(k));
    } else {
      out.push_back(known(k));
      out.push_back(null_point(k));
    }
    return out;
  }

  std::vector<Document> prefix;  // keys 0..i-1 equal to the anchor's
  std::vector<bson::Value> values;
  for (size_t i = 0; i < keys.size(); ++i) {
    bson::Value a = anchor->anchors.get(std::to_string(i));
    values.push_back(a);
    if (a.is_null() || a.is_missing()) {
      prefix.push_back(null_point(keys[i]));
    } else {
      DocumentBuilder eq;
      eq.open_document(keys[i].column).append("$eq", a).close();
      prefix.push_back(eq.finish());
    }
  }
  auto with_prefix = [&](size_t n, Document last) {
    std::vector<Document> parts(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(n));
    parts.push_back(std::move(last));
    return all_of(parts);
  };
  // Every key equal: the sid decides.
  out.push_back(with_prefix(
      keys.size(), make_document("_id", make_document(forward ? "$gt" : "$lt", anchor->sid))));
  for (size_t i = keys.size(); i-- > 0;) {
    const KeysetKey& k = keys[i];
    const bson::Value& a = values[i];
    if (a.is_null() || a.is_missing()) {
      if (nulls_first(k)) out.push_back(with_prefix(i, known(k)));
      continue;
    }
    DocumentBuilder beyond;
    beyond.open_document(k.column).append(ascending(k) ? "$gt" : "$lt", a).close();
    out.push_back(with_prefix(i, beyond.finish()));
    if (!nulls_first(k)) out.push_back(with_prefix(i, null_point(k)));
  }
  return out;
}

Document keyset_sort(const std::vector<KeysetKey>& keys, bool forward) {
  DocumentBuilder sort;
  std::set<std::string> used;
  int flip = forward ? 1 : -1;
  for (const KeysetKey& k : keys) {
    if (used.insert(k.column).second) sort.append(k.column, (k.descending ? -1 : 1) * flip);
  }
  if (used.insert("_id").second) sort.append("_id", flip);
  return sort.finish();
}

std::string keyset_index_name(const std::string& collection, const Document& index_keys) {
  std::string name = "px_" + collection;
  for (const bson::Element& e : index_keys.view()) {
    std::string column(e.key);
    if (column.rfind("f.", 0) == 0) column = column.substr(2);
    name += "_" + column;
    if (e.value.number_as_double() < 0) name += "_desc";
  }
  return bounded_name(name);
}

Document keyset_index_keys(const std::vector<KeysetKey>& keys) {
  DocumentBuilder index;
  std::set<std::string> used;
  for (const KeysetKey& k : keys) {
    if (used.insert(k.column).second) index.append(k.column, k.descending ? -1 : 1);
  }
  if (used.insert("_id").second) index.append("_id", 1);
  return index.finish();
}

}  // namespace mongostore::records
