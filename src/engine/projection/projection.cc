#include "mongostore/engine/projection.h"

#include <map>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::engine {

// A tree of projected paths: a leaf means "this field", children refine a sub-document.
struct Projection::Node {
  bool leaf = false;
  std::map<std::string, Node, std::less<>> children;
};

namespace {

void add_path(Projection::Node& root, std::string_view path) {
  Projection::Node* node = &root;
  while (true) {
    size_t dot = path.find('.');
    std::string part(path.substr(0, dot));
    if (part.empty()) {
      throw Error(ErrorCode::kBadValue, "projection path cannot contain an empty field name");
    }
    node = &node->children[part];
    if (node->leaf) return;  // a shorter path already covers this one
    if (dot == std::string_view::npos) {
      node->leaf = true;
      node->children.clear();
      return;
    }
    path.remove_prefix(dot + 1);
  }
}

void project_value(bson::DocumentBuilder& out, std::string_view key, const bson::Value& v,
                   const Projection::Node& node, bool inclusion);

void project_document(bson::DocumentBuilder& out, bson::DocumentView doc,
                      const Projection::Node& node, bool inclusion) {
  for (const bson::Element& e : doc) {
    auto it = node.children.find(e.key);
    if (it == node.children.end()) {
      if (!inclusion) out.append(e.key, e.value);
      continue;
    }
    if (it->second.leaf) {
      if (inclusion) out.append(e.key, e.value);
      continue;
    }
    project_value(out, e.key, e.value, it->second, inclusion);
  }
}

void project_value(bson::DocumentBuilder& out, std::string_view key, const bson::Value& v,
                   const Projection::Node& node, bool inclusion) {
  if (v.is_document()) {
    out.open_document(key);
    project_document(out, v.as_document(), node, inclusion);
    out.close();
  } else if (v.is_array()) {
    // A sub-path applies to each document element; inclusion drops scalar elements.
    out.open_array(key);
    size_t index = 0;
    for (const bson::Element& e : v.as_array()) {
      if (e.value.is_document() || e.value.is_array()) {
        project_value(out, std::to_string(index++), e.value, node, inclusion);
      } else if (!inclusion) {
        out.append(std::to_string(index++), e.value);
      }
    }
    out.close();
  } else if (!inclusion) {
    out.append(key, v);
  }
}

}  // namespace

Projection::Projection() = default;

Projection Projection::compile(bson::DocumentView spec) {
  Projection p;
  auto root = std::make_shared<Node>();
  int includes = 0, excludes = 0;
  for (const bson::Element& e : spec) {
    if (!e.key.empty() && e.key[0] == '$') {
      throw Error(ErrorCode::kNotImplemented,
                  "projection operator " + std::string(e.key) + " is not supported by mongostore");
    }
    if (e.key.find(".$") != std::string_view::npos) {
      throw Error(ErrorCode::kNotImplemented, "the positional projection operator ('" +
                                                  std::string(e.key) +
                                                  "') is not supported by mongostore");
    }
    bool include;
    if (e.value.type() == bson::BsonType::kBool || e.value.is_number()) {
      include = e.value.truthy();
    } else if (e.value.is_document() && !e.value.as_document().empty() &&
               e.value.as_document().begin()->key.starts_with("$")) {
      throw Error(ErrorCode::kNotImplemented,
                  "projection operator " + std::string(e.value.as_document().begin()->key) +
                      " on '" + std::string(e.key) + "' is not supported by mongostore");
    } else {
      throw Error(ErrorCode::kNotImplemented, "projection expressions (field '" +
                                                  std::string(e.key) +
                                                  "') are not supported by mongostore");
    }
    if (e.key == "_id") {
      p.include_id_ = include;
      continue;
    }
    (include ? includes : excludes)++;
    if (includes > 0 && excludes > 0) {
      throw Error(31254, include ? "Cannot do inclusion on field " + std::string(e.key) +
                                       " in exclusion projection"
                                 : "Cannot do exclusion on field " + std::string(e.key) +
                                       " in inclusion projection");
    }
    add_path(*root, e.key);
  }
  p.inclusion_ = includes > 0;
  if (p.inclusion_) {
    if (p.include_id_) add_path(*root, "_id");
  } else if (!p.include_id_) {
    add_path(*root, "_id");
  }
  if (!root->children.empty()) p.root_ = std::move(root);
  return p;
}

bool Projection::is_identity() const {
  return root_ == nullptr && !inclusion_;
}

bson::Document Projection::apply(bson::DocumentView document) const {
  if (root_ == nullptr) {
    return inclusion_ ? bson::Document() : bson::Document::copy_of(document);
  }
  bson::DocumentBuilder out;
  project_document(out, document, *root_, inclusion_);
  return out.finish();
}

}  // namespace mongostore::engine
