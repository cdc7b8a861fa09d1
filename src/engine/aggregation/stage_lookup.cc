// $lookup: the equality form (localField/foreignField), the pipeline form with `let`, and
// both combined. The foreign collection is read through AggregationContext::read_collection.
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class LookupStage : public Stage {
 public:
  std::string from;
  std::vector<std::string> as;
  std::string local_field;  // empty: no equality part
  std::string foreign_field;
  std::vector<std::pair<std::string, ExprPtr>> let;
  std::optional<ForeignPipeline> pipeline;

  std::string_view name() const override { return "$lookup"; }

  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    std::shared_ptr<DocumentSource> in(std::move(input));
    auto self = std::static_pointer_cast<const LookupStage>(shared_from_this_copy());
    return std::make_unique<FunctionSource>([self, in, ctx]() -> std::optional<Document> {
      auto d = in->next();
      if (!d) return std::nullopt;
      return self->join(*d, *ctx);
    });
  }

  // The equality part of the join: foreign documents whose `foreign_field` equals the local
  // value, or any element of it when it is an array (missing and [] match null/missing).
  void append_equality(bson::DocumentBuilder& filter, Value local) const {
    filter.open_document(foreign_field);
    if (!local.is_array() && local.type() != BsonType::kRegex) {
      // One value: {$eq} rather than {$in: [v]}, so the planner turns a join on `_id` (the
      // common case) into a point lookup instead of a scan per input document.
      if (local.is_missing()) {
        filter.append("$eq", bson::Null{});
      } else {
        filter.append("$eq", local);
      }
    } else {
      filter.open_array("$in");
      bool any = false;
      if (local.is_array()) {
        for (const bson::Element& e : local.as_array()) {
          filter.push(e.value);
          any = true;
        }
      } else {
        filter.push(local);
        any = true;
      }
      if (!any) filter.push(bson::Null{});
      filter.close();
    }
    filter.close();
  }

  // Stages are owned by shared_ptr; a copy of this stage is cheap enough to keep alive.
  std::shared_ptr<const Stage> shared_from_this_copy() const {
    return std::make_shared<LookupStage>(*this);
  }

  Document join(const Document& doc, RunContext& ctx) const {
    bson::DocumentBuilder filter;
    if (!local_field.empty()) {
      std::vector<std::string> parts = split_path(local_field);
      OwnedValue local = traverse_path(document_as_value(doc), parts, 0);
      append_equality(filter, local.view());
    }
    Variables vars;
    if (pipeline) {
      vars = ctx.variables;
      EvalContext ec{doc, &ctx.variables};
      size_t before = ctx.variables.size();
      for (const auto& [name, e] : let) vars.emplace_back(name, e->eval(ec));
      ctx.variables.resize(before);
    }
    // The sub-pipeline's leading $match (this document's `let` values bound) joins the
    // equality part in the read's filter.
    std::optional<Document> leading = pipeline ? pipeline->read_filter(vars) : std::nullopt;
    if (leading) {
      const Document& match = *leading;
      bool clash = false;
      for (const bson::Element& e : match.view()) {
        if (!local_field.empty() && e.key == foreign_field) clash = true;
      }
      if (clash) {
        // Both constrain the same field: keep both, under $and.
        Document equality = filter.finish();
        filter = bson::DocumentBuilder();
        filter.open_array("$and").push(equality).push(match).close();
      } else {
        for (const bson::Element& e : match.view()) filter.append(e.key, e.value);
      }
    }
    Document f = filter.finish();
    std::unique_ptr<DocumentSource> foreign = read_foreign(ctx, "$lookup", from, f);
    std::vector<Document> matched =
        pipeline ? pipeline->run(std::move(foreign), ctx, vars) : drain(*foreign);
    bson::DocumentBuilder arr;
    arr.open_array("");
    size_t bytes = 0;
    for (const Document& m : matched) {
      bytes += m.size();
      if (bytes > 16 * 1024 * 1024) {
        fail(4568, "Total size of documents in " + from +
                       " matching pipeline's $lookup stage "
                       "exceeds 16793600 bytes");
      }
      arr.push(m);
    }
    arr.close();
    Document a = arr.finish();
    return set_path(doc, as, a.get(""));
  }
};

}  // namespace

StagePtr parse_lookup(const Value& spec) {
  if (!spec.is_document()) {
    fail(ErrorCode::kFailedToParse, "the $lookup specification must be an Object");
  }
  auto stage = std::make_shared<LookupStage>();
  bool has_as = false;
  bool has_from = false;
  std::optional<DocumentView> pipeline;
  for (const bson::Element& e : spec.as_document()) {
    auto need_string = [&](std::string* out) {
      if (e.value.type() != BsonType::kString) {
        fail(ErrorCode::kFailedToParse, "$lookup argument '" + std::string(e.key) +
                                            "' must be a string, is type " + type_name(e.value));
      }
      *out = std::string(e.value.as_string());
    };
    if (e.key == "from") {
      need_string(&stage->from);
      has_from = true;
    } else if (e.key == "as") {
      std::string as;
      need_string(&as);
      stage->as = split_path(as);
      has_as = true;
    } else if (e.key == "localField") {
      need_string(&stage->local_field);
    } else if (e.key == "foreignField") {
      need_string(&stage->foreign_field);
    } else if (e.key == "let") {
      if (!e.value.is_document()) {
        fail(ErrorCode::kFailedToParse,
             "$lookup argument 'let' must be an object, is type " + type_name(e.value));
      }
      for (const bson::Element& v : e.value.as_document()) {
        stage->let.emplace_back(std::string(v.key), parse_expression(v.value));
      }
    } else if (e.key == "pipeline") {
      if (!e.value.is_array()) {
        fail(ErrorCode::kFailedToParse,
             "$lookup argument 'pipeline' must be an array, is type " + type_name(e.value));
      }
      pipeline = e.value.as_array();
    } else {
      fail(ErrorCode::kFailedToParse, "unknown argument to $lookup: " + std::string(e.key));
    }
  }
  if (!has_from)
    fail(ErrorCode::kFailedToParse, "missing 'from' option to $lookup stage specification");
  if (!has_as) fail(ErrorCode::kFailedToParse, "must specify 'as' field for a $lookup");
  if (stage->local_field.empty() != stage->foreign_field.empty()) {
    fail(ErrorCode::kFailedToParse,
         "$lookup requires both or neither of 'localField' and 'foreignField' to be specified");
  }
  if (!pipeline && stage->local_field.empty()) {
    fail(ErrorCode::kFailedToParse,
         "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be "
         "specified");
  }
  if (!stage->let.empty() && !pipeline) {
    fail(ErrorCode::kFailedToParse, "$lookup with 'let' must also specify 'pipeline'");
  }
  if (pipeline) {
    Pipeline p = Pipeline::compile(*pipeline);
    if (p.writes_output()) {
      fail(51047, "$out/$merge is not allowed to be used within a $lookup stage");
    }
    stage->pipeline = ForeignPipeline::split(std::move(p));
  }
  return stage;
}

}  // namespace mongostore::engine::aggregation_detail
