// Document-reshaping stages: $project (inclusion, exclusion, computed fields) $addFields/$set
// $unset $replaceRoot/$replaceWith.
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

struct ProjNode {
  enum Kind { kInclude, kExclude, kExpr, kTree } kind = kTree;
  ExprPtr expr;
  std::vector<std::pair<std::string, std::shared_ptr<ProjNode>>> children;

  ProjNode* find(std::string_view key) const {
    for (const auto& [k, c] : children) {
      if (k == key) return c.get();
    }
    return nullptr;
  }
  bool has_exprs() const {
    if (kind == kExpr) return true;
    for (const auto& [k, c] : children) {
      if (c->has_exprs()) return true;
    }
    return false;
  }
};

// Inserts `node` at dotted `path` under `root`, creating intermediate trees.
void insert(ProjNode& root, std::string_view path, std::shared_ptr<ProjNode> node,
            const std::string& stage) {
  std::vector<std::string> parts = split_path(path);
  ProjNode* cur = &root;
  std::string so_far;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.empty())
      fail(40352,
           "Invalid " + stage + " :: caused by :: FieldPath field names may not be empty strings.");
    if (p[0] == '$') {
      fail(16410,
           "Invalid " + stage + " :: caused by :: FieldPath field names may not start with '$'.");
    }
    so_far += (i ? "." : "") + p;
    ProjNode* existing = cur->find(p);
    if (i + 1 == parts.size()) {
      if (existing) {
        fail(31250, "Invalid " + stage + " :: caused by :: Path collision at " + std::string(path));
      }
      cur->children.emplace_back(p, std::move(node));
      return;
    }
    if (existing) {
      if (existing->kind != ProjNode::kTree) {
        fail(31249, "Invalid " + stage + " :: caused by :: Path collision at " + std::string(path) +
                        " remaining portion " + std::string(path.substr(so_far.size() + 1)));
      }
      cur = existing;
    } else {
      auto t = std::make_shared<ProjNode>();
      ProjNode* raw = t.get();
      cur->children.emplace_back(p, std::move(t));
      cur = raw;
    }
  }
}

bool is_operator_doc(const Value& v) {
  if (!v.is_document()) return false;
  DocumentView d = v.as_document();
  return !d.empty() && !d.begin()->key.empty() && d.begin()->key[0] == '$';
}

// $project: numbers/bools are inclusion or exclusion; operator documents, strings, arrays and
// other literals are computed; plain documents are nested specs.
void parse_project_into(ProjNode& root, DocumentView spec, bool top, int* mode, bool* id_excluded,
                        const std::string& prefix) {
  if (spec.empty()) {
    fail(51270,
         "Invalid $project :: caused by :: An empty sub-projection is not a valid value. "
         "Found empty object at path");
  }
  for (const bson::Element& e : spec) {
    std::string full = prefix.empty() ? std::string(e.key) : prefix + "." + std::string(e.key);
    auto node = std::make_shared<ProjNode>();
    const Value& v = e.value;
    if (v.is_number() || v.type() == BsonType::kBool) {
      bool include = v.truthy();
      node->kind = include ? ProjNode::kInclude : ProjNode::kExclude;
      bool is_id = top && e.key == "_id";
      if (is_id) {
        if (!include) *id_excluded = true;
      } else {
        int m = include ? 1 : 2;
        if (*mode != 0 && *mode != m) {
          if (m == 2) {
            fail(31254, "Invalid $project :: caused by :: Cannot do exclusion on field " + full +
                            " in inclusion projection");
          }
          fail(31253, "Invalid $project :: caused by :: Cannot do inclusion on field " + full +
                          " in exclusion projection");
        }
        *mode = m;
      }
    } else if (v.is_document() && !is_operator_doc(v)) {
      node->kind = ProjNode::kTree;
      parse_project_into(*node, v.as_document(), false, mode, id_excluded, full);
      insert(root, e.key, std::move(node), "$project");
      continue;
    } else {
      node->kind = ProjNode::kExpr;
      node->expr = parse_expression(v);
      if (*mode == 2) {
        fail(31252,
             "Invalid $project :: caused by :: Cannot use expression other than $meta in "
             "exclusion projection");
      }
      *mode = 1;
    }
    insert(root, e.key, std::move(node), "$project");
  }
}

void apply_inclusion(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree,
                     EvalContext& ctx, bool top = false);

void include_array(bson::DocumentBuilder& b, DocumentView array, const ProjNode& tree,
                   EvalContext& ctx) {
  for (const bson::Element& e : array) {
    if (e.value.is_document()) {
      b.push_document();
      apply_inclusion(b, e.value.as_document(), tree, ctx);
      b.close();
    } else if (e.value.is_array()) {
      b.push_array();
      include_array(b, e.value.as_array(), tree, ctx);
      b.close();
    } else if (tree.has_exprs()) {
      b.push_document();
      apply_inclusion(b, DocumentView(), tree, ctx);
      b.close();
    }
  }
}

void apply_inclusion(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree,
                     EvalContext& ctx, bool top) {
  std::vector<std::string_view> seen;
  // A computed _id comes first, like a stored one.
  ProjNode* id = top ? tree.find("_id") : nullptr;
  if (id && id->kind == ProjNode::kExpr) {
    OwnedValue v = id->expr->eval(ctx);
    append_value(b, "_id", v.view());
  }
  for (const bson::Element& e : doc) {
    ProjNode* c = tree.find(e.key);
    if (!c) continue;
    if (c->kind == ProjNode::kInclude) {
      b.append(e.key, e.value);
    } else if (c->kind == ProjNode::kTree) {
      seen.push_back(e.key);
      if (e.value.is_document()) {
        b.open_document(e.key);
        apply_inclusion(b, e.value.as_document(), *c, ctx);
        b.close();
      } else if (e.value.is_array()) {
        b.open_array(e.key);
        include_array(b, e.value.as_array(), *c, ctx);
        b.close();
      } else if (c->has_exprs()) {
        b.open_document(e.key);
        apply_inclusion(b, DocumentView(), *c, ctx);
        b.close();
      }
    }
  }
  for (const auto& [k, c] : tree.children) {
    if (c.get() == id) continue;
    if (c->kind == ProjNode::kExpr) {
      OwnedValue v = c->expr->eval(ctx);
      append_value(b, k, v.view());
    } else if (c->kind == ProjNode::kTree && c->has_exprs() &&
               std::find(seen.begin(), seen.end(), k) == seen.end()) {
      b.open_document(k);
      apply_inclusion(b, DocumentView(), *c, ctx);
      b.close();
    }
  }
}

void apply_exclusion(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree);

void exclude_array(bson::DocumentBuilder& b, DocumentView array, const ProjNode& tree) {
  for (const bson::Element& e : array) {
    if (e.value.is_document()) {
      b.push_document();
      apply_exclusion(b, e.value.as_document(), tree);
      b.close();
    } else if (e.value.is_array()) {
      b.push_array();
      exclude_array(b, e.value.as_array(), tree);
      b.close();
    } else {
      b.push(e.value);
    }
  }
}

void apply_exclusion(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree) {
  for (const bson::Element& e : doc) {
    ProjNode* c = tree.find(e.key);
    if (!c || c->kind == ProjNode::kInclude) {
      b.append(e.key, e.value);
    } else if (c->kind == ProjNode::kTree) {
      if (e.value.is_document()) {
        b.open_document(e.key);
        apply_exclusion(b, e.value.as_document(), *c);
        b.close();
      } else if (e.value.is_array()) {
        b.open_array(e.key);
        exclude_array(b, e.value.as_array(), *c);
        b.close();
      } else {
        b.append(e.key, e.value);
      }
    }
  }
}

// $addFields: every leaf is computed; nested documents merge into existing sub-documents.
void apply_add_fields(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree,
                      EvalContext& ctx);

void add_fields_value(bson::DocumentBuilder& b, std::string_view key, const Value& v,
                      const ProjNode& tree, EvalContext& ctx, bool in_array) {
  if (v.is_document()) {
    if (in_array) {
      b.push_document();
    } else {
      b.open_document(key);
    }
    apply_add_fields(b, v.as_document(), tree, ctx);
    b.close();
  } else if (v.is_array()) {
    if (in_array) {
      b.push_array();
    } else {
      b.open_array(key);
    }
    for (const bson::Element& e : v.as_array()) add_fields_value(b, "", e.value, tree, ctx, true);
    b.close();
  } else {
    if (in_array) {
      b.push_document();
    } else {
      b.open_document(key);
    }
    apply_add_fields(b, DocumentView(), tree, ctx);
    b.close();
  }
}

void apply_add_fields(bson::DocumentBuilder& b, DocumentView doc, const ProjNode& tree,
                      EvalContext& ctx) {
  std::vector<std::string_view> seen;
  for (const bson::Element& e : doc) {
    ProjNode* c = tree.find(e.key);
    if (!c) {
      b.append(e.key, e.value);
      continue;
    }
    seen.push_back(e.key);
    if (c->kind == ProjNode::kExpr) {
      OwnedValue v = c->expr->eval(ctx);
      append_value(b, e.key, v.view());
    } else {
      add_fields_value(b, e.key, e.value, *c, ctx, false);
    }
  }
  for (const auto& [k, c] : tree.children) {
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    if (c->kind == ProjNode::kExpr) {
      OwnedValue v = c->expr->eval(ctx);
      append_value(b, k, v.view());
    } else {
      add_fields_value(b, k, Value(), *c, ctx, false);
    }
  }
}

void parse_add_fields_into(ProjNode& root, DocumentView spec, const std::string& stage) {
  for (const bson::Element& e : spec) {
    auto node = std::make_shared<ProjNode>();
    if (e.value.is_document() && !is_operator_doc(e.value) && !e.value.as_document().empty()) {
      node->kind = ProjNode::kTree;
      parse_add_fields_into(*node, e.value.as_document(), stage);
    } else {
      node->kind = ProjNode::kExpr;
      node->expr = parse_expression(e.value);
    }
    insert(root, e.key, std::move(node), stage);
  }
}

enum class Mode { kInclusion, kExclusion, kAddFields };

class ProjectStage : public Stage {
 public:
  ProjectStage(std::string name, Mode mode, std::shared_ptr<ProjNode> tree)
      : name_(std::move(name)), mode_(mode), tree_(std::move(tree)) {}
  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    std::shared_ptr<DocumentSource> in(std::move(input));
    return std::make_unique<FunctionSource>(
        [mode = mode_, tree = tree_, in, ctx]() -> std::optional<Document> {
          auto d = in->next();
          if (!d) return std::nullopt;
          size_t before = ctx->variables.size();
          EvalContext ec{*d, &ctx->variables};
          bson::DocumentBuilder b;
          switch (mode) {
            case Mode::kInclusion:
              apply_inclusion(b, *d, *tree, ec, true);
              break;
            case Mode::kExclusion:
              apply_exclusion(b, *d, *tree);
              break;
            case Mode::kAddFields:
              apply_add_fields(b, *d, *tree, ec);
              break;
          }
          ctx->variables.resize(before);
          return b.finish();
        });
  }

 private:
  std::string name_;
  Mode mode_;
  std::shared_ptr<ProjNode> tree_;
};

class ReplaceRootStage : public Stage {
 public:
  ReplaceRootStage(std::string name, ExprPtr expr)
      : name_(std::move(name)), expr_(std::move(expr)) {}
  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    std::shared_ptr<DocumentSource> in(std::move(input));
    return std::make_unique<FunctionSource>([e = expr_, in, ctx]() -> std::optional<Document> {
      auto d = in->next();
      if (!d) return std::nullopt;
      OwnedValue v = eval_in(e, *d, *ctx);
      if (!v.view().is_document()) {
        fail(40228, "'newRoot' expression must evaluate to an object, but resulting value was: " +
                        render(v.view()) + ". Type of resulting value: '" + type_name(v.view()) +
                        "'. Input document: " + d->to_json());
      }
      return Document::copy_of(v.view().as_document());
    });
  }

 private:
  std::string name_;
  ExprPtr expr_;
};

}  // namespace

StagePtr parse_project(const Value& spec) {
  if (!spec.is_document()) {
    fail(15969, "$project specification must be an object");
  }
  if (spec.as_document().empty()) {
    fail(51272,
         "Invalid $project :: caused by :: projection specification must have at least "
         "one field");
  }
  auto root = std::make_shared<ProjNode>();
  int mode = 0;
  bool id_excluded = false;
  parse_project_into(*root, spec.as_document(), true, &mode, &id_excluded, "");
  if (mode == 2 || (mode == 0 && id_excluded)) {
    return std::make_shared<ProjectStage>("$project", Mode::kExclusion, root);
  }
  if (!id_excluded && !root->find("_id")) {
    auto id = std::make_shared<ProjNode>();
    id->kind = ProjNode::kInclude;
    root->children.insert(root->children.begin(), {"_id", id});
  } else if (id_excluded) {
    // Drop the exclusion node: in an inclusion projection _id is simply not included.
    auto& ch = root->children;
    ch.erase(std::remove_if(ch.begin(), ch.end(), [](const auto& p) { return p.first == "_id"; }),
             ch.end());
  }
  return std::make_shared<ProjectStage>("$project", Mode::kInclusion, root);
}

StagePtr parse_add_fields(std::string_view name, const Value& spec) {
  if (!spec.is_document()) {
    fail(40272,
         std::string(name) + " specification stage must be an object, got " + type_name(spec));
  }
  auto root = std::make_shared<ProjNode>();
  parse_add_fields_into(*root, spec.as_document(), std::string(name));
  return std::make_shared<ProjectStage>(std::string(name), Mode::kAddFields, root);
}

StagePtr parse_unset(const Value& spec) {
  std::vector<std::string_view> fields;
  if (spec.type() == BsonType::kString) {
    fields.push_back(spec.as_string());
  } else if (spec.is_array()) {
    for (const bson::Element& e : spec.as_array()) {
      if (e.value.type() != BsonType::kString) {
        fail(31120,
             "$unset specification must be a string or an array containing only string "
             "values");
      }
      fields.push_back(e.value.as_string());
    }
  } else {
    fail(31002, "$unset specification must be a string or an array");
  }
  if (fields.empty()) {
    fail(31119, "$unset specification must be a string or an array with at least one field");
  }
  auto root = std::make_shared<ProjNode>();
  for (std::string_view f : fields) {
    auto node = std::make_shared<ProjNode>();
    node->kind = ProjNode::kExclude;
    insert(*root, f, std::move(node), "$unset");
  }
  return std::make_shared<ProjectStage>("$unset", Mode::kExclusion, root);
}

StagePtr parse_replace_root(std::string_view name, const Value& spec) {
  if (name == "$replaceWith") {
    return std::make_shared<ReplaceRootStage>("$replaceWith", parse_expression(spec));
  }
  if (!spec.is_document()) {
    fail(40229,
         "expected an object as specification for $replaceRoot stage, got " + type_name(spec));
  }
  ExprPtr expr;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "newRoot") {
      expr = parse_expression(e.value);
    } else {
      fail(40415, "BSON field '$replaceRoot." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!expr) fail(40231, "no newRoot specified for the $replaceRoot stage");
  return std::make_shared<ReplaceRootStage>("$replaceRoot", expr);
}

}  // namespace mongostore::engine::aggregation_detail
