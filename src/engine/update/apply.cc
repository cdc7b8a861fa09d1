// Update::apply: one pass over the original document that copies untouched fields and
// rewrites, creates or removes the fields the path tree targets.
#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "bson/raw_elements.h"
#include "engine/update/internal.h"
#include "mongostore/bson/compare.h"

namespace mongostore::engine {

using bson::BsonType;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;
using namespace update_detail;

namespace {

// The most nulls an update may add to reach an index past an array's end (mongod's
// kMaxPaddingAllowed): a 30-byte {$set: {"a.9999999": 1}} must not build a huge array.
constexpr size_t kMaxArrayPadding = 1500000;

std::string join(const std::string& path, std::string_view name) {
  if (path.empty()) return std::string(name);
  std::string out = path;
  out += '.';
  out += name;
  return out;
}

// The dotted path of the field being written, built only when an error message needs it:
// each level links to its parent (building the string per targeted field was an allocation
// and a copy per field of every update).
struct PathRef {
  const PathRef* parent = nullptr;
  std::string_view name;

  std::string str() const {
    if (parent == nullptr) return std::string(name);
    return join(parent->str(), name);
  }
};

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

std::string describe_number(const Value& v) {
  switch (v.type()) {
    case BsonType::kInt64:
      return "(NumberLong)" + std::to_string(v.as_int64());
    case BsonType::kInt32:
      return "(NumberInt)" + std::to_string(v.as_int32());
    default:
      return v.to_json();
  }
}

class Applier {
 public:
  explicit Applier(ApplyContext& ctx) : ctx_(ctx) {}

  void document_fields(const Node& node, DocumentView existing, DocumentBuilder& b,
                       const PathRef& path, std::string_view key, const Value& self) {
    if (node.has_array_wildcard) {
      throw Error(ErrorCode::kBadValue,
                  "Cannot apply array updates to non-array element " + describe_element(key, self));
    }
    const Node* positional = node.positional;
    std::string positional_name = positional ? resolve("$") : std::string();
    // Which of node.flat were written from an existing field: a bit each (a vector past 64).
    const size_t n = node.flat.size();
    uint64_t matched_bits = 0;
    std::vector<bool> matched_more;
    if (n > 64) matched_more.assign(n, false);
    auto mark = [&](size_t i) {
      if (n > 64) {
        matched_more[i] = true;
      } else {
        matched_bits |= uint64_t{1} << i;
      }
    };
    auto was_matched = [&](size_t i) {
      return n > 64 ? static_cast<bool>(matched_more[i]) : ((matched_bits >> i) & 1) != 0;
    };
    RawElements elements(existing);
    bson::Element e;
    while (elements.next(e)) {
      size_t index = node.find(e.key);
      const Node* target = index == Node::kNone ? nullptr : node.flat[index].second;
      if (positional && e.key == positional_name) {
        if (target) conflict(PathRef{&path, e.key});
        target = positional;
        index = node.positional_index;
      }
      if (!target) {
        b.append(e.key, e.value);
        continue;
      }
      mark(index);
      child(*target, e.value, e.key, b, PathRef{&path, e.key}, false);
    }
    for (size_t i = 0; i < n; ++i) {
      if (was_matched(i)) continue;
      const auto& [name, child_node] = node.flat[i];
      const bool is_positional = child_node == positional;
      std::string_view resolved = is_positional ? std::string_view(positional_name) : name;
      if (!is_positional && positional && resolved == positional_name) {
        conflict(PathRef{&path, name});
      }
      create(*child_node, resolved, b, PathRef{&path, resolved}, false);
    }
  }

  void array_elements(const Node& node, std::string_view key, const Value& self, DocumentBuilder& b,
                      const PathRef& path) {
    std::vector<std::pair<const Node*, const Condition*>> wildcards;
    const Node* positional = nullptr;
    for (const auto& [name, child_node] : node.children) {
      if (name == "$") {
        positional = child_node.get();
      } else if (name == "$[]") {
        wildcards.emplace_back(child_node.get(), nullptr);
      } else if (is_array_wildcard(name)) {
        const auto& filters = ctx_.impl.array_filters;
        wildcards.emplace_back(child_node.get(), filters.at(name.substr(2, name.size() - 3)).get());
      } else {
        size_t index = 0;
        if (!parse_index(name, &index) && creates(*child_node)) {
          throw Error(ErrorCode::kPathNotViable, "Cannot create field '" + name + "' in element {" +
                                                     describe_element(key, self) + "}");
        }
      }
    }
    size_t positional_index = positional ? resolve_index() : 0;
    size_t count = 0;
    for (const auto& e : self.as_array()) {
      const Node* target = nullptr;
      size_t matches = 0;
      auto it = node.children.find(e.key);
      if (it != node.children.end()) {
        target = it->second.get();
        ++matches;
      }
      if (positional && positional_index == count) {
        target = positional;
        ++matches;
      }
      for (const auto& [wild, condition] : wildcards) {
        if (!condition || condition->matches(e.value)) {
          target = wild;
          ++matches;
        }
      }
      if (matches > 1) conflict(PathRef{&path, e.key});
      if (target) {
        child(*target, e.value, e.key, b, PathRef{&path, e.key}, true);
      } else {
        b.append(e.key, e.value);
      }
      ++count;
    }
    // Indexes past the end: pad with nulls up to each created element.
    std::vector<std::pair<size_t, const Node*>> beyond;
    for (const auto& [name, child_node] : node.children) {
      size_t index = 0;
      if (parse_index(name, &index) && index >= count) beyond.emplace_back(index, child_node.get());
    }
    if (positional && positional_index >= count) {
      for (const auto& [index, n] : beyond) {
        if (index == positional_index) {
          std::string name = std::to_string(index);
          conflict(PathRef{&path, name});
        }
      }
      beyond.emplace_back(positional_index, positional);
      std::sort(beyond.begin(), beyond.end());
    }
    for (const auto& [index, child_node] : beyond) {
      if (!creates(*child_node)) continue;
      if (index - count > kMaxArrayPadding) {
        throw Error(ErrorCode::kCannotBackfillArray,
                    "can't backfill more than " + std::to_string(kMaxArrayPadding) + " elements");
      }
      for (; count < index; ++count) b.append(std::to_string(count), bson::Null{});
      std::string name = std::to_string(index);
      create(*child_node, name, b, PathRef{&path, name}, true);
      count = index + 1;
    }
  }

  void child(const Node& node, const Value& existing, std::string_view key, DocumentBuilder& b,
             const PathRef& path, bool in_array) {
    if (node.op) {
      leaf(*node.op, existing, key, b, path, in_array);
    } else if (existing.is_missing()) {
      create(node, key, b, path, in_array);
    } else if (existing.is_document()) {
      b.open_document(key);
      document_fields(node, existing.as_document(), b, path, key, existing);
      b.close();
    } else if (existing.is_array()) {
      b.open_array(key);
      array_elements(node, key, existing, b, path);
      b.close();
    } else {
      for (const auto& [name, child_node] : node.children) {
        if (!creates(*child_node)) continue;
        if (name == "$" || is_array_wildcard(name)) {
          throw Error(ErrorCode::kBadValue, "Cannot apply array updates to non-array element " +
                                                describe_element(key, existing));
        }
        throw Error(ErrorCode::kPathNotViable, "Cannot create field '" + name + "' in element {" +
                                                   describe_element(key, existing) + "}");
      }
      b.append(key, existing);
    }
  }

  void create(const Node& node, std::string_view key, DocumentBuilder& b, const PathRef& path,
              bool in_array) {
    if (node.op) {
      leaf(*node.op, Value(), key, b, path, in_array);
      return;
    }
    if (!creates(node)) return;
    for (const auto& [name, child_node] : node.children) {
      if (is_array_wildcard(name) && creates(*child_node)) {
        throw Error(ErrorCode::kBadValue, "The path '" + path.str() +
                                              "' must exist in the document in order to apply "
                                              "array updates.");
      }
    }
    b.open_document(key);
    for (const auto& [name, child_node] : node.children) {
      std::string resolved = name == "$" ? resolve("$") : name;
      create(*child_node, resolved, b, PathRef{&path, resolved}, false);
    }
    b.close();
  }

  bool creates(const Node& node) const {
    if (node.op) return op_creates(*node.op);
    for (const auto& [name, child_node] : node.children) {
      if (creates(*child_node)) return true;
    }
    return false;
  }

 private:
  bool op_creates(const Op& op) const {
    switch (op.kind) {
      case OpKind::kUnset:
      case OpKind::kRenameFrom:
      case OpKind::kPop:
      case OpKind::kPull:
      case OpKind::kPullAll:
        return false;
      case OpKind::kSetOnInsert:
        return ctx_.upsert_insert;
      case OpKind::kRenameTo:
        return !ctx_.rename_values[op.rename_index].is_missing();
      default:
        return true;
    }
  }

  size_t resolve_index() const {
    if (!ctx_.positional) {
      throw Error(ErrorCode::kBadValue,
                  "The positional operator did not find the match needed from the query.");
    }
    return *ctx_.positional;
  }
  std::string resolve(std::string_view name) const {
    if (name != "$") return std::string(name);
    return std::to_string(resolve_index());
  }

  [[noreturn]] static void conflict(const PathRef& path) {
    throw Error(ErrorCode::kConflictingUpdateOperators,
                "Update created a conflict at '" + path.str() + "'");
  }

  void leaf(const Op& op, const Value& existing, std::string_view key, DocumentBuilder& b,
            const PathRef& path, bool in_array) {
    const OpArgs& args = ctx_.args(op);
    auto keep = [&] {
      if (!existing.is_missing()) b.append(key, existing);
    };
    auto remove = [&] {
      if (in_array && !existing.is_missing()) b.append(key, bson::Null{});
    };
    switch (op.kind) {
      case OpKind::kSet:
        b.append(key, args.arg);
        return;
      case OpKind::kSetOnInsert:
        if (ctx_.upsert_insert) {
          b.append(key, args.arg);
        } else {
          keep();
        }
        return;
      case OpKind::kUnset:
        remove();
        return;
      case OpKind::kRenameFrom:
        if (ctx_.rename_values[op.rename_index].is_missing()) {
          keep();
        } else {
          remove();
        }
        return;
      case OpKind::kRenameTo: {
        const Value& v = ctx_.rename_values[op.rename_index];
        if (v.is_missing()) {
          keep();
          return;
        }
        if (in_array) {
          throw Error(ErrorCode::kBadValue, "The destination field cannot be an array element, '" +
                                                op.path + "' in doc with " +
                                                describe_id(ctx_.original).substr(1) +
                                                " has an array field called '" + path.str() + "'");
        }
        b.append(key, v);
        return;
      }
      case OpKind::kInc:
      case OpKind::kMul: {
        bool inc = op.kind == OpKind::kInc;
        if (existing.is_missing()) {
          if (inc) {
            b.append(key, args.arg);
          } else {
            zero_like(args.arg).append_to(b, key);
          }
          return;
        }
        if (!existing.is_number()) {
          throw Error(ErrorCode::kTypeMismatch,
                      "Cannot apply " + op.op_name + " to a value of non-numeric type. " +
                          describe_id(ctx_.original) + " has the field '" + std::string(key) +
                          "' of non-numeric type " + type_of(existing));
        }
        auto result = inc ? add_numbers(existing, args.arg) : multiply_numbers(existing, args.arg);
        if (!result) {
          throw Error(ErrorCode::kBadValue, "Failed to apply " + op.op_name +
                                                " operations to current value (" +
                                                describe_number(existing) + ") for document " +
                                                describe_id(ctx_.original));
        }
        result->append_to(b, key);
        return;
      }
      case OpKind::kMin:
      case OpKind::kMax: {
        if (existing.is_missing()) {
          b.append(key, args.arg);
          return;
        }
        int c = bson::compare_values(args.arg, existing);
        bool replace = op.kind == OpKind::kMin ? c < 0 : c > 0;
        b.append(key, replace ? args.arg : existing);
        return;
      }
      case OpKind::kCurrentDate:
        if (args.timestamp) {
          b.append(key, bson::Timestamp{static_cast<uint32_t>(ctx_.now_millis / 1000), 1});
        } else {
          b.append(key, bson::DateTime{ctx_.now_millis});
        }
        return;
      case OpKind::kBit:
        if (!existing.is_missing() && existing.type() != BsonType::kInt32 &&
            existing.type() != BsonType::kInt64) {
          throw Error(ErrorCode::kBadValue, "Cannot apply $bit to a value of non-integral type." +
                                                describe_id(ctx_.original) + " has the field " +
                                                std::string(key) + " of non-integer type " +
                                                type_of(existing));
        }
        apply_bits(existing, args.bits).append_to(b, key);
        return;
      case OpKind::kPush:
        apply_push(op, existing, key, b, ctx_);
        return;
      case OpKind::kAddToSet:
        apply_add_to_set(op, existing, key, b, ctx_);
        return;
      case OpKind::kPop:
        apply_pop(op, existing, key, b, ctx_);
        return;
      case OpKind::kPull:
      case OpKind::kPullAll:
        apply_pull(op, existing, key, b, ctx_);
        return;
    }
  }

  ApplyContext& ctx_;
};

void resolve_renames(ApplyContext& ctx) {
  for (const Rename& r : ctx.impl.shape->renames) {
    DocumentView cur = ctx.original;
    Value found;
    std::string walked;
    for (size_t i = 0; i < r.source.size(); ++i) {
      Value v = cur.get(r.source[i]);
      walked = join(walked, r.source[i]);
      if (i + 1 == r.source.size()) {
        found = v;
      } else if (v.is_document()) {
        cur = v.as_document();
        continue;
      } else if (v.is_array()) {
        throw Error(ErrorCode::kBadValue, "The source field cannot be an array element, '" +
                                              r.source_path + "' in doc with " +
                                              describe_id(ctx.original).substr(1) +
                                              " has an array field called '" + walked + "'");
      }
      break;
    }
    ctx.rename_values.push_back(found);
  }
}

[[noreturn]] void immutable_id() {
  throw Error(ErrorCode::kImmutableField,
              "Performing an update on the path '_id' would modify the immutable field '_id'");
}

}  // namespace

Update::Result Update::apply(DocumentView original, std::optional<size_t> positional_index,
                             bool is_upsert_insert) const {
  const Impl& impl = *impl_;
  DocumentBuilder b;
  // The result is about the original's size: one allocation instead of a doubling series that
  // copied a 450 KB document about twice over.
  b.reserve(original.size() + original.size() / 8 + 256);
  // An operator update whose path tree has no top-level "_id" copies the original's _id
  // element (every element it does not target) byte for byte and creates none: it cannot
  // change _id, so neither version's _id is looked up. Any op on "_id" or below it (a
  // $rename from or to it included) puts an "_id" child under the root.
  const bool check_id =
      impl.pipeline || impl.replacement || impl.shape->root.find("_id") != Node::kNone;
  Value original_id = check_id ? original.get("_id") : Value();
  if (impl.pipeline) {
    // The pipeline sees the whole document; `_id` may not change, and a result without one
    // keeps the original (as mongod does for $replaceRoot/$replaceWith).
    bson::Document produced = impl.pipeline(original);
    Value new_id = produced.view().get("_id");
    if (!original_id.is_missing() && !new_id.is_missing() &&
        !bson::values_equal(original_id, new_id)) {
      immutable_id();
    }
    if (!original_id.is_missing() && new_id.is_missing()) {
      b.append("_id", original_id);
      for (const auto& e : produced.view()) b.append(e.key, e.value);
    } else {
      bson::Document result = std::move(produced);
      bool modified = !(result.view() == original);
      return Result{std::move(result), modified};
    }
  } else if (impl.replacement) {
    DocumentView replacement = impl.source;
    Value new_id = replacement.get("_id");
    if (!original_id.is_missing() && !new_id.is_missing() &&
        !bson::values_equal(original_id, new_id)) {
      immutable_id();
    }
    if (!original_id.is_missing()) {
      b.append("_id", original_id);
    } else if (!new_id.is_missing()) {
      b.append("_id", new_id);
    }
    for (const auto& e : replacement) {
      if (e.key != "_id") b.append(e.key, e.value);
    }
  } else {
    ApplyContext ctx{impl, original, positional_index, is_upsert_insert, 0, {}};
    ctx.now_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    resolve_renames(ctx);
    Applier applier(ctx);
    applier.document_fields(impl.shape->root, original, b, PathRef{}, "", Value());
  }
  bson::Document result = b.finish();
  if (check_id && !impl.replacement && !impl.pipeline && !original_id.is_missing() &&
      !result.view().get("_id").identical(original_id)) {
    immutable_id();
  }
  bool modified = !(result.view() == original);
  return Result{std::move(result), modified};
}

}  // namespace mongostore::engine
