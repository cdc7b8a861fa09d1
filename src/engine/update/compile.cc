// Update::compile: classifies the update (operators or replacement), parses every operator's
// arguments and arranges the target paths in a tree, rejecting conflicting paths.
#include <atomic>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/update/internal.h"
#include "engine/update/recent_shapes.h"
#include "engine/update/shape_cache.h"
#include "mongostore/engine/limits.h"

namespace mongostore::engine {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;
using namespace update_detail;

namespace {

constexpr int32_t kEmptyFieldName = 56;

const std::unordered_map<std::string_view, OpKind>& operator_table() {
  static const std::unordered_map<std::string_view, OpKind> table = {
      {"$set", OpKind::kSet},
      {"$unset", OpKind::kUnset},
      {"$inc", OpKind::kInc},
      {"$mul", OpKind::kMul},
      {"$min", OpKind::kMin},
      {"$max", OpKind::kMax},
      {"$rename", OpKind::kRenameFrom},
      {"$setOnInsert", OpKind::kSetOnInsert},
      {"$currentDate", OpKind::kCurrentDate},
      {"$bit", OpKind::kBit},
      {"$push", OpKind::kPush},
      {"$addToSet", OpKind::kAddToSet},
      {"$pop", OpKind::kPop},
      {"$pull", OpKind::kPull},
      {"$pullAll", OpKind::kPullAll},
  };
  return table;
}

bool valid_identifier(std::string_view id) {
  if (id.empty() || id[0] < 'a' || id[0] > 'z') return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

class Compiler {
 public:
  Compiler(Update::Impl& impl, UpdateShape& shape) : impl_(impl), shape_(shape) {}

  /// Validates `path`'s components; returns them.
  std::vector<std::string> check_path(const std::string& path, bool allow_dynamic,
                                      const char* rename_role) {
    if (path.empty()) throw Error(kEmptyFieldName, "An empty update path is not valid.");
    std::vector<std::string> parts = split_path(path);
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& p = parts[i];
      if (p.empty()) {
        throw Error(kEmptyFieldName, "The update path '" + path +
                                         "' contains an empty field name, which is not allowed.");
      }
      if (p[0] != '$') continue;
      bool dynamic = p == "$" || is_array_wildcard(p);
      if (dynamic && !allow_dynamic) {
        throw Error(ErrorCode::kBadValue, std::string("The ") + rename_role +
                                              " field for $rename may not be dynamic: " + path);
      }
      if (!dynamic || i == 0) {
        throw Error(ErrorCode::kDollarPrefixedFieldName, "The dollar ($) prefixed field '" + p +
                                                             "' in '" + path +
                                                             "' is not valid for storage.");
      }
      if (p == "$") {
        shape_.uses_positional = true;
      } else if (p != "$[]") {
        std::string id = p.substr(2, p.size() - 3);
        if (!impl_.array_filters.count(id)) {
          throw Error(ErrorCode::kBadValue,
                      "No array filter found for identifier '" + id + "' in path '" + path + "'");
        }
        used_filters_.insert(id);
      }
    }
    return parts;
  }

  void insert(const Op* op, const std::vector<std::string>& parts) {
    Node* node = &shape_.root;
    std::string prefix;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) prefix += '.';
      prefix += parts[i];
      auto& slot = node->children[parts[i]];
      if (!slot) slot = std::make_unique<Node>();
      node = slot.get();
      bool last = i + 1 == parts.size();
      if (node->op || (last && !node->children.empty())) {
        throw Error(
            ErrorCode::kConflictingUpdateOperators,
            "Updating the path '" + op->path + "' would create a conflict at '" + prefix + "'");
      }
    }
    node->op = op;
  }

  Op& add_op(OpKind kind, std::string_view op_name, std::string path, Value arg) {
    auto op = std::make_unique<Op>();
    op->kind = kind;
    op->op_name = op_name;
    op->path = std::move(path);
    op->index = shape_.ops.size();
    shape_.ops.push_back(std::move(op));
    impl_.args.emplace_back().arg = arg;
    return *shape_.ops.back();
  }

  void compile_operator(std::string_view name, OpKind kind, DocumentView fields) {
    for (const auto& e : fields) {
      std::string path(e.key);
      if (kind == OpKind::kRenameFrom) {
        compile_rename(path, e.value);
        continue;
      }
      std::vector<std::string> parts = check_path(path, true, "");
      Op& op = add_op(kind, name, path, e.value);
      op.field = parts.back();
      MatcherOptions matcher_options;
      matcher_options.collation = impl_.collation;
      parse_op_argument(op, impl_.args.back(), matcher_options);
      insert(&op, parts);
    }
  }

  void compile_rename(const std::string& from, Value to_value) {
    if (!to_value.is_string()) {
      throw Error(ErrorCode::kBadValue, "The 'to' field for $rename must be a string: " +
                                            describe_element(from, to_value));
    }
    std::string to(to_value.as_string());
    std::vector<std::string> from_parts = check_path(from, false, "source");
    std::vector<std::string> to_parts = check_path(to, false, "destination");
    if (from == to) {
      throw Error(ErrorCode::kBadValue, "The source and target field for $rename must differ: " +
                                            describe_element(from, to_value));
    }
    auto prefix_of = [](const std::string& a, const std::string& b) {
      return b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '.';
    };
    if (prefix_of(from, to) || prefix_of(to, from)) {
      throw Error(ErrorCode::kBadValue,
                  "The source and target field for $rename must not be on the same path: " +
                      describe_element(from, to_value));
    }
    size_t index = shape_.renames.size();
    shape_.renames.push_back(Rename{from_parts, from});
    Op& src = add_op(OpKind::kRenameFrom, "$rename", from, to_value);
    src.field = from_parts.back();
    src.rename_index = index;
    insert(&src, from_parts);
    Op& dst = add_op(OpKind::kRenameTo, "$rename", to, to_value);
    dst.field = to_parts.back();
    dst.rename_index = index;
    insert(&dst, to_parts);
  }

  void compile_filters(std::span<const DocumentView> filters) {
    for (const DocumentView& f : filters) {
      impl_.filter_docs.push_back(bson::Document::copy_of(f));
      DocumentView filter = impl_.filter_docs.back().view();
      std::string id;
      bool first = true;
      for (const auto& e : filter) {
        std::string_view key = e.key;
        std::string top(key.substr(0, key.find('.')));
        if (first) {
          id = top;
          first = false;
        } else if (top != id) {
          throw Error(ErrorCode::kFailedToParse,
                      "Error parsing array filter :: caused by :: Expected a single top-level "
                      "field name, found '" +
                          id + "' and '" + top + "'");
        }
      }
      if (first) {
        throw Error(ErrorCode::kFailedToParse,
                    "Cannot use an expression without a top-level field name in arrayFilters");
      }
      if (!valid_identifier(id)) {
        throw Error(ErrorCode::kBadValue,
                    "Error parsing array filter :: caused by :: The top-level field name must be "
                    "an alphanumeric string beginning with a lowercase letter, found '" +
                        id + "'");
      }
      if (impl_.array_filters.count(id)) {
        throw Error(ErrorCode::kFailedToParse,
                    "Found multiple array filters with the same top-level field name " + id);
      }
      MatcherOptions matcher_options;
      matcher_options.collation = impl_.collation;
      impl_.array_filters.emplace(id, Condition::array_filter(filter, id, matcher_options));
    }
  }

  void check_filters_used() {
    for (const auto& [id, cond] : impl_.array_filters) {
      if (!used_filters_.count(id)) {
        throw Error(ErrorCode::kFailedToParse, "The array filter for identifier '" + id +
                                                   "' was not used in the update " +
                                                   impl_.source.to_json());
      }
    }
  }

 private:
  Update::Impl& impl_;
  UpdateShape& shape_;
  std::set<std::string> used_filters_;
};

}  // namespace

void update_detail::finish_tree(Node& node) {
  node.flat.clear();
  node.flat.reserve(node.children.size());
  for (auto& [name, child] : node.children) {
    if (name == "$") {
      node.positional = child.get();
      node.positional_index = node.flat.size();
    } else if (is_array_wildcard(name)) {
      node.has_array_wildcard = true;
    }
    node.first_bytes |= Node::first_byte_bit(name);
    node.flat.emplace_back(name, child.get());
    finish_tree(*child);
  }
}

namespace {

// The paths an operator update can change, each cut before its first positional or numeric
// component; nullopt for "any" (see Update::modified_paths).
std::optional<std::vector<std::string>> compute_modified_paths(const UpdateShape& shape) {
  std::vector<std::string> out;
  out.reserve(shape.ops.size());
  for (const auto& op : shape.ops) {
    std::string_view path = op->path;
    size_t start = 0, end = 0;
    for (;;) {
      size_t dot = path.find('.', start);
      std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
      size_t ignored = 0;
      // A positional or array index: whatever lies below may be any element, so the path
      // up to here counts as modified.
      if (part == "$" || is_array_wildcard(part) || parse_index(part, &ignored)) break;
      end = dot == std::string_view::npos ? path.size() : dot;
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    // A first component that is positional or numeric (not valid at the top level, but be
    // safe): the whole document.
    if (end == 0) return std::nullopt;
    out.emplace_back(path.substr(0, end));
  }
  return out;
}

// An update whose shape was compiled before: only its arguments are bound and parsed, in the
// order a full compile parses them (so the first bad argument raises the same error).
void bind_arguments(Update::Impl& impl, std::shared_ptr<const UpdateShape> shape) {
  MatcherOptions matcher_options;
  matcher_options.collation = impl.collation;
  impl.args.reserve(shape->ops.size());
  size_t i = 0;
  for (const bson::Element& e : impl.source) {
    for (const bson::Element& f : e.value.as_document()) {
      const Op& op = *shape->ops.at(i++);
      impl.args.emplace_back().arg = f.value;
      if (op.kind == OpKind::kRenameFrom) {
        impl.args.emplace_back().arg = f.value;  // the pair's kRenameTo
        ++i;
        continue;
      }
      parse_op_argument(op, impl.args.back(), matcher_options);
    }
  }
  impl.shape = std::move(shape);
}

}  // namespace

Update Update::compile(DocumentView update, std::span<const DocumentView> array_filters,
                       std::shared_ptr<const Collation> collation) {
  return compile_impl(update, array_filters, std::move(collation), /*borrowed=*/false);
}

Update Update::compile_borrowed(DocumentView update, std::span<const DocumentView> array_filters,
                                std::shared_ptr<const Collation> collation) {
  return compile_impl(update, array_filters, std::move(collation), /*borrowed=*/true);
}

Update Update::compile_impl(DocumentView update, std::span<const DocumentView> array_filters,
                            std::shared_ptr<const Collation> collation, bool borrowed) {
  check_input_depth(update, "update");
  for (DocumentView f : array_filters) check_input_depth(f, "arrayFilters");
  auto impl = std::make_shared<Impl>();
  if (borrowed) {
    impl->source = update;
  } else {
    impl->owned_source = bson::Document::copy_of(update);
    impl->source = impl->owned_source->view();
  }
  impl->collation = std::move(collation);
  DocumentView src = impl->source;
  // Array filters are compiled from values: such updates are compiled whole every time.
  std::optional<std::string> key;
  if (array_filters.empty()) {
    // This thread's recent shapes first: matched and bound in one pass, no key built.
    if (RecentShapes::bind(*impl)) return Update(std::move(impl));
    key = shape_key(src);
  }
  // Read before the lookup or insert: a clear() in between makes the remembered entry stale.
  const uint64_t generation = ShapeCache::instance().generation();
  if (key) {
    if (std::shared_ptr<const UpdateShape> shape = ShapeCache::instance().find(*key)) {
      RecentShapes::remember(shape, generation);
      bind_arguments(*impl, std::move(shape));
      return Update(std::move(impl));
    }
  }
  auto shape = std::make_shared<UpdateShape>();
  Compiler compiler(*impl, *shape);
  compiler.compile_filters(array_filters);

  auto it = src.begin();
  bool operator_form = it != src.end() && !it->key.empty() && it->key[0] == '$';
  if (!operator_form) {
    impl->replacement = true;
    for (const auto& e : src) {
      if (!e.key.empty() && e.key[0] == '$') {
        std::string k(e.key);
        throw Error(ErrorCode::kDollarPrefixedFieldName,
                    "The dollar ($) prefixed field '" + k + "' in '" + k +
                        "' is not allowed in the context of an update's replacement document. "
                        "Consider using an aggregation pipeline with $replaceWith.");
      }
    }
  } else {
    for (const auto& e : src) {
      auto found = operator_table().find(e.key);
      if (found == operator_table().end()) {
        throw Error(ErrorCode::kFailedToParse,
                    "Unknown modifier: " + std::string(e.key) +
                        ". Expected a valid update modifier or pipeline-style update specified "
                        "as an array");
      }
      if (!e.value.is_document()) {
        throw Error(ErrorCode::kFailedToParse,
                    "Modifiers operate on fields but we found type " +
                        std::string(bson::type_alias(e.value.type())) +
                        " instead. For example: {$mod: {<field>: ...}} not {" + std::string(e.key) +
                        ": " + e.value.to_json() + "}");
      }
      compiler.compile_operator(e.key, found->second, e.value.as_document());
    }
  }
  compiler.check_filters_used();
  if (!impl->replacement) finish_tree(shape->root);
  if (!impl->replacement) shape->modified_paths = compute_modified_paths(*shape);
  impl->shape = shape;
  if (key && !impl->replacement && shape->ops.size() <= ShapeCache::kMaxOps) {
    RecentShapes::remember(shape, generation);
    ShapeCache::instance().insert(*key, std::move(shape));
  }
  return Update(std::move(impl));
}

namespace {
std::atomic<UpdatePipelineCompiler> pipeline_compiler{nullptr};
}  // namespace

void install_update_pipeline_compiler(UpdatePipelineCompiler compiler) {
  pipeline_compiler.store(compiler);
}

Update Update::compile_pipeline(DocumentView stages, DocumentView let,
                                std::shared_ptr<const Collation> collation) {
  UpdatePipelineCompiler compiler = pipeline_compiler.load();
  if (compiler == nullptr) {
    throw Error(ErrorCode::kNotImplemented,
                "update pipelines need the aggregation layer (open an Engine first)");
  }
  check_input_depth(stages, "update pipeline");
  check_input_depth(let, "let");
  auto impl = std::make_shared<Impl>();
  impl->owned_source = bson::Document::copy_of(stages);
  impl->source = impl->owned_source->view();
  impl->pipeline = compiler(impl->source, let, std::move(collation));
  return Update(std::move(impl));
}

bool Update::is_pipeline() const {
  return static_cast<bool>(impl_->pipeline);
}

bool Update::is_replacement() const {
  return impl_->replacement;
}

std::optional<std::vector<std::string>> Update::modified_paths() const {
  if (impl_->replacement || impl_->pipeline) return std::nullopt;
  return impl_->shape->modified_paths;
}

std::shared_ptr<const std::vector<std::string>> Update::shared_modified_paths() const {
  if (impl_->replacement || impl_->pipeline || !impl_->shape->modified_paths) return nullptr;
  // Aliases the shape: the vector lives as long as any holder of the shape.
  return std::shared_ptr<const std::vector<std::string>>(impl_->shape,
                                                         &*impl_->shape->modified_paths);
}

}  // namespace mongostore::engine
