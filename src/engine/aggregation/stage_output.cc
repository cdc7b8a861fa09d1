// Output stages: $out (replace a collection) and $merge (per-document upsert with
// whenMatched / whenNotMatched), through the AggregationContext callbacks.
#include "engine/aggregation/internal.h"
#include "mongostore/duplicate_key_error.h"

namespace mongostore::engine::aggregation_detail {

namespace {

std::string collection_name(const Value& v, std::string_view stage, std::string_view field) {
  if (v.type() == BsonType::kString) {
    if (v.as_string().empty()) fail(73, "Invalid " + std::string(stage) + " target namespace");
    return std::string(v.as_string());
  }
  if (v.is_document()) {
    Value coll = v.as_document().get("coll");
    if (coll.type() != BsonType::kString || coll.as_string().empty()) {
      fail(ErrorCode::kFailedToParse, "BSON field '" + std::string(stage) + "." +
                                          std::string(field) +
                                          ".coll' is missing but a required field");
    }
    return std::string(coll.as_string());
  }
  fail(ErrorCode::kFailedToParse, std::string(stage) + " '" + std::string(field) +
                                      "' must be a string or an object, found " + type_name(v));
}

class OutStage : public Stage {
 public:
  explicit OutStage(std::string coll) : coll_(std::move(coll)) {}
  std::string_view name() const override { return "$out"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    if (!ctx->context->replace_collection) {
      fail(1, "$out needs collection access, which this aggregation context does not offer");
    }
    // The documents stream from the pipeline into the target as they are written: $out
    // holds no more than the engine's write batch.
    FunctionSource documents([&input]() -> std::optional<Document> {
      std::optional<Document> d = input->next();
      if (d && !d->has("_id")) {
        bson::DocumentBuilder b;
        b.append("_id", bson::ObjectId::generate());
        b.append_elements(*d);
        d = b.finish();
      }
      return d;
    });
    ctx->context->replace_collection(coll_, documents);
    return make_vector_source({});
  }

 private:
  std::string coll_;
};

enum class WhenMatched { kReplace, kKeepExisting, kMerge, kFail, kPipeline };
enum class WhenNotMatched { kInsert, kDiscard, kFail };

class MergeStage : public Stage {
 public:
  std::string into;
  std::vector<std::string> on{"_id"};
  std::vector<std::pair<std::string, ExprPtr>> let;
  WhenMatched when_matched = WhenMatched::kMerge;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  std::optional<Pipeline> pipeline;

  std::string_view name() const override { return "$merge"; }

  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    if (!ctx->context->merge_document) {
      fail(1, "$merge needs collection access, which this aggregation context does not offer");
    }
    while (auto d = input->next()) merge_one(std::move(*d), *ctx);
    return make_vector_source({});
  }

  void merge_one(Document doc, RunContext& ctx) const {
    if (!doc.has("_id")) {
      bson::DocumentBuilder b;
      b.append("_id", bson::ObjectId::generate());
      b.append_elements(doc);
      doc = b.finish();
    }
    bson::DocumentBuilder filter;
    for (const std::string& f : on) {
      Value v = get_path(doc, split_path(f));
      if (nullish(v) || v.is_array()) {
        fail(51132, "$merge write error: 'on' field '" + f +
                        "' cannot be missing, null, undefined or an array");
      }
      filter.append(f, v);
    }
    Document filter_doc = filter.finish();
    Variables vars = ctx.variables;
    if (when_matched == WhenMatched::kPipeline) {
      EvalContext ec{doc, &ctx.variables};
      size_t before = ctx.variables.size();
      if (let.empty()) {
        vars.emplace_back("new", make_document_value(doc));
      } else {
        for (const auto& [name, e] : let) vars.emplace_back(name, e->eval(ec));
      }
      ctx.variables.resize(before);
    }
    MergeDecision decide = [&](std::optional<DocumentView> existing) -> std::optional<Document> {
      if (!existing) {
        switch (when_not_matched) {
          case WhenNotMatched::kInsert:
            return doc;
          case WhenNotMatched::kDiscard:
            return std::nullopt;
          default:
            fail(13113,
                 "$merge could not find a matching document in the target collection "
                 "for at least one document in the source collection");
        }
      }
      switch (when_matched) {
        case WhenMatched::kReplace: {
          // The stored document keeps its _id.
          bson::DocumentBuilder b;
          b.append("_id", existing->get("_id"));
          for (const bson::Element& e : doc) {
            if (e.key != "_id") b.append(e.key, e.value);
          }
          return b.finish();
        }
        case WhenMatched::kKeepExisting:
          return std::nullopt;
        case WhenMatched::kMerge: {
          bson::DocumentBuilder b;
          for (const bson::Element& e : *existing) {
            if (e.key == "_id") {
              b.append(e.key, e.value);
              continue;
            }
            Value nv = doc.get(e.key);
            b.append(e.key, nv.is_missing() ? e.value : nv);
          }
          for (const bson::Element& e : doc) {
            if (!existing->has(e.key)) b.append(e.key, e.value);
          }
          return b.finish();
        }
        case WhenMatched::kFail: {
          // As mongod reports it: the `on` fields as the key pattern, their values as the key.
          bson::DocumentBuilder pattern;
          for (const std::string& f : on) pattern.append(f, 1);
          throw DuplicateKeyError(
              "$merge failed due to a DuplicateKey error: E11000 duplicate key error "
              "collection: " +
                  into + " key: " + filter_doc.to_json(),
              pattern.finish(), filter_doc);
        }
        default: {
          std::vector<Document> one;
          one.push_back(Document::copy_of(*existing));
          auto out = pipeline->run(make_vector_source(std::move(one)), *ctx.context, vars);
          auto r = out->next();
          if (!r) return std::nullopt;
          if (r->get("_id").is_missing() ||
              !bson::values_equal(r->get("_id"), existing->get("_id"))) {
            bson::DocumentBuilder b;
            b.append("_id", existing->get("_id"));
            for (const bson::Element& e : *r) {
              if (e.key != "_id") b.append(e.key, e.value);
            }
            return b.finish();
          }
          return r;
        }
      }
    };
    ctx.context->merge_document(into, filter_doc, decide);
  }
};

}  // namespace

StagePtr parse_out(const Value& spec) {
  return std::make_shared<OutStage>(collection_name(spec, "$out", "coll"));
}

StagePtr parse_merge(const Value& spec) {
  auto stage = std::make_shared<MergeStage>();
  if (spec.type() == BsonType::kString) {
    stage->into = collection_name(spec, "$merge", "into");
    return stage;
  }
  if (!spec.is_document()) {
    fail(51182, "$merge only supports a string or object argument, not " + type_name(spec));
  }
  bool has_into = false;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "into") {
      stage->into = collection_name(e.value, "$merge", "into");
      has_into = true;
    } else if (e.key == "on") {
      stage->on.clear();
      if (e.value.type() == BsonType::kString) {
        stage->on.emplace_back(e.value.as_string());
      } else if (e.value.is_array()) {
        for (const bson::Element& f : e.value.as_array()) {
          if (f.value.type() != BsonType::kString) {
            fail(51134,
                 "$merge 'on' array elements must be strings, but found " + type_name(f.value));
          }
          stage->on.emplace_back(f.value.as_string());
        }
        if (stage->on.empty())
          fail(51187, "If explicitly specifying $merge 'on', must include at least one field");
      } else {
        fail(51186,
             "$merge 'on' field  must be either a string or an array of strings, but found " +
                 type_name(e.value));
      }
    } else if (e.key == "let") {
      if (!e.value.is_document()) {
        fail(ErrorCode::kTypeMismatch, "BSON field '$merge.let' is the wrong type '" +
                                           type_name(e.value) + "', expected type 'object'");
      }
      for (const bson::Element& v : e.value.as_document()) {
        stage->let.emplace_back(std::string(v.key), parse_expression(v.value));
      }
    } else if (e.key == "whenMatched") {
      if (e.value.is_array()) {
        stage->when_matched = WhenMatched::kPipeline;
        stage->pipeline = Pipeline::compile(e.value.as_array());
      } else if (e.value.type() == BsonType::kString) {
        std::string_view m = e.value.as_string();
        if (m == "replace") {
          stage->when_matched = WhenMatched::kReplace;
        } else if (m == "keepExisting") {
          stage->when_matched = WhenMatched::kKeepExisting;
        } else if (m == "merge") {
          stage->when_matched = WhenMatched::kMerge;
        } else if (m == "fail") {
          stage->when_matched = WhenMatched::kFail;
        } else {
          fail(ErrorCode::kBadValue, "Enumeration value '" + std::string(m) +
                                         "' for field '$merge.whenMatched' is not a valid value.");
        }
      } else {
        fail(ErrorCode::kTypeMismatch, "BSON field '$merge.whenMatched' is the wrong type '" +
                                           type_name(e.value) +
                                           "', expected type 'string or array'");
      }
    } else if (e.key == "whenNotMatched") {
      std::string_view m = e.value.type() == BsonType::kString ? e.value.as_string() : "";
      if (m == "insert") {
        stage->when_not_matched = WhenNotMatched::kInsert;
      } else if (m == "discard") {
        stage->when_not_matched = WhenNotMatched::kDiscard;
      } else if (m == "fail") {
        stage->when_not_matched = WhenNotMatched::kFail;
      } else {
        fail(ErrorCode::kBadValue, "Enumeration value '" + std::string(m) +
                                       "' for field '$merge.whenNotMatched' is not a valid value.");
      }
    } else {
      fail(40415, "BSON field '$merge." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!has_into) fail(40414, "BSON field '$merge.into' is missing but a required field");
  if (!stage->let.empty() && stage->when_matched != WhenMatched::kPipeline) {
    static const char* kModes[] = {"replace", "keepExisting", "merge", "fail", "pipeline"};
    fail(51199, std::string("Cannot use 'let' variables with 'whenMatched: ") +
                    kModes[static_cast<int>(stage->when_matched)] + "' mode");
  }
  return stage;
}

}  // namespace mongostore::engine::aggregation_detail
