#include "records/query_compiler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "mongostore/error.h"
#include "mongostore/records/searcher.h"

namespace mongostore::records {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

namespace {

[[noreturn]] void mismatch(const FieldPath& path, const Value& literal, std::string_view want) {
  throw SchemaError(path.describe() + " compares with " + std::string(want) + ", not with a " +
                    std::string(literal.kind()) + " literal");
}

// The kind of the values a path's query column (or a child's element key) holds.
enum class ColumnType { kInt, kNumber, kString, kBool, kBytes, kSidRef, kTimestamp };

const FieldType& value_type(const FieldSchema& f) {
  return f.type.kind == FieldKind::kList ? *f.type.element : f.type;
}

bool is_child(const FieldPath& path) {
  const FieldSchema* f = path.field_schema();
  return f && f->role() == FieldRole::kChild;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Document one(const Value& literal, const FieldPath& path, const LiteralContext& context) {
  auto out = [](auto v) { return make_document("v", v); };
  if (path.end == PathEnd::kSid || path.end == PathEnd::kLogicalId) {
    if (literal.is<int64_t>()) return out(literal.as<int64_t>());
    if (path.end == PathEnd::kSid && literal.is<Value::RecordPtr>()) {
      auto sid = literal.as<Value::RecordPtr>()->sid();
      if (!sid) throw Error(ErrorCode::kBadValue, path.describe() + ": record is not stored");
      return out(*sid);
    }
    mismatch(path, literal, "an int");
  }
  if (path.end == PathEnd::kStoreTimestamp) {
    int64_t ns = 0;
    if (literal.is<int64_t>()) {
      ns = literal.as<int64_t>();
    } else if (literal.is<DateTime>()) {
      ns = timestamp_operand_ns(literal.as<DateTime>());
    } else if (literal.is<std::string>()) {
      ns = timestamp_operand_ns(literal.as<std::string>());
    } else {
      mismatch(path, literal, "nanoseconds, an aware datetime or an RFC 3339 string");
    }
    return out(floor_div(ns, context.timestamp_resolution));
  }
  if (path.end == PathEnd::kContentId) {
    if (literal.is<std::string>()) return out(literal.as<std::string>());
    mismatch(path, literal, "a string");
  }
  const FieldSchema& f = *path.field_schema();
  const FieldType& t = value_type(f);
  switch (t.kind) {
    case FieldKind::kInt:
      if (literal.is<int64_t>()) return out(literal.as<int64_t>());
      if (literal.is<double>()) return out(literal.as<double>());
      mismatch(path, literal, "a number");
    case FieldKind::kFloat:
    case FieldKind::kRational:
      if (literal.is<int64_t>()) return out(static_cast<double>(literal.as<int64_t>()));
      if (literal.is<double>()) return out(literal.as<double>());
      if (literal.is<Rational>()) return out(literal.as<Rational>().nearest_double());
      mismatch(path, literal, "a number");
    case FieldKind::kString:
      if (literal.is<std::string>()) return out(literal.as<std::string>());
      mismatch(path, literal, "a string");
    case FieldKind::kBool:
      if (literal.is<bool>()) return out(literal.as<bool>());
      mismatch(path, literal, "a bool");
    case FieldKind::kBytes:
      if (literal.is<Bytes>()) {
        const std::string& d = literal.as<Bytes>().data;
        return out(bson::BinaryView{
            0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(d.data()), d.size())});
      }
      mismatch(path, literal, "bytes");
    case FieldKind::kDateTime:
      if (literal.is<DateTime>()) return out(literal.as<DateTime>().iso());
      mismatch(path, literal, "a datetime");
    case FieldKind::kDate:
      if (literal.is<Date>()) return out(literal.as<Date>().iso());
      mismatch(path, literal, "a date");
    case FieldKind::kReference:
      if (literal.is<int64_t>()) return out(literal.as<int64_t>());
      if (literal.is<Value::RecordPtr>()) {
        auto sid = literal.as<Value::RecordPtr>()->sid();
        if (!sid) throw Error(ErrorCode::kBadValue, path.describe() + ": record is not stored");
        return out(*sid);
      }
      mismatch(path, literal, "a stored record (its sid)");
    case FieldKind::kMatrix:
    case FieldKind::kList:
      break;
  }
  throw SchemaError(path.describe() + " (" + f.type.describe() + ") cannot be queried");
}

bson::Value lit(const Document& d) {
  return d.view().get("v");
}

Document known(const std::string& path) {
  return make_document(path, make_document("$ne", bson::Null{}));
}
Document null_of(const std::string& path) {
  return make_document(path, bson::Null{});
}

Document combine(std::string_view op, const std::vector<Document>& parts) {
  if (parts.size() == 1) return parts[0];
  DocumentBuilder b;
  b.open_array(op);
  for (const Document& d : parts) b.push(d);
  b.close();
  return b.finish();
}

Document and_of(const std::vector<Document>& parts) {
  std::vector<Document> kept;
  for (const Document& d : parts) {
    if (!d.view().empty()) kept.push_back(d);
  }
  if (kept.empty()) return Document();
  return combine("$and", kept);
}
Document or_of(const std::vector<Document>& parts) {
  if (parts.empty()) return never_filter();
  for (const Document& d : parts) {
    if (d.view().empty()) return Document();  // one always-true branch
  }
  return combine("$or", parts);
}

std::string_view query_op(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "$eq";
    case CompareOp::kNe:
      return "$ne";
    case CompareOp::kLt:
      return "$lt";
    case CompareOp::kLe:
      return "$lte";
    case CompareOp::kGt:
      return "$gt";
    case CompareOp::kGe:
      return "$gte";
  }
  return "$eq";
}
CompareOp complement(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return CompareOp::kNe;
    case CompareOp::kNe:
      return CompareOp::kEq;
    case CompareOp::kLt:
      return CompareOp::kGe;
    case CompareOp::kLe:
      return CompareOp::kGt;
    case CompareOp::kGt:
      return CompareOp::kLe;
    case CompareOp::kGe:
      return CompareOp::kLt;
  }
  return op;
}

// The condition on one known value: `!= v` also refuses null (a null is never "not v").
Document value_condition(CompareOp op, const bson::Value& v) {
  if (op == CompareOp::kNe) {
    DocumentBuilder b;
    b.open_array("$nin").push(v).push(bson::Null{}).close();
    return b.finish();
  }
  DocumentBuilder b;
  b.append(query_op(op), v);
  return b.finish();
}

Document at(const std::string& path, const Document& condition) {
  return make_document(path, condition);
}

// Is `path` numeric, and of what comparable family, for a field-to-field comparison.
std::string comparable_family(const FieldPath& path) {
  switch (path.end) {
    case PathEnd::kSid:
    case PathEnd::kLogicalId:
    case PathEnd::kStoreTimestamp:
      return "number";
    case PathEnd::kContentId:
      return "string";
    case PathEnd::kField:
      break;
  }
  const FieldSchema& f = *path.field_schema();
  switch (f.type.kind) {
    case FieldKind::kInt:
    case FieldKind::kFloat:
    case FieldKind::kRational:
    case FieldKind::kReference:
      return "number";
    case FieldKind::kString:
      return "string";
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kBytes:
      return "bytes";
    case FieldKind::kDateTime:
      return "datetime";
    case FieldKind::kDate:
      return "date";
    case FieldKind::kMatrix:
    case FieldKind::kList:
      break;
  }
  return "";
}

std::string element_key(const FieldPath& path) {
  const FieldSchema& f = *path.field_schema();
  if (f.type.kind != FieldKind::kList) {
    throw SchemaError(path.describe() + " (" + f.type.describe() + ") cannot be queried");
  }
  return f.columns()[0].name;
}

}  // namespace

namespace {

// `op` with its operands swapped: a < b is b > a (and a comparison multiplied by a negative).
CompareOp mirrored(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return CompareOp::kGt;
    case CompareOp::kLe:
      return CompareOp::kGe;
    case CompareOp::kGt:
      return CompareOp::kLt;
    case CompareOp::kGe:
      return CompareOp::kLe;
    default:
      return op;
  }
}

// The server prefilter of a scaled comparison `a · X op b · Y`, where a and b are rational
// literals and X and Y are each a product of zero, one or two fields (`f · x` with a field
// factor f): an error-bounded window on the stored nearest doubles that keeps every row
// where the exact comparison holds.
//
// The literals are first divided by max(|a|, |b|), which changes no comparison: the larger
// becomes ±1 and the smaller lies in [-1, 1]. Their doubles A, B are then exact or within a
// relative u = 2^-53 of them (when the smaller one is a nonzero value below the smallest
// normal double, no window is claimed: the prefilter is "every operand known"). Each stored
// column d is its field's value t rounded to nearest (an int's column converts to the
// nearest double when multiplied): |d - t| <= u|t| + 2^-1075. The server computes each side
// as P = A·dx or P = (A·df)·dx (a field factor first), then D = P - Q and S = |P| + |Q|,
// each operation rounded once. Expanding the roundings (with |A|, |B| <= 1):
//   - a side of one field: |P - a'x| <= 3u|P| + 2·2^-1075 (u² terms included);
//   - a side of two fields: |P - a'fx| <= 5.01u|P| + 2^-1075·(3.1(|df| + |dx|) + 1.1): a
//     subnormal error in one factor is multiplied by the other, so it is not relative;
//   - D adds u(|P| + |Q|) <= 1.01u·S (a subtraction with a subnormal result is exact).
// So |D - (a'X - b'Y)| <= 6.02u·S + 2^-1075·(3.1·M + 2.2), M the sum of |d| over the
// columns of two-field sides (0 without one). The window's tolerance is
// tol = S·2^-48 + M·2^-1060 + 2^-1060: 2^-48 = 32u, more than five times 6.02u, and
// 2^-1060 = 2^15 · 2^-1075, which covers the rest even after tol's own roundings (each of
// its terms is within 2^-1075 absolute or a relative u of its value, all of them positive).
// So where a'X - b'Y = 0, |D| <= tol; where it is < 0 (or <= 0), D <= tol; where it is > 0
// (or >= 0), -D <= tol. When a product overflows, S is infinite and the row is kept
// (S == +inf): the client decides (M may overflow too: tol is then infinite, the row kept).
// `!=` keeps every row with every operand known.
//
// The columns, P and Q, and S are each computed once per row ($let): the expression runs
// on every candidate row, so its size is the prefilter's cost.
struct ScaledSide {
  Rational literal;
  std::vector<std::string> columns;  // 0, 1 or 2 query columns (factor first)
};

Document scaled_window(CompareOp op, const ScaledSide& lhs, const ScaledSide& rhs) {
  auto var = [](const std::string& name) { return "$$" + name; };
  // The columns as variables c0, c1, ... (lhs's first).
  DocumentBuilder columns;
  std::vector<std::string> names;
  for (const ScaledSide* side : {&lhs, &rhs}) {
    for (const std::string& c : side->columns) {
      names.push_back("httk_c" + std::to_string(names.size()));
      columns.append(names.back(), "$" + c);
    }
  }
  std::vector<Document> all;
  for (const std::string& n : names) {
    all.push_back(make_document("$gt", make_array(var(n), bson::Null{})));
  }
  const Rational& a = lhs.literal;
  const Rational& b = rhs.literal;
  bool windowed = op != CompareOp::kNe && (a.sign() != 0 || b.sign() != 0);
  double A = 0, B = 0;
  if (windowed) {
    Rational scale = std::max(a.abs(), b.abs());
    Rational an = a / scale, bn = b / scale;
    A = an.nearest_double();
    B = bn.nearest_double();
    auto tiny = [](const Rational& r, double d) {
      return r.sign() != 0 && std::fabs(d) < std::numeric_limits<double>::min();
    };
    windowed = !tiny(an, A) && !tiny(bn, B);
  }
  if (windowed) {
    // P and Q: the literal times each column in turn (a factor column first).
    size_t next = 0;
    std::vector<std::string> absolute;  // the columns of two-field sides, for M
    DocumentBuilder pq;
    auto side_product = [&](std::string_view as, double literal, const ScaledSide& side) {
      if (side.columns.empty()) {
        pq.append(as, literal);
        return;
      }
      Document acc;
      for (size_t i = 0; i < side.columns.size(); ++i) {
        const std::string& n = names[next++];
        if (side.columns.size() > 1) absolute.push_back(n);
        acc = i == 0 ? make_document("$multiply", make_array(literal, var(n)))
                     : make_document("$multiply", make_array(acc, var(n)));
      }
      pq.append(as, acc);
    };
    side_product("httk_p", A, lhs);
    side_product("httk_q", B, rhs);
    Document S = make_document("$add", make_array(make_document("$abs", var("httk_p")),
                                                  make_document("$abs", var("httk_q"))));
    Document tol_terms = [&] {
      DocumentBuilder t;
      t.open_array("$add");
      t.push(make_document("$multiply", make_array(var("httk_s"), 0x1p-48)));
      if (!absolute.empty()) {
        DocumentBuilder m;
        m.open_array("$add");
        for (const std::string& n : absolute) m.push(make_document("$abs", var(n)));
        m.close();
        t.push(make_document("$multiply", make_array(m.finish(), 0x1p-1060)));
      }
      t.push(0x1p-1060);
      t.close();
      return t.finish();
    }();
    Document difference;
    switch (op) {
      case CompareOp::kEq:
        difference = make_document(
            "$abs", make_document("$subtract", make_array(var("httk_p"), var("httk_q"))));
        break;
      case CompareOp::kLt:
      case CompareOp::kLe:
        difference = make_document("$subtract", make_array(var("httk_p"), var("httk_q")));
        break;
      default:  // kGt, kGe
        difference = make_document("$subtract", make_array(var("httk_q"), var("httk_p")));
        break;
    }
    Document window = make_document("$lte", make_array(difference, tol_terms));
    Document overflow =
        make_document("$eq", make_array(var("httk_s"), std::numeric_limits<double>::infinity()));
    Document inner =
        make_document("$let", make_document("vars", make_document("httk_s", S), "in",
                                            make_document("$or", make_array(overflow, window))));
    all.push_back(make_document("$let", make_document("vars", pq.finish(), "in", inner)));
  }
  DocumentBuilder e;
  e.open_array("$and");
  for (const Document& d : all) e.push(d);
  e.close();
  if (names.empty()) return make_document("$expr", e.finish());
  return make_document(
      "$expr", make_document("$let", make_document("vars", columns.finish(), "in", e.finish())));
}

}  // namespace

Document never_filter() {
  return make_document("_id", make_document("$exists", false));
}

std::string literal_regex(StringOp op, std::string_view text) {
  std::string out;
  if (op == StringOp::kStartsWith) out += "\\A";
  for (unsigned char c : text) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x{%02x}", c);
      out += buf;
    } else {
      out += '\\';
      out += static_cast<char>(c);
    }
  }
  if (op == StringOp::kEndsWith) out += "\\z";
  return out;
}

std::string QueryPaths::var_prefix(int var) {
  return var == 0 ? std::string() : "_httk_var_" + std::to_string(var) + ".";
}

std::string QueryPaths::owner_prefix(const FieldPath& path) {
  std::string prefix = var_prefix(path.var);
  for (const auto& [schema, index] : path.hops) {
    const FieldSchema& f = schema->fields()[index];
    std::string local = prefix + "f." + f.name + "_sid";
    auto it = refs_.find(local);
    if (it == refs_.end()) {
      std::string as = "_httk_ref_" + std::to_string(refs_.size());
      // The equality form (localField/foreignField), as an expert writes it: the engine
      // turns it into one point read of `_id` per row, where a `let`/`$expr` pipeline
      // evaluates and rewrites its $match for every row. A reference column holds one sid
      // or null, and a null or missing sid matches no record (every record has an `_id`),
      // so the two forms join the same records. The as_of cutoff, when there is one, is the
      // pipeline of the combined form.
      DocumentBuilder lookup;
      lookup.open_document("$lookup")
          .append("from", f.type.target_schema()->storage_name())
          .append("localField", local)
          .append("foreignField", "_id");
      if (as_of_) {
        lookup.append(
            "pipeline",
            make_array(make_document(
                "$match", make_document("store_timestamp", make_document("$lte", *as_of_)))));
      }
      lookup.append("as", as).close();
      stages_.push_back(lookup.finish());
      stages_.push_back(make_document(
          "$unwind", make_document("path", "$" + as, "preserveNullAndEmptyArrays", true)));
      it = refs_.emplace(local, as).first;
    }
    prefix = it->second + ".";
  }
  return prefix;
}

std::string QueryPaths::column(const FieldPath& path) {
  std::string prefix = owner_prefix(path);
  switch (path.end) {
    case PathEnd::kSid:
      return prefix + "_id";
    case PathEnd::kLogicalId:
      return prefix + "logical_id";
    case PathEnd::kStoreTimestamp:
      return prefix + "store_timestamp";
    case PathEnd::kContentId:
      return prefix + "content_id";
    case PathEnd::kField:
      break;
  }
  const FieldSchema& f = *path.field_schema();
  switch (f.role()) {
    case FieldRole::kFixedArray:
      throw SchemaError(path.describe() + " (" + f.type.describe() + ") cannot be queried");
    case FieldRole::kChild:
      if (f.type.kind == FieldKind::kMatrix) {
        throw SchemaError(path.describe() + " (" + f.type.describe() + ") cannot be queried");
      }
      return prefix + "f." + f.name;
    default:
      return prefix + "f." + f.columns()[0].name;
  }
}

std::vector<Document> QueryPaths::reference_stages() const {
  return stages_;
}

Document encode_literal(const FieldPath& path, const Value& literal,
                        const LiteralContext& context) {
  return one(literal, path, context);
}

CompiledCondition compile_condition(const CondNode& n, QueryPaths& paths,
                                    const LiteralContext& context) {
  using K = CondNode::Kind;
  switch (n.kind) {
    case K::kTrue:
      return {Document(), never_filter()};
    case K::kFalse:
      return {never_filter(), Document()};
    case K::kUnknown:
      return {never_filter(), never_filter()};
    case K::kLength: {
      // {$size} of the list (an absent list is an empty one); through a reference, only
      // where the referenced record exists (else the list is unknown, as a null is).
      std::string col = paths.column(n.lhs);
      std::string owner = paths.owner_prefix(n.lhs);
      Document size =
          make_document("$size", make_document("$ifNull", make_array("$" + col, bson::Array())));
      Document cmp = make_document(query_op(n.op), make_array(size, n.values[0].as<int64_t>()));
      Document truth = make_document("$expr", cmp);
      Document falsity = make_document("$expr", make_document("$not", make_array(cmp)));
      if (n.lhs.hops.empty()) return {truth, falsity};
      Document exists = known(owner + "_id");
      return {and_of({exists, truth}), and_of({exists, falsity})};
    }
    case K::kNot: {
      CompiledCondition c = compile_condition(*n.children[0], paths, context);
      return {c.falsity, c.truth};
    }
    case K::kAnd:
    case K::kOr: {
      std::vector<Document> truths, falsities;
      for (const auto& child : n.children) {
        CompiledCondition c = compile_condition(*child, paths, context);
        truths.push_back(std::move(c.truth));
        falsities.push_back(std::move(c.falsity));
      }
      if (n.kind == K::kAnd) return {and_of(truths), or_of(falsities)};
      return {or_of(truths), and_of(falsities)};
    }
    case K::kCompare: {
      std::string col = paths.column(n.lhs);
      const Value& v = n.values[0];
      if (is_child(n.lhs)) {
        if (v.is_null()) {
          throw UnsupportedQueryError(n.lhs.describe() +
                                      ": a list compared with null (use has/has_any)");
        }
        Document lv = encode_literal(n.lhs, v, context);
        Document m = make_document(element_key(n.lhs), value_condition(n.op, lit(lv)));
        Document match = make_document("$elemMatch", m);
        return {at(col, match), at(col, make_document("$not", match))};
      }
      if (v.is_null()) {
        if (n.op == CompareOp::kEq) return {null_of(col), known(col)};
        if (n.op == CompareOp::kNe) return {known(col), null_of(col)};
        return {never_filter(), known(col)};
      }
      Document lv = encode_literal(n.lhs, v, context);
      return {at(col, value_condition(n.op, lit(lv))),
              at(col, value_condition(complement(n.op), lit(lv)))};
    }
    case K::kCompareField: {
      if (is_child(n.lhs) || is_child(n.rhs)) {
        throw UnsupportedQueryError(n.lhs.describe() + " vs " + n.rhs.describe() +
                                    ": a list compared with another field");
      }
      std::string fa = comparable_family(n.lhs), fb = comparable_family(n.rhs);
      if (fa.empty() || fa != fb) {
        throw SchemaError(n.lhs.describe() + " and " + n.rhs.describe() +
                          " hold values of different kinds");
      }
      std::string a = "$" + paths.column(n.lhs), b = "$" + paths.column(n.rhs);
      auto nn = [](const std::string& p) {
        return make_document("$gt", make_array(p, bson::Null{}));
      };
      Document cmp = make_document(query_op(n.op), make_array(a, b));
      return {
          make_document("$expr", make_document("$and", make_array(nn(a), nn(b), cmp))),
          make_document("$expr",
                        make_document("$and", make_array(nn(a), nn(b),
                                                         make_document("$not", make_array(cmp)))))};
    }
    case K::kIn: {
      if (is_child(n.lhs))
        throw UnsupportedQueryError(n.lhs.describe() + ": is_in on a list (use has_any)");
      std::string col = paths.column(n.lhs);
      bool with_null = false;
      DocumentBuilder in, nin;
      in.open_array("$in");
      nin.open_array("$nin");
      for (const Value& v : n.values) {
        if (v.is_null()) {
          with_null = true;
          continue;
        }
        Document lv = encode_literal(n.lhs, v, context);
        in.push(lit(lv));
        nin.push(lit(lv));
      }
      in.close();
      nin.close();
      nin.append("$ne", bson::Null{});
      Document truth = at(col, in.finish());
      if (with_null) truth = or_of({truth, null_of(col)});
      return {truth, at(col, nin.finish())};
    }
    case K::kHasAny:
    case K::kHasOnly: {
      if (!is_child(n.lhs)) {
        throw SchemaError(n.lhs.describe() + " is not a list: has/has_any/has_only need one");
      }
      std::string col = paths.column(n.lhs);
      DocumentBuilder set;
      set.open_array(n.kind == K::kHasAny ? "$in" : "$nin");
      for (const Value& v : n.values) {
        Document lv = encode_literal(n.lhs, v, context);
        set.push(lit(lv));
      }
      set.close();
      Document match = make_document("$elemMatch", make_document(element_key(n.lhs), set.finish()));
      Document some = at(col, match), none = at(col, make_document("$not", match));
      if (n.kind == K::kHasAny) return {some, none};
      return {none, some};
    }
    case K::kExact: {
      // The prefilter window on the nearest double; only ever a positive conjunct (the
      // searcher refuses it under | and ~), so FALSE is never used. A scaled form
      // `a · x op c` is `x op c / a` (the comparison flips for a negative a); with a = 0 it
      // holds for every known x or for none, so its prefilter is "known".
      if (n.lhs_factor) {
        // `f · x op c` with a field factor: the window of a product (scaled_window).
        ScaledSide lhs{Rational(1), {paths.column(*n.lhs_factor), paths.column(n.lhs)}};
        ScaledSide rhs{n.values[0].as<Rational>(), {}};
        if (n.values.size() > 1) lhs.literal = n.values[1].as<Rational>();
        return {scaled_window(n.op, lhs, rhs), never_filter()};
      }
      std::string col = paths.column(n.lhs);
      CompareOp op = n.op;
      Value bound = n.values[0];
      if (n.values.size() > 1) {
        const Rational& a = n.values[1].as<Rational>();
        if (a.sign() == 0) return {known(col), never_filter()};
        bound = Value(n.values[0].as<Rational>() / a);
        if (a.sign() < 0) op = mirrored(op);
      }
      Document lv;
      try {
        lv = encode_literal(n.lhs, bound, context);
      } catch (const Error&) {
        // Beyond the doubles: no sound window to give the server; every known row is sent.
        if (n.values.size() > 1) return {known(col), never_filter()};
        throw;
      }
      switch (op) {
        case CompareOp::kEq:
          return {at(col, value_condition(CompareOp::kEq, lit(lv))), never_filter()};
        case CompareOp::kNe:
          return {known(col), never_filter()};
        case CompareOp::kLt:
        case CompareOp::kLe:
          return {at(col, value_condition(CompareOp::kLe, lit(lv))), never_filter()};
        case CompareOp::kGt:
        case CompareOp::kGe:
          return {at(col, value_condition(CompareOp::kGe, lit(lv))), never_filter()};
      }
      return {Document(), never_filter()};
    }
    case K::kExactField: {
      auto side = [&](const Value& literal, const std::optional<FieldPath>& factor,
                      const FieldPath& field) {
        ScaledSide out{literal.as<Rational>(), {}};
        if (factor) out.columns.push_back(paths.column(*factor));
        out.columns.push_back(paths.column(field));
        return out;
      };
      return {scaled_window(n.op, side(n.values[0], n.lhs_factor, n.lhs),
                            side(n.values[1], n.rhs_factor, n.rhs)),
              never_filter()};
    }
    case K::kString: {
      bool string_path =
          n.lhs.end == PathEnd::kContentId ||
          (n.lhs.end == PathEnd::kField && n.lhs.field_schema()->type.kind == FieldKind::kString);
      if (!string_path) {
        throw SchemaError(n.lhs.describe() + " is not a string field");
      }
      std::string col = paths.column(n.lhs);
      std::string pattern = literal_regex(n.string_op, n.text);
      bson::RegexView re{pattern, ""};
      DocumentBuilder t, f;
      t.open_document(col).append("$regex", re).close();
      f.open_document(col).append("$not", re).append("$ne", bson::Null{}).close();
      return {t.finish(), f.finish()};
    }
  }
  return {Document(), never_filter()};
}

}  // namespace mongostore::records
