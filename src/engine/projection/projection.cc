#include "mongostore/engine/projection.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>

#include "bson/raw.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine {

// A tree of projected paths: a leaf means "this field", children refine a sub-document. A leaf
// may carry an array operator that transforms the field's value instead of copying it.
struct Projection::Node {
  enum class Operator { kNone, kSlice, kElemMatch, kPositional };
  bool leaf = false;
  Operator op = Operator::kNone;
  // $slice: skip (negative counts from the end) and limit; `limit` empty = to the end.
  int64_t slice_skip = 0;
  std::optional<int64_t> slice_limit;
  // $elemMatch: a filter {<field>: {$elemMatch: spec}} run against {<field>: [element]}.
  std::optional<Matcher> elem_match;
  std::map<std::string, Node, std::less<>> children;
};

namespace {

using Operator = Projection::Node::Operator;

struct ApplyContext {
  bool inclusion;
  // The array index at which the query matched, for the positional operator.
  std::optional<size_t> positional_index;
};

Projection::Node& add_path(Projection::Node& root, std::string_view path) {
  Projection::Node* node = &root;
  std::string_view rest = path;
  while (true) {
    size_t dot = rest.find('.');
    std::string part(rest.substr(0, dot));
    if (part.empty()) {
      throw Error(ErrorCode::kBadValue,
                  "projection path '" + std::string(path) + "' cannot contain an empty field name");
    }
    Projection::Node* parent = node;
    node = &node->children[part];
    if (node->leaf && node->op == Operator::kNone && dot != std::string_view::npos) {
      // A shorter path already covers this one (MongoDB 4.4+ calls this a path collision).
      throw Error(31250, "Path collision at " + std::string(path));
    }
    if (dot == std::string_view::npos) {
      if (node->leaf || !node->children.empty()) {
        throw Error(31250, "Path collision at " + std::string(path));
      }
      node->leaf = true;
      return *node;
    }
    (void)parent;
    rest.remove_prefix(dot + 1);
  }
}

int64_t slice_number(const bson::Value& v, std::string_view field) {
  if (!v.is_number()) {
    throw Error(ErrorCode::kBadValue, "$slice on '" + std::string(field) +
                                          "' only supports numbers and [skip, limit] arrays");
  }
  int64_t exact = 0;
  if (v.number_as_exact_int64(&exact)) return exact;
  double d = v.number_as_double();  // fractional or huge: truncated toward zero, as mongod
  if (d != d) return 0;
  if (d > 9.2e18) return INT64_MAX;
  if (d < -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(d);
}

void parse_slice(Projection::Node& node, const bson::Value& arg, std::string_view field) {
  node.op = Operator::kSlice;
  if (arg.is_number()) {
    int64_t n = slice_number(arg, field);
    if (n >= 0) {
      node.slice_skip = 0;
      node.slice_limit = n;
    } else {
      node.slice_skip = n;  // the last -n elements
      node.slice_limit.reset();
    }
    return;
  }
  if (arg.is_array()) {
    std::vector<bson::Value> parts;
    for (const bson::Element& e : arg.as_array()) parts.push_back(e.value);
    if (parts.size() != 2) {
      throw Error(ErrorCode::kBadValue, "$slice on '" + std::string(field) +
                                            "' takes [skip, limit], got " +
                                            std::to_string(parts.size()) + " elements");
    }
    node.slice_skip = slice_number(parts[0], field);
    int64_t limit = slice_number(parts[1], field);
    if (limit <= 0) {
      throw Error(ErrorCode::kBadValue,
                  "$slice limit on '" + std::string(field) + "' must be positive");
    }
    node.slice_limit = limit;
    return;
  }
  throw Error(ErrorCode::kBadValue, "$slice on '" + std::string(field) +
                                        "' only supports numbers and [skip, limit] arrays");
}

void append_slice(bson::DocumentBuilder& out, std::string_view key, bson::DocumentView array,
                  const Projection::Node& node) {
  int64_t size = 0;
  for ([[maybe_unused]] const bson::Element& e : array) ++size;
  int64_t begin =
      node.slice_skip >= 0 ? node.slice_skip : std::max<int64_t>(0, size + node.slice_skip);
  int64_t end = size;
  if (node.slice_limit && begin + *node.slice_limit < end) end = begin + *node.slice_limit;
  out.open_array(key);
  int64_t i = 0, written = 0;
  for (const bson::Element& e : array) {
    if (i >= begin && i < end) out.append(std::to_string(written++), e.value);
    ++i;
  }
  out.close();
}

void project_value(bson::DocumentBuilder& out, std::string_view key, const bson::Value& v,
                   const Projection::Node& node, const ApplyContext& context);

// Writes the field `key` whose projection node is an operator leaf.
void apply_operator(bson::DocumentBuilder& out, std::string_view key, const bson::Value& v,
                    const Projection::Node& node, const ApplyContext& context) {
  switch (node.op) {
    case Operator::kSlice:
      if (v.is_array()) {
        append_slice(out, key, v.as_array(), node);
      } else {
        out.append(key, v);
      }
      return;
    case Operator::kElemMatch: {
      if (!v.is_array()) return;
      for (const bson::Element& e : v.as_array()) {
        bson::DocumentBuilder probe;
        probe.open_array(key);
        probe.append("0", e.value);
        probe.close();
        bson::Document candidate = probe.finish();
        if (node.elem_match->matches(candidate.view())) {
          out.open_array(key);
          out.append("0", e.value);
          out.close();
          return;
        }
      }
      return;
    }
    case Operator::kPositional: {
      if (!v.is_array()) {
        out.append(key, v);
        return;
      }
      size_t i = 0;
      if (context.positional_index) {
        for (const bson::Element& e : v.as_array()) {
          if (i++ == *context.positional_index) {
            out.open_array(key);
            out.append("0", e.value);
            out.close();
            return;
          }
        }
      }
      throw Error(51246, "positional operator '" + std::string(key) +
                             ".$' couldn't find a matching element in the array");
    }
    case Operator::kNone:
      break;
  }
  out.append(key, v);
}

void project_document(bson::DocumentBuilder& out, bson::DocumentView doc,
                      const Projection::Node& node, const ApplyContext& context) {
  for (const bson::Element& e : doc) {
    auto it = node.children.find(e.key);
    if (it == node.children.end()) {
      if (!context.inclusion) out.append(e.key, e.value);
      continue;
    }
    const Projection::Node& child = it->second;
    if (child.leaf) {
      if (child.op != Operator::kNone) {
        apply_operator(out, e.key, e.value, child, context);
      } else if (context.inclusion) {
        out.append(e.key, e.value);
      }
      continue;
    }
    project_value(out, e.key, e.value, child, context);
  }
}

void project_value(bson::DocumentBuilder& out, std::string_view key, const bson::Value& v,
                   const Projection::Node& node, const ApplyContext& context) {
  if (v.is_document()) {
    out.open_document(key);
    project_document(out, v.as_document(), node, context);
    out.close();
  } else if (v.is_array()) {
    // A sub-path applies to each document element; inclusion drops scalar elements.
    out.open_array(key);
    size_t index = 0;
    for (const bson::Element& e : v.as_array()) {
      if (e.value.is_document() || e.value.is_array()) {
        project_value(out, std::to_string(index++), e.value, node, context);
      } else if (!context.inclusion) {
        out.append(std::to_string(index++), e.value);
      }
    }
    out.close();
  } else if (!context.inclusion) {
    out.append(key, v);
  }
}

// Beyond this many fields a linear match per element costs more than the tree's lookup.
constexpr size_t kMaxFlatFields = 8;

// A name length's bit in Projection::flat_lengths_ (63 for every length from 63 up).
uint64_t length_bit(size_t length) {
  return uint64_t{1} << std::min<size_t>(length, 63);
}

uint64_t flat_lengths(const std::vector<std::string>& fields) {
  uint64_t lengths = 0;
  for (const std::string& f : fields) lengths |= length_bit(f.size());
  return lengths;
}

bool starts_with_operator(const bson::Value& v) {
  return v.is_document() && !v.as_document().empty() &&
         v.as_document().begin()->key.starts_with("$");
}

}  // namespace

Projection::Projection() = default;

std::vector<std::string> Projection::flat_inclusion_fields(const Projection& p) {
  std::vector<std::string> fields;
  if (!p.inclusion_ || p.query_ || !p.root_ || p.root_->children.size() > kMaxFlatFields) {
    return fields;
  }
  for (const auto& [name, child] : p.root_->children) {
    if (!child.leaf || child.op != Operator::kNone || !child.children.empty()) return {};
    fields.push_back(name);
  }
  return fields;
}

bool Projection::compile_flat(bson::DocumentView spec, Projection& p) {
  std::vector<std::string> fields;
  bool include_id = true;
  for (const bson::Element& e : spec) {
    std::string_view field = e.key;
    if (field.empty() || field.find_first_of(".$") != std::string_view::npos) return false;
    if (!(e.value.type() == bson::BsonType::kBool || e.value.is_number())) return false;
    if (field == "_id") {
      include_id = e.value.truthy();  // the last one counts, as in the general path
      continue;
    }
    if (!e.value.truthy() || fields.size() == kMaxFlatFields) return false;
    for (const std::string& f : fields) {
      if (f == field) return false;  // a path collision: the general path reports it
    }
    fields.emplace_back(field);
  }
  if (fields.empty()) return false;  // `_id` alone, or nothing: the general path decides
  if (include_id) {
    if (fields.size() == kMaxFlatFields) return false;
    fields.emplace_back("_id");
  }
  p.inclusion_ = true;
  p.include_id_ = include_id;
  p.flat_fields_ = std::move(fields);
  p.flat_lengths_ = flat_lengths(p.flat_fields_);
  return true;
}

Projection Projection::compile(bson::DocumentView spec, const Matcher* query) {
  Projection p;
  // The common spec, plain top-level inclusions, needs no tree: a find compiles one per call.
  if (compile_flat(spec, p)) return p;
  check_input_depth(spec, "projection");
  auto root = std::make_shared<Node>();
  int includes = 0, excludes = 0, positionals = 0;
  bool id_specified = false;
  auto count = [&](bool include, std::string_view field) {
    (include ? includes : excludes)++;
    if (includes > 0 && excludes > 0) {
      throw Error(31254, include ? "Cannot do inclusion on field " + std::string(field) +
                                       " in exclusion projection"
                                 : "Cannot do exclusion on field " + std::string(field) +
                                       " in inclusion projection");
    }
  };
  for (const bson::Element& e : spec) {
    std::string_view field = e.key;
    if (!field.empty() && field[0] == '$') {
      throw Error(ErrorCode::kNotImplemented,
                  "projection operator " + std::string(field) + " is not supported by mongostore");
    }
    if (field.ends_with(".$")) {
      if (++positionals > 1) {
        throw Error(31276, "Cannot specify more than one positional projection per query.");
      }
      if (!(e.value.type() == bson::BsonType::kBool || e.value.is_number()) || !e.value.truthy()) {
        throw Error(31395, "positional projection '" + std::string(field) +
                               "' must be an inclusion (1 or true)");
      }
      if (query == nullptr) {
        throw Error(ErrorCode::kBadValue, "positional projection '" + std::string(field) +
                                              "' needs the query that selected the documents");
      }
      std::string_view path = field.substr(0, field.size() - 2);
      if (path.find('$') != std::string_view::npos) {
        throw Error(ErrorCode::kBadValue,
                    "positional projection '" + std::string(field) + "' has more than one '$'");
      }
      count(true, field);
      Node& node = add_path(*root, path);
      node.op = Operator::kPositional;
      p.query_ = std::make_shared<Matcher>(*query);
      continue;
    }
    if (field.find(".$") != std::string_view::npos || field.find("$.") != std::string_view::npos) {
      throw Error(ErrorCode::kBadValue, "the positional operator in projection field '" +
                                            std::string(field) + "' must be at the end");
    }
    if (starts_with_operator(e.value)) {
      bson::DocumentView arg = e.value.as_document();
      auto first = arg.begin();
      const bson::Element op = *first;
      std::string_view name = op.key;
      if (++first != arg.end()) {
        throw Error(ErrorCode::kBadValue,
                    "projection operator on '" + std::string(field) + "' must be alone");
      }
      if (name == "$slice") {
        if (field == "_id") throw Error(ErrorCode::kBadValue, "$slice cannot apply to _id");
        Node& node = add_path(*root, field);
        parse_slice(node, op.value, field);
        continue;
      }
      if (name == "$elemMatch") {
        if (field.find('.') != std::string_view::npos) {
          throw Error(31275, "Cannot use $elemMatch projection on a nested field.");
        }
        if (!op.value.is_document()) {
          throw Error(ErrorCode::kBadValue,
                      "$elemMatch on '" + std::string(field) + "' needs an object");
        }
        count(true, field);
        Node& node = add_path(*root, field);
        node.op = Operator::kElemMatch;
        bson::DocumentBuilder filter;
        filter.open_document(field);
        filter.append("$elemMatch", op.value);
        filter.close();
        bson::Document compiled = filter.finish();
        MatcherOptions options;
        options.allow_json_schema = false;  // as mongod: not in an $elemMatch projection
        node.elem_match = Matcher::compile(compiled.view(), options);
        continue;
      }
      throw Error(ErrorCode::kNotImplemented, "projection operator " + std::string(name) + " on '" +
                                                  std::string(field) +
                                                  "' is not supported by mongostore");
    }
    if (!(e.value.type() == bson::BsonType::kBool || e.value.is_number())) {
      throw Error(ErrorCode::kNotImplemented, "projection expressions (field '" +
                                                  std::string(field) +
                                                  "') are not supported by mongostore");
    }
    bool include = e.value.truthy();
    if (field == "_id") {
      p.include_id_ = include;
      id_specified = true;
      continue;
    }
    count(include, field);
    add_path(*root, field);
  }
  // `_id` alone decides nothing unless nothing else does: {_id: 1} (with at most operators
  // that neither include nor exclude, such as $slice) is an inclusion of `_id` only, as on
  // mongod; {_id: 0} is an exclusion.
  p.inclusion_ = includes > 0 || (excludes == 0 && id_specified && p.include_id_);
  if (p.inclusion_) {
    if (p.include_id_ && root->children.find("_id") == root->children.end()) {
      add_path(*root, "_id");
    }
  } else if (!p.include_id_) {
    add_path(*root, "_id");
  }
  if (!root->children.empty()) p.root_ = std::move(root);
  p.flat_fields_ = flat_inclusion_fields(p);
  p.flat_lengths_ = flat_lengths(p.flat_fields_);
  return p;
}

bool Projection::only_selects(bson::DocumentView spec) {
  for (const bson::Element& e : spec) {
    if (e.key.find('$') != std::string_view::npos) return false;
    if (!e.value.is_number() && e.value.type() != bson::BsonType::kBool) return false;
  }
  return true;
}

bool Projection::is_identity() const {
  return root_ == nullptr && !inclusion_ && flat_fields_.empty();
}

void Projection::apply_into(bson::DocumentView document, std::vector<uint8_t>& out) const {
  if (flat_fields_.empty()) {
    const bson::Document projected = apply(document);
    out.insert(out.end(), projected.data(), projected.data() + projected.size());
    return;
  }
  // Same result as the tree walk in apply(): every element whose key is an included field, in
  // document order, byte for byte. A stored document is valid BSON: walked here over its
  // bytes, each element's key compared before anything is built from it (a sweep's ~2 KB
  // execution documents have ~25 top-level fields, of which it keeps three or four). The kept
  // elements are noted, then the result is sized once (room made for its exact size: small
  // enough for the allocator's per-thread cache, where the document's size is not) and each
  // element copied into place: one resize and a memcpy per element, instead of a vector
  // insert per element. Only a document with more kept elements than `kept` holds (repeated
  // keys) copies in steps.
  struct Span {
    const uint8_t* begin;
    const uint8_t* end;
  };
  Span kept[16];  // left uninitialised: only the first `count` are read
  constexpr size_t kKept = sizeof kept / sizeof kept[0];
  size_t count = 0;
  size_t pending = 0;  // the bytes of kept[0, count)
  const size_t start = out.size();
  bool begun = false;
  // Appends kept[0, count) (after the size prefix, at the first call) and, when `last`, the
  // terminating NUL.
  auto copy_kept = [&](bool last) {
    size_t at = out.size();
    if (!begun) {
      // The size prefix, the kept bytes and the NUL; a document with more kept elements than
      // `kept` holds is given room for its whole size.
      const size_t need = start + (last ? 4 + pending + 1 : document.size());
      // Never an exact reserve past the end of a buffer others appended to: that would
      // reallocate the whole buffer for every document.
      if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));
      at += 4;
      begun = true;
    }
    out.resize(at + pending + (last ? 1 : 0));  // the NUL is the resize's zero
    uint8_t* to = out.data() + at;
    for (size_t i = 0; i < count; ++i) {
      const size_t n = static_cast<size_t>(kept[i].end - kept[i].begin);
      std::memcpy(to, kept[i].begin, n);
      to += n;
    }
    count = 0;
    pending = 0;
  };
  const uint8_t* p = document.data() + 4;
  const uint8_t* const end = document.data() + document.size() - 1;
  while (p < end && *p != 0) {
    const char* key = reinterpret_cast<const char*>(p + 1);
    const std::string_view name(key, std::strlen(key));
    const uint8_t* payload = p + 2 + name.size();
    const uint8_t* next =
        payload + bson::raw::payload_size(static_cast<bson::BsonType>(*p), payload);
    // Most fields are of none of the included lengths: their names are not compared.
    if ((flat_lengths_ & length_bit(name.size())) == 0) {
      p = next;
      continue;
    }
    for (const std::string& field : flat_fields_) {
      // The first bytes before a memcmp call: names of an included one's length are mostly
      // other fields ("outbox" and "spawns" beside "timers").
      if (name.size() == field.size() && name[0] == field[0] && name == field) {
        if (count == kKept) copy_kept(false);
        kept[count++] = {p, next};
        pending += static_cast<size_t>(next - p);
        break;
      }
    }
    p = next;
  }
  copy_kept(true);
  // The size prefix, little-endian.
  const uint32_t size = static_cast<uint32_t>(out.size() - start);
  uint8_t* prefix = out.data() + start;
  prefix[0] = static_cast<uint8_t>(size);
  prefix[1] = static_cast<uint8_t>(size >> 8);
  prefix[2] = static_cast<uint8_t>(size >> 16);
  prefix[3] = static_cast<uint8_t>(size >> 24);
}

bson::Document Projection::apply(bson::DocumentView document) const {
  if (!flat_fields_.empty()) {
    std::vector<uint8_t> out;
    apply_into(document, out);
    return bson::Document::adopt(std::move(out));
  }
  if (root_ == nullptr) {
    return inclusion_ ? bson::Document() : bson::Document::copy_of(document);
  }
  ApplyContext context{inclusion_, std::nullopt};
  if (query_) {
    MatchDetails details;
    query_->matches(document, &details);
    context.positional_index = details.array_index;
  }
  bson::DocumentBuilder out;
  project_document(out, document, *root_, context);
  return out.finish();
}

}  // namespace mongostore::engine
