// Internal structures of a compiled Update: the parsed operations and the path tree.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bson/raw_elements.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/update.h"
#include "mongostore/error.h"

namespace mongostore::engine::update_detail {

using bson::RawElements;

/// A predicate over one value: an arrayFilters entry or a $pull condition.
class Condition {
 public:
  /// A filter document whose top-level fields all start with `identifier` (arrayFilters).
  static std::unique_ptr<Condition> array_filter(bson::DocumentView filter, std::string identifier,
                                                 const MatcherOptions& options = {});
  /// A $pull condition: an operator document ({$gte: 6}) applies to the element itself; a
  /// plain document ({field: cond}) is a query over elements that are documents; a regex
  /// matches string elements. Returns nullptr for any other value (equality is used).
  static std::unique_ptr<Condition> pull(const bson::Value& condition,
                                         const MatcherOptions& options = {});
  virtual ~Condition() = default;
  virtual bool matches(const bson::Value& element) const = 0;
};

enum class OpKind {
  kSet,
  kUnset,
  kInc,
  kMul,
  kMin,
  kMax,
  kRenameFrom,
  kRenameTo,
  kSetOnInsert,
  kCurrentDate,
  kBit,
  kPush,
  kAddToSet,
  kPop,
  kPull,
  kPullAll,
};

/// The values a $push / $addToSet adds, viewed in the update's bytes: the argument itself,
/// or the elements of its $each array. Bound on every compile of a shape, so it holds no
/// heap vector for these usual forms (a vector per array operator was an allocation and a
/// free per update); only a second $each in one modifier document collects a list.
class EachValues {
 public:
  void add_one(const bson::Value& v);
  void add_array(bson::DocumentView array);
  size_t size() const { return count_; }
  /// Calls `f(const bson::Value&)` for each value, in order.
  template <class F>
  void for_each(F&& f) const {
    switch (kind_) {
      case Kind::kNone:
        return;
      case Kind::kOne:
        f(one_);
        return;
      case Kind::kArray: {
        RawElements elements(array_);
        bson::Element e;
        while (elements.next(e)) f(e.value);
        return;
      }
      case Kind::kList:
        for (const bson::Value& v : list_) f(v);
        return;
    }
  }
  std::vector<bson::Value> to_vector() const;

 private:
  enum class Kind { kNone, kOne, kArray, kList } kind_ = Kind::kNone;
  bson::Value one_;
  bson::DocumentView array_;
  std::vector<bson::Value> list_;
  size_t count_ = 0;
};

struct PushSpec {
  EachValues each;
  std::optional<int64_t> slice;
  std::optional<int64_t> position;
  enum class Sort { kNone, kWhole, kFields } sort = Sort::kNone;
  int whole_direction = 1;
  std::vector<std::pair<std::string, int>> sort_fields;
};

struct BitOp {
  enum Kind { kAnd, kOr, kXor } kind;
  bson::Value operand;  // int32 or int64
};

/// One operator on one path: what a compiled update's shape holds (immutable, shared by
/// every update of the same shape, see shape_cache.h). What depends on the argument's value
/// lives in OpArgs.
struct Op {
  OpKind kind = OpKind::kSet;
  std::string op_name;      // "$set", ...
  std::string path;         // dotted, as written
  std::string field;        // last component of the path
  size_t rename_index = 0;  // index of this rename pair in UpdateShape::renames
  size_t index = 0;         // of this op in UpdateShape::ops, and of its OpArgs
};

/// The argument of one Op in one update, parsed (parse_op_argument): rebound on every compile.
struct OpArgs {
  bson::Value arg;         // points into the Update's owned copy
  PushSpec push;           // $push / $addToSet
  bool timestamp = false;  // $currentDate
  std::vector<BitOp> bits;
  int pop = 1;
  std::unique_ptr<Condition> pull;
};

/// Field names sort as MongoDB 5.0+ applies them: numeric names in numeric order first, then
/// the rest lexicographically.
struct FieldLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

struct Node {
  std::map<std::string, std::unique_ptr<Node>, FieldLess> children;
  const Op* op = nullptr;

  // Filled by finish_tree once the tree is complete, for the applier's lookup of every
  // field of a document level: the children in `children`'s order (names viewing its keys),
  // a bit per child name's first byte (bit `byte & 63`: most fields of a document are no
  // target and are rejected on it), the "$" child and its position, and whether any child
  // is an array wildcard ("$[]" or "$[id]").
  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<std::pair<std::string_view, const Node*>> flat;
  uint64_t first_bytes = 0;
  const Node* positional = nullptr;
  size_t positional_index = kNone;
  bool has_array_wildcard = false;

  static uint64_t first_byte_bit(std::string_view name) {
    return name.empty() ? 1 : uint64_t{1} << (static_cast<unsigned char>(name[0]) & 63);
  }
  /// The position in `flat` of the child named `name` (names are equal under FieldLess only
  /// when they are the same bytes), or kNone.
  size_t find(std::string_view name) const {
    if ((first_bytes & first_byte_bit(name)) == 0) return kNone;
    for (size_t i = 0; i < flat.size(); ++i) {
      if (flat[i].first == name) return i;
    }
    return kNone;
  }
};

/// Fills the lookup fields of `node` and every node below it (see Node).
void finish_tree(Node& node);

struct Rename {
  std::vector<std::string> source;  // path components
  std::string source_path;
};

/// What an operator update compiles to apart from its argument values: the ops, the path
/// tree and the renames. It depends only on the update's operators and field paths (and a
/// $rename's target), so updates of one shape share it (shape_cache.h). Immutable once built.
struct UpdateShape {
  std::vector<std::unique_ptr<Op>> ops;
  std::vector<Rename> renames;
  Node root;
  bool uses_positional = false;
  // Update::modified_paths, computed once per shape.
  std::optional<std::vector<std::string>> modified_paths;
};

/// True for a canonical array index ("0", "17"; no sign, no leading zeros).
bool parse_index(std::string_view s, size_t* out);
/// "$[]" or "$[id]".
bool is_array_wildcard(std::string_view s);
std::vector<std::string> split_path(std::string_view path);

/// `{_id: 1}` (or `{}` without _id), as MongoDB's messages describe a document.
std::string describe_id(bson::DocumentView doc);
/// `a: 1` — an element as MongoDB's messages print it.
std::string describe_element(std::string_view key, const bson::Value& v);

// Arithmetic (arithmetic.cc).
struct Number {
  bson::BsonType type = bson::BsonType::kInt32;
  int32_t i32 = 0;
  int64_t i64 = 0;
  double d = 0;
  bson::Decimal128 dec;
  void append_to(bson::DocumentBuilder& b, std::string_view key) const;
};
/// `a + b` / `a * b` with MongoDB's type promotion; nullopt on int64 overflow.
std::optional<Number> add_numbers(const bson::Value& a, const bson::Value& b);
std::optional<Number> multiply_numbers(const bson::Value& a, const bson::Value& b);
/// Zero of the type of `like`.
Number zero_like(const bson::Value& like);
Number apply_bits(const bson::Value& target, const std::vector<BitOp>& bits);

// Array operators (array_ops.cc). Each writes the new field under `key`.
struct ApplyContext;
void apply_push(const Op& op, const bson::Value& existing, std::string_view key,
                bson::DocumentBuilder& b, const ApplyContext& ctx);
void apply_add_to_set(const Op& op, const bson::Value& existing, std::string_view key,
                      bson::DocumentBuilder& b, const ApplyContext& ctx);
void apply_pop(const Op& op, const bson::Value& existing, std::string_view key,
               bson::DocumentBuilder& b, const ApplyContext& ctx);
void apply_pull(const Op& op, const bson::Value& existing, std::string_view key,
                bson::DocumentBuilder& b, const ApplyContext& ctx);

/// Parsing of per-operator arguments (parse_ops.cc).
void parse_push_spec(OpArgs& args, bool is_push);
void parse_op_argument(const Op& op, OpArgs& args, const MatcherOptions& matcher_options);

/// A per-thread spare for Update::Impl::args (args_pool.cc): an update's ten or so OpArgs are
/// about 2 KB, past glibc's per-thread cache, so allocating them on every compile took the
/// allocator's slow path. take_spare_args returns an empty vector, with the capacity of the
/// last one this thread recycled if any; recycle_args destroys the elements and keeps one
/// vector of bounded capacity for the next compile on this thread.
std::vector<OpArgs> take_spare_args();
void recycle_args(std::vector<OpArgs>&& args) noexcept;

}  // namespace mongostore::engine::update_detail

namespace mongostore::engine {

struct Update::Impl {
  Impl() : args(update_detail::take_spare_args()) {}
  ~Impl() { update_detail::recycle_args(std::move(args)); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // The update's copy, unless compiled borrowed: empty then (an empty Document would still
  // allocate its five bytes on every borrowed compile).
  std::optional<bson::Document> owned_source;
  bson::DocumentView source;  // the update document: owned_source, or the caller's bytes
  std::shared_ptr<const Collation> collation;  // string equality of the array operators
  std::vector<bson::Document> filter_docs;
  bool replacement = false;
  // Set for an update pipeline: the compiled stages, original -> updated document.
  UpdatePipelineFunction pipeline;
  // Operator updates: the shape (possibly shared with other updates) and this update's
  // parsed arguments, one per shape->ops.
  std::shared_ptr<const update_detail::UpdateShape> shape;
  std::vector<update_detail::OpArgs> args;
  std::map<std::string, std::unique_ptr<update_detail::Condition>> array_filters;
};

namespace update_detail {
struct ApplyContext {
  const Update::Impl& impl;
  bson::DocumentView original;
  std::optional<size_t> positional;
  bool upsert_insert = false;
  int64_t now_millis = 0;
  std::vector<bson::Value> rename_values;  // per UpdateShape::renames, from `original`
  const OpArgs& args(const Op& op) const { return impl.args[op.index]; }
};
}  // namespace update_detail

}  // namespace mongostore::engine
