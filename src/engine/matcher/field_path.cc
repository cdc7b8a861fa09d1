// Dotted-path traversal with MongoDB's array rules.
//
// For a path a.b.c:
//  * a document descends by field name;
//  * an array in the middle of the path is searched element by element: each element that is
//    a document continues with the same path component; when the component is numeric it
//    also indexes the array (a.0.b takes element 0, and still matches a field named "0");
//  * a scalar or missing value in the middle of the path yields "missing" for the leaf (so
//    {"a.b": null} matches {a: 5});
//  * at the leaf, an array is tested element by element and then as a whole (unless the
//    predicate looks at arrays itself: $size, $elemMatch).
#include "engine/matcher/expression.h"

namespace mongostore::engine::matcher_detail {

FieldPath::FieldPath(std::string_view dotted) : dotted_(dotted) {
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string_view part =
        dotted.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    Part p;
    p.name = std::string(part);
    p.numeric = !part.empty();
    for (char c : part) {
      if (c < '0' || c > '9') {
        p.numeric = false;
        break;
      }
    }
    parts_.push_back(std::move(p));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
}

namespace {

struct Walker {
  const std::vector<FieldPath::Part>& parts;
  const Predicate& pred;

  bool leaf(const bson::Value& v, std::optional<size_t>* index) const {
    if (v.is_array() && pred.expands_arrays()) {
      size_t k = 0;
      for (const auto& el : v.as_array()) {
        if (pred.test(el.value, nullptr)) {
          if (index) *index = k;
          return true;
        }
        ++k;
      }
      return pred.test(v, nullptr);
    }
    return pred.test(v, index);
  }

  bool document(const bson::DocumentView& doc, size_t i, std::optional<size_t>* index) const {
    return value(doc.get(parts[i].name), i + 1, index);
  }

  // `v` is the value of component i - 1; i is the next component to apply.
  bool value(const bson::Value& v, size_t i, std::optional<size_t>* index) const {
    if (i == parts.size()) return leaf(v, index);
    if (v.is_document()) return document(v.as_document(), i, index);
    if (v.is_array()) {
      bson::DocumentView array = v.as_array();
      if (parts[i].numeric) {
        bson::Value e = array.get(parts[i].name);
        if (!e.is_missing() && value(e, i + 1, nullptr)) return true;
      }
      size_t k = 0;
      for (const auto& el : array) {
        if (el.value.is_document() && document(el.value.as_document(), i, index)) {
          if (index) *index = k;
          return true;
        }
        ++k;
      }
      return false;
    }
    return leaf(bson::Value(), index);
  }
};

}  // namespace

bool PathNode::matches(const Input& in, std::optional<size_t>* index) const {
  if (in.is_value || path_.empty()) return pred_->test(in.value, index);
  Walker w{path_.parts(), *pred_};
  return w.document(in.document, 0, index);
}

}  // namespace mongostore::engine::matcher_detail
