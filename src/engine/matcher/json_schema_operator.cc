// The $jsonSchema query operator: {$jsonSchema: {...}} matches the documents the schema
// accepts. It tests whole documents, so it may appear where a filter tests a document (top
// level, $and/$or/$nor entries, object-form $elemMatch), never under a field.
#include "engine/matcher/expression.h"
#include "engine/matcher/json_schema.h"
#include "mongostore/error.h"

namespace mongostore::engine::matcher_detail {

namespace {

class JsonSchemaNode final : public Node {
 public:
  explicit JsonSchemaNode(std::unique_ptr<const JsonSchema> schema) : schema_(std::move(schema)) {}
  bool matches(const Input& in, std::optional<size_t>*) const override {
    return !in.is_value && schema_->matches_document(in.document);
  }

 private:
  std::unique_ptr<const JsonSchema> schema_;
};

}  // namespace

NodePtr make_json_schema(const bson::Value& schema) {
  if (!schema.is_document()) throw Error(ErrorCode::kTypeMismatch, "$jsonSchema must be an object");
  return std::make_unique<JsonSchemaNode>(JsonSchema::compile(schema.as_document()));
}

}  // namespace mongostore::engine::matcher_detail
