#include "engine/sort_spec.h"

#include "engine/path_values.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine {

SortSpec SortSpec::compile(bson::DocumentView spec, std::shared_ptr<const Collation> collation) {
  SortSpec out;
  out.collation_ = std::move(collation);
  if (spec.count() > kMaxCompoundKeyFields) throw Error(13103, "too many compound keys");
  for (const bson::Element& e : spec) {
    if (e.value.is_document()) {
      throw Error(ErrorCode::kNotImplemented, "sort by $meta (field '" + std::string(e.key) +
                                                  "') is not supported by mongostore");
    }
    int64_t order = 0;
    if (!e.value.is_number() || !e.value.number_as_exact_int64(&order) ||
        (order != 1 && order != -1)) {
      throw Error(ErrorCode::kBadValue,
                  "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    }
    if (e.key.empty()) throw Error(ErrorCode::kBadValue, "$sort field name cannot be empty");
    out.fields_.push_back(Field{std::string(e.key), order == -1});
  }
  return out;
}

std::string SortSpec::key_for(bson::DocumentView doc) const {
  static const bson::Document kNull = bson::make_document("", bson::Null{});
  static const bson::Document kUndefined = bson::make_document("", bson::Undefined{});
  std::string key;
  std::vector<bson::Value> values;
  for (const Field& f : fields_) {
    values.clear();
    collect_path_values(doc, f.path, &values);
    bson::Value chosen;
    for (const bson::Value& v : values) {
      if (chosen.is_missing()) {
        chosen = v;
        continue;
      }
      int c = bson::compare_values(v, chosen, collation_.get());
      if (f.descending ? c > 0 : c < 0) chosen = v;
    }
    if (chosen.is_missing()) {
      // An empty array sorts below null (as undefined); a missing field sorts as null.
      chosen = path_reaches_empty_array(doc, f.path) ? kUndefined.get("") : kNull.get("");
    }
    if (collation_ && Collation::collation_sensitive(chosen)) {
      bson::append_index_key(key, collation_->comparison_key(chosen), f.descending);
    } else {
      bson::append_index_key(key, chosen, f.descending);
    }
  }
  return key;
}

}  // namespace mongostore::engine
