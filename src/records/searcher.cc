// The searcher (include/mongostore/records/searcher.h): declarations, the aggregation they
// compile to, and results. Keyset paging is in search_page.cc.
#include "mongostore/records/searcher.h"

#include <cstdint>
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "records/searcher_impl.h"
#include "records/stored_form.h"

namespace mongostore::records {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

int64_t timestamp_operand_ns(const TimestampOperand& operand) {
  if (const int64_t* ns = std::get_if<int64_t>(&operand)) return *ns;
  DateTime t;
  if (const DateTime* dt = std::get_if<DateTime>(&operand)) {
    t = *dt;
  } else {
    const std::string& text = std::get<std::string>(operand);
    try {
      t = DateTime::parse_iso(text);
    } catch (const SchemaError&) {
      throw Error(ErrorCode::kBadValue, "not an RFC 3339 timestamp: '" + text + "'");
    }
  }
  if (!t.aware) {
    throw Error(ErrorCode::kBadValue,
                "a naive datetime is not a point in store time: give its UTC offset");
  }
  // Nanoseconds in an int64 reach from 1677 to 2262: beyond, the product would overflow.
  if (t.micros > INT64_MAX / 1000 || t.micros < INT64_MIN / 1000) {
    throw Error(ErrorCode::kBadValue, "a store time outside 1677..2262 (" + t.iso() +
                                          ") is beyond nanoseconds since 1970 in 64 bits");
  }
  return t.micros * 1000;
}

RecordStore::SchemaPtr const& Searcher::Impl::root() const {
  if (vars.empty()) throw Error(ErrorCode::kBadValue, "the searcher has no variable");
  return vars[0];
}

Searcher::Impl::Impl(RecordStore& s, SearchOptions o) : store(&s), options(std::move(o)) {
  const RecordStoreOptions& so = s.options();
  literals.timestamp_resolution = so.store_timestamp_resolution;
  if (options.as_of) {
    if (!so.store_timestamps) {
      throw Error(ErrorCode::kBadValue, "as_of needs a store with store_timestamps");
    }
    int64_t ns = timestamp_operand_ns(*options.as_of);
    int64_t res = so.store_timestamp_resolution;
    int64_t q = ns / res;
    if (ns % res != 0 && ns < 0) --q;
    as_of_units = q;
  }
}

std::vector<Document> latest_only_stages(const std::string& collection, const std::string& tag,
                                         std::optional<int64_t> as_of_units) {
  DocumentBuilder later;
  later.append("$expr", make_document("$gt", make_array("$_id", "$$sid")));
  if (as_of_units) later.append("store_timestamp", make_document("$lte", *as_of_units));
  std::vector<Document> out;
  out.push_back(make_document(
      "$lookup",
      make_document(
          "from", collection, "let", make_document("lid", "$logical_id", "sid", "$_id"), "pipeline",
          make_array(
              make_document(
                  "$match",
                  make_document("$expr", make_document("$eq", make_array("$logical_id", "$$lid")))),
              make_document("$match", later.finish()), make_document("$limit", 1),
              make_document("$project", make_document("_id", 1))),
          "as", tag)));
  out.push_back(make_document("$match", make_document(tag, make_document("$eq", bson::Array()))));
  out.push_back(make_document("$unset", tag));
  return out;
}

namespace {

void flatten(const std::shared_ptr<const CondNode>& n,
             std::vector<std::shared_ptr<const CondNode>>* out) {
  if (n->kind == CondNode::Kind::kAnd) {
    for (const auto& c : n->children) flatten(c, out);
  } else {
    out->push_back(n);
  }
}

// Whether every path of `n` is a hop-free path of the root variable.
bool root_only(const CondNode& n) {
  auto plain = [](const FieldPath& p) { return p.var == 0 && p.hops.empty(); };
  switch (n.kind) {
    case CondNode::Kind::kTrue:
    case CondNode::Kind::kFalse:
      return true;
    case CondNode::Kind::kAnd:
    case CondNode::Kind::kOr:
    case CondNode::Kind::kNot:
      for (const auto& c : n.children) {
        if (!root_only(*c)) return false;
      }
      return true;
    case CondNode::Kind::kCompareField:
      return plain(n.lhs) && plain(n.rhs);
    case CondNode::Kind::kExact:
    case CondNode::Kind::kExactField:
      return plain(n.lhs) && (n.kind == CondNode::Kind::kExact || plain(n.rhs)) &&
             (!n.lhs_factor || plain(*n.lhs_factor)) && (!n.rhs_factor || plain(*n.rhs_factor));
    default:
      return plain(n.lhs);
  }
}

bool joinable(const FieldPath& p) {
  if (!p.hops.empty()) return false;
  const FieldSchema* f = p.field_schema();
  return !f || f->role() != FieldRole::kChild;
}

void check_var(const FieldPath& p, size_t vars) {
  if (p.var < 0 || static_cast<size_t>(p.var) >= vars) {
    throw Error(ErrorCode::kBadValue, p.describe() + " names a variable of another searcher");
  }
}

void check_paths(const CondNode& n, size_t vars) {
  switch (n.kind) {
    case CondNode::Kind::kTrue:
    case CondNode::Kind::kFalse:
      return;
    case CondNode::Kind::kAnd:
    case CondNode::Kind::kOr:
    case CondNode::Kind::kNot:
      for (const auto& c : n.children) check_paths(*c, vars);
      return;
    case CondNode::Kind::kCompareField:
      check_var(n.rhs, vars);
      [[fallthrough]];
    default:
      check_var(n.lhs, vars);
      if (n.kind == CondNode::Kind::kExactField) check_var(n.rhs, vars);
      if (n.lhs_factor) check_var(*n.lhs_factor, vars);
      if (n.rhs_factor) check_var(*n.rhs_factor, vars);
  }
}

}  // namespace

Searcher::Impl::Plan Searcher::Impl::plan() const {
  root();
  Plan plan;
  QueryPaths paths(as_of_units);
  std::vector<std::shared_ptr<const CondNode>> conjuncts;
  for (const Condition& c : conditions) {
    check_paths(c.node(), vars.size());
    flatten(c.ptr(), &conjuncts);
  }

  // Joins: every further variable is bound, through a positive conjunct `a == b` between a
  // bound variable and it, to a $lookup on that equality.
  struct Join {
    int var;
    std::string local, foreign;
  };
  std::vector<Join> joins;
  std::set<int> bound = {0};
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& c : conjuncts) {
      if (c->kind != CondNode::Kind::kCompareField || c->op != CompareOp::kEq) continue;
      if (!joinable(c->lhs) || !joinable(c->rhs)) continue;
      const FieldPath* in = &c->lhs;
      const FieldPath* out = &c->rhs;
      if (!bound.count(in->var)) std::swap(in, out);
      if (!bound.count(in->var) || bound.count(out->var)) continue;
      FieldPath local = *out;
      local.var = 0;
      QueryPaths scratch(std::nullopt);
      joins.push_back(Join{out->var, paths.column(*in), scratch.column(local)});
      bound.insert(out->var);
      progress = true;
    }
  }
  for (size_t v = 1; v < vars.size(); ++v) {
    if (!bound.count(static_cast<int>(v))) {
      throw UnsupportedQueryError(
          "variable v" + std::to_string(v) + " (" + vars[v]->identity_name() +
          ") is not joined to the root by a positive conjunctive predicate (ref == variable, "
          "or == between two variables' fields, outside | and ~): a disconnected cartesian "
          "product is not supported");
    }
  }

  auto visibility = [&](DocumentBuilder& b) {
    if (as_of_units) b.append("store_timestamp", make_document("$lte", *as_of_units));
    if (options.only_main_alt) b.append("alt_kind", make_document("$exists", false));
  };

  // The root's own filters first, where its indexes serve them.
  std::vector<Document> early, late;
  for (const auto& c : conjuncts) {
    if (c->kind == CondNode::Kind::kExact || c->kind == CondNode::Kind::kExactField) {
      plan.exact.push_back(c);
      plan.exact_prefixes.push_back(paths.owner_prefix(c->lhs));
      plan.exact_rhs_prefixes.push_back(
          c->kind == CondNode::Kind::kExactField ? paths.owner_prefix(c->rhs) : std::string());
      plan.exact_factor_prefixes.emplace_back(
          c->lhs_factor ? paths.owner_prefix(*c->lhs_factor) : std::string(),
          c->rhs_factor ? paths.owner_prefix(*c->rhs_factor) : std::string());
    }
    CompiledCondition cc = compile_condition(*c, paths, literals);
    (root_only(*c) ? early : late).push_back(std::move(cc.truth));
  }
  {
    DocumentBuilder b;
    visibility(b);
    Document vis = b.finish();
    std::vector<Document> parts;
    if (!vis.view().empty()) parts.push_back(vis);
    for (Document& d : early) {
      if (!d.view().empty()) parts.push_back(d);
    }
    if (!parts.empty()) {
      Document m = parts.size() == 1 ? parts[0] : [&] {
        DocumentBuilder a;
        a.open_array("$and");
        for (const Document& d : parts) a.push(d);
        a.close();
        return a.finish();
      }();
      plan.root_filter = m;
      plan.stages.push_back(make_document("$match", m));
    }
  }
  plan.root_filter_decides = !options.only_latest && joins.empty();
  plan.latest_decides = options.only_latest && joins.empty();
  if (options.only_latest) {
    for (Document& d : latest_only_stages(vars[0]->storage_name(), "_httk_latest_0", as_of_units)) {
      plan.stages.push_back(std::move(d));
    }
  }
  for (const Join& j : joins) {
    // The equality form (localField/foreignField) joins by a plain equality the engine
    // reads through the foreign column's index, where a `let`/`$expr` pipeline evaluates
    // and rewrites its $match for every row. Both columns hold scalars (a list is not
    // joinable), so the forms agree but on null: the equality form matches a null or
    // missing local value with null or missing foreign ones, and a null never joins.
    DocumentBuilder m;
    m.append(j.foreign, make_document("$ne", bson::Null{}));
    visibility(m);
    DocumentBuilder pipeline;
    pipeline.open_array("pipeline");
    pipeline.push(make_document("$match", m.finish()));
    if (options.only_latest) {
      for (Document& d : latest_only_stages(vars[j.var]->storage_name(),
                                            "_httk_latest_" + std::to_string(j.var), as_of_units)) {
        pipeline.push(d);
      }
    }
    pipeline.close();
    Document pl = pipeline.finish();
    std::string as = "_httk_var_" + std::to_string(j.var);
    DocumentBuilder lookup;
    lookup.open_document("$lookup")
        .append("from", vars[j.var]->storage_name())
        .append("localField", j.local)
        .append("foreignField", j.foreign)
        .append_elements(pl.view())
        .append("as", as)
        .close();
    plan.stages.push_back(lookup.finish());
    plan.stages.push_back(make_document(
        "$unwind", make_document("path", "$" + as, "preserveNullAndEmptyArrays", true)));
  }

  // Output and sort columns (they may add reference lookups too).
  for (const Output& o : effective_outputs()) {
    check_var(o.path, vars.size());
    // A field output is decoded from its owner's `f` (a matrix has no query column).
    plan.output_columns.push_back(o.path.end == PathEnd::kField ? std::string()
                                                                : paths.column(o.path));
    plan.output_prefixes.push_back(paths.owner_prefix(o.path));
  }
  for (const Sort& s : sorts) {
    check_var(s.path, vars.size());
    const FieldSchema* f = s.path.field_schema();
    if (f && f->role() == FieldRole::kChild) {
      throw UnsupportedQueryError(s.path.describe() + ": cannot sort on a list");
    }
    plan.sort_columns.push_back(paths.column(s.path));
  }
  plan.tie_columns.push_back("_id");
  for (const Join& j : joins) plan.tie_columns.push_back(QueryPaths::var_prefix(j.var) + "_id");

  for (Document& d : paths.reference_stages()) plan.stages.push_back(std::move(d));
  std::vector<Document> kept;
  for (Document& d : late) {
    if (!d.view().empty()) kept.push_back(std::move(d));
  }
  if (!kept.empty()) {
    plan.root_filter_decides = false;
    plan.latest_decides = false;
    DocumentBuilder a;
    if (kept.size() == 1) {
      plan.stages.push_back(make_document("$match", kept[0]));
    } else {
      a.open_array("$and");
      for (const Document& d : kept) a.push(d);
      a.close();
      plan.stages.push_back(make_document("$match", a.finish()));
    }
  }
  return plan;
}

std::vector<Searcher::Impl::Output> Searcher::Impl::effective_outputs() const {
  if (!outputs.empty()) return outputs;
  Output o;
  o.name = "record";
  o.record = true;
  o.path.var = 0;
  o.path.var_schema = root();
  o.path.owner = root();
  o.path.end = PathEnd::kSid;
  return {o};
}

std::vector<Document> Searcher::Impl::run(const std::vector<Document>& pipeline) const {
  std::vector<Document> rows =
      store->database().collection(root()->storage_name()).aggregate(pipeline)->to_vector();
  ++stats.queries;
  stats.rows_transferred += static_cast<int64_t>(rows.size());
  return rows;
}

Value Searcher::Impl::output_value(const Output& o, size_t i, const Plan& plan,
                                   bson::DocumentView row, const bson::Value& owner_f,
                                   const std::vector<Column>& field_columns) const {
  if (o.record || o.path.end != PathEnd::kField)
    return column_value(o, plan.output_columns[i], row);
  if (!owner_f.is_document()) return Value();
  return decode_field(owner_f.as_document(), *o.path.field_schema(), field_columns,
                      [this](const std::shared_ptr<const RecordSchema>& schema, int64_t sid) {
                        return store->fetch(schema, sid);
                      });
}

Value Searcher::Impl::column_value(const Output& o, const std::string& column,
                                   bson::DocumentView row) const {
  bson::Value v = row.get_path(column);
  if (o.record) {
    int64_t sid = 0;
    if (!v.number_as_exact_int64(&sid)) return Value();
    return Value(store->fetch(o.path.var_schema, sid));
  }
  switch (o.path.end) {
    case PathEnd::kSid:
    case PathEnd::kLogicalId: {
      int64_t n = 0;
      return v.number_as_exact_int64(&n) ? Value(n) : Value();
    }
    case PathEnd::kStoreTimestamp: {
      int64_t n = 0;
      return v.number_as_exact_int64(&n) ? Value(n * literals.timestamp_resolution) : Value();
    }
    case PathEnd::kContentId:
      return v.is_string() ? Value(std::string(v.as_string())) : Value();
    case PathEnd::kField:
      break;
  }
  return Value();  // a field output is decoded from its owner's `f` (output_value)
}

ResultSet Searcher::Impl::rows(const std::vector<Document>& documents) const {
  // Only the output columns are read; the plan is rebuilt to learn where they are.
  Plan p = plan();
  auto outs = effective_outputs();
  auto names = std::make_shared<std::vector<std::string>>();
  std::vector<bool> records;
  for (const Output& o : outs) {
    names->push_back(o.name);
    records.push_back(o.record);
  }
  // Where each field output's owner document `f` is: its path, and the first output with
  // the same owner (whose lookup the others share within a row). A field output's own column
  // is never read: it is decoded from `f`, through its columns. Found once per result set,
  // not once per value.
  std::vector<std::string> f_paths(outs.size());
  std::vector<size_t> f_slot(outs.size());
  std::vector<std::vector<Column>> field_columns(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    if (const FieldSchema* field = outs[i].path.field_schema(); field && !outs[i].record) {
      field_columns[i] = field->columns();
    }
    f_paths[i] = p.output_prefixes[i] + "f";
    f_slot[i] = i;
    for (size_t j = 0; j < i; ++j) {
      if (f_paths[j] == f_paths[i]) {
        f_slot[i] = j;
        break;
      }
    }
  }
  std::vector<bson::Value> f_of(outs.size());
  std::vector<bool> found(outs.size());
  std::vector<ResultRow> out;
  out.reserve(documents.size());
  for (const Document& d : documents) {
    bson::DocumentView row = d.view();
    std::fill(found.begin(), found.end(), false);
    std::vector<Value> values;
    values.reserve(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      const Output& o = outs[i];
      bool field = !o.record && o.path.end == PathEnd::kField;
      size_t slot = f_slot[i];
      if (field && !found[slot]) {
        f_of[slot] = p.output_prefixes[i].empty() ? row.get("f") : row.get_path(f_paths[i]);
        found[slot] = true;
      }
      values.push_back(
          output_value(o, i, p, row, field ? f_of[slot] : bson::Value(), field_columns[i]));
    }
    out.emplace_back(names, std::move(values));
  }
  return ResultSet(std::move(names), std::move(records), std::move(out));
}

namespace {
// The exact value of a rational or float field in a pipeline row (nullopt when null).
std::optional<Rational> exact_value(bson::DocumentView row, const std::string& prefix,
                                    const FieldPath& path) {
  bson::Value f = prefix.empty() ? row.get("f") : row.get_path(prefix + "f");
  if (!f.is_document()) return std::nullopt;  // unknown: never true
  Value v = decode_field(
      f.as_document(), *path.field_schema(),
      [](const std::shared_ptr<const RecordSchema>&, int64_t) { return Value::RecordPtr(); });
  if (v.is_null()) return std::nullopt;
  if (v.is<int64_t>()) return Rational(v.as<int64_t>());  // an int field factor
  return v.is<double>() ? Rational::from_double(v.as<double>()) : v.as<Rational>();
}

bool holds(CompareOp op, const Rational& x, const Rational& y) {
  switch (op) {
    case CompareOp::kEq:
      return x == y;
    case CompareOp::kNe:
      return !(x == y);
    case CompareOp::kLt:
      return x < y;
    case CompareOp::kLe:
      return x <= y;
    case CompareOp::kGt:
      return x > y;
    case CompareOp::kGe:
      return x >= y;
  }
  return false;
}
}  // namespace

bool Searcher::Impl::verified(const Plan& plan, bson::DocumentView row) const {
  for (size_t i = 0; i < plan.exact.size(); ++i) {
    const CondNode& n = *plan.exact[i];
    std::optional<Rational> x = exact_value(row, plan.exact_prefixes[i], n.lhs);
    if (!x) return false;
    // A field factor multiplies its side; a null one makes the comparison unknown.
    if (n.lhs_factor) {
      std::optional<Rational> f =
          exact_value(row, plan.exact_factor_prefixes[i].first, *n.lhs_factor);
      if (!f) return false;
      *x = *x * *f;
    }
    if (n.kind == CondNode::Kind::kExactField) {
      std::optional<Rational> y = exact_value(row, plan.exact_rhs_prefixes[i], n.rhs);
      if (!y) return false;
      if (n.rhs_factor) {
        std::optional<Rational> g =
            exact_value(row, plan.exact_factor_prefixes[i].second, *n.rhs_factor);
        if (!g) return false;
        *y = *y * *g;
      }
      if (!holds(n.op, n.values[0].as<Rational>() * *x, n.values[1].as<Rational>() * *y)) {
        return false;
      }
      continue;
    }
    Rational lhs = n.values.size() > 1 ? n.values[1].as<Rational>() * *x : *x;
    if (!holds(n.op, lhs, n.values[0].as<Rational>())) return false;
  }
  return true;
}

std::vector<Document> Searcher::Impl::verified_rows(const Plan& plan,
                                                    const std::vector<Document>& pipeline,
                                                    bool apply_window) const {
  std::vector<Document> out;
  int64_t skipped = 0;
  for (Document& d : run(pipeline)) {
    if (!verified(plan, d.view())) continue;
    if (apply_window && skipped < offset) {
      ++skipped;
      continue;
    }
    if (apply_window && limit && static_cast<int64_t>(out.size()) >= *limit) break;
    out.push_back(std::move(d));
  }
  return out;
}

// --- Searcher ------------------------------------------------------------------------------

Searcher RecordStore::searcher() {
  return Searcher(*this, SearchOptions{});
}
Searcher RecordStore::searcher(const SearchOptions& options) {
  return Searcher(*this, options);
}

Searcher::Searcher(RecordStore& store, SearchOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}
Searcher::Searcher(Searcher&&) noexcept = default;
Searcher& Searcher::operator=(Searcher&&) noexcept = default;
Searcher::~Searcher() = default;

Var Searcher::variable(const SchemaPtr& schema) {
  if (!schema) throw Error(ErrorCode::kBadValue, "variable of a null schema");
  impl_->vars.push_back(schema);
  return Var(static_cast<int>(impl_->vars.size() - 1), schema);
}

namespace {
// An exact (client-verified) node anywhere but in a positive conjunction has no sound server
// prefilter for its negation: refused.
void check_exact(const CondNode& n, bool positive) {
  bool exact = n.kind == CondNode::Kind::kExact || n.kind == CondNode::Kind::kExactField;
  if (exact && !positive) {
    throw UnsupportedQueryError(n.lhs.describe() +
                                ": an exact comparison must be a top-level conjunct (not under | "
                                "or ~)");
  }
  for (const auto& c : n.children) check_exact(*c, positive && n.kind == CondNode::Kind::kAnd);
}
}  // namespace

void Searcher::add(const Condition& condition) {
  // Compiled once here so a bad field or literal is refused where it is added.
  check_paths(condition.node(), impl_->vars.size());
  check_exact(condition.node(), true);
  QueryPaths scratch(std::nullopt);
  compile_condition(condition.node(), scratch, impl_->literals);
  impl_->conditions.push_back(condition);
}

namespace {
void check_name(const std::vector<Searcher::Impl::Output>& outputs, const std::string& name) {
  if (name.empty()) throw Error(ErrorCode::kBadValue, "an output needs a name");
  for (const auto& o : outputs) {
    if (o.name == name) throw Error(ErrorCode::kBadValue, "output '" + name + "' declared twice");
  }
}
}  // namespace

void Searcher::output(const Var& var, std::string name) {
  check_name(impl_->outputs, name);
  Impl::Output o;
  o.name = std::move(name);
  o.record = true;
  o.path = var.sid().path();
  impl_->outputs.push_back(std::move(o));
}

void Searcher::output(const FieldRef& field, std::string name) {
  check_name(impl_->outputs, name);
  const FieldSchema* f = field.path().field_schema();
  if (f && f->role() == FieldRole::kFixedArray) {
    // A fixed matrix decodes from its own columns; it is an output, never a query column.
  }
  Impl::Output o;
  o.name = std::move(name);
  o.path = field.path();
  impl_->outputs.push_back(std::move(o));
}

void Searcher::add_sort(const FieldRef& field, bool descending, Nulls nulls) {
  impl_->sorts.push_back(Impl::Sort{field.path(), descending, nulls});
}

void Searcher::set_limit(int64_t n) {
  if (n < 0) throw Error(ErrorCode::kBadValue, "a limit must not be negative");
  impl_->limit = n;
}

void Searcher::add_offset(int64_t n) {
  if (n < 0) throw Error(ErrorCode::kBadValue, "an offset must not be negative");
  impl_->offset += n;
}

int64_t Searcher::count() {
  impl_->stats = SearchStats{};
  Impl::Plan plan = impl_->plan();
  if (!plan.exact.empty()) {
    return static_cast<int64_t>(impl_->verified_rows(plan, plan.stages, false).size());
  }
  std::vector<Document> p = plan.stages;
  p.push_back(make_document("$count", "n"));
  auto docs = impl_->run(p);
  if (docs.empty()) return 0;
  int64_t n = 0;
  docs[0].view().get("n").number_as_exact_int64(&n);
  return n;
}

std::vector<Document> Searcher::pipeline() {
  Impl::Plan plan = impl_->plan();
  std::vector<Document> p = plan.stages;
  DocumentBuilder ranks;
  DocumentBuilder sort;
  std::set<std::string> used;
  for (size_t i = 0; i < impl_->sorts.size(); ++i) {
    const Impl::Sort& s = impl_->sorts[i];
    const std::string& col = plan.sort_columns[i];
    std::string rank = "_httk_sort_" + std::to_string(i) + "_rank";
    int r = s.nulls == Nulls::kFirst ? 0 : 1;
    ranks.append(
        rank,
        make_document("$cond", make_array(make_document("$gt", make_array("$" + col, bson::Null{})),
                                          1 - r, r)));
    sort.append(rank, 1);
    if (used.insert(col).second) sort.append(col, s.descending ? -1 : 1);
  }
  for (const std::string& t : plan.tie_columns) {
    if (used.insert(t).second) sort.append(t, 1);
  }
  if (!impl_->sorts.empty()) p.push_back(make_document("$addFields", ranks.finish()));
  p.push_back(make_document("$sort", sort.finish()));
  // With exact conjuncts the offset and limit apply after the client's verification.
  if (plan.exact.empty()) {
    if (impl_->offset > 0) p.push_back(make_document("$skip", impl_->offset));
    if (impl_->limit) p.push_back(make_document("$limit", *impl_->limit));
  }
  return p;
}

ResultSet Searcher::results() {
  impl_->stats = SearchStats{};
  if (impl_->limit && *impl_->limit == 0) return impl_->rows({});
  Impl::Plan plan = impl_->plan();
  if (!plan.exact.empty()) return impl_->rows(impl_->verified_rows(plan, pipeline(), true));
  return impl_->rows(impl_->run(pipeline()));
}

const SearchStats& Searcher::stats() const {
  return impl_->stats;
}

const std::string& Searcher::collection() const {
  return impl_->root()->storage_name();
}

}  // namespace mongostore::records
