// $unwind: one output document per array element (string and document forms,
// includeArrayIndex, preserveNullAndEmptyArrays).
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class UnwindStage : public Stage {
 public:
  UnwindStage(std::vector<std::string> path, std::vector<std::string> index, bool preserve)
      : path_(std::move(path)), index_(std::move(index)), preserve_(preserve) {}
  std::string_view name() const override { return "$unwind"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext>) const override {
    struct State {
      std::shared_ptr<DocumentSource> in;
      std::optional<Document> current;
      std::vector<Value> elements;
      size_t pos = 0;
    };
    auto st = std::make_shared<State>();
    st->in = std::move(input);
    return std::make_unique<FunctionSource>(
        [st, path = path_, index = index_, preserve = preserve_]() -> std::optional<Document> {
          static const Document kNull = bson::make_document("", bson::Null{});
          while (true) {
            if (st->current && st->pos < st->elements.size()) {
              size_t i = st->pos++;
              Document out = set_path(*st->current, path, st->elements[i]);
              if (!index.empty()) {
                Document idx = bson::make_document("", static_cast<int64_t>(i));
                out = set_path(out, index, idx.get(""));
              }
              return out;
            }
            st->current = st->in->next();
            st->elements.clear();
            st->pos = 0;
            if (!st->current) return std::nullopt;
            Value v = get_path(*st->current, path);
            if (v.is_array() && !v.as_array().empty()) {
              st->elements = array_elements(v);
              continue;
            }
            bool nullish_or_empty = nullish(v) || v.is_array();
            if (!nullish_or_empty) {
              // A non-array value unwinds to itself.
              Document out = *st->current;
              if (!index.empty()) out = set_path(out, index, kNull.get(""));
              st->current.reset();
              return out;
            }
            if (!preserve) continue;
            Document out = *st->current;
            if (v.is_array()) out = set_path(out, path, Value());
            if (!index.empty()) out = set_path(out, index, kNull.get(""));
            st->current.reset();
            return out;
          }
        });
  }

 private:
  std::vector<std::string> path_;
  std::vector<std::string> index_;
  bool preserve_;
};

std::vector<std::string> unwind_path(const Value& v) {
  if (v.type() != BsonType::kString) {
    fail(28808, "expected a string as the path for $unwind stage, got " + type_name(v));
  }
  std::string_view s = v.as_string();
  if (s.empty()) fail(28812, "no path specified to $unwind stage");
  if (s[0] != '$') {
    fail(28818, "path option to $unwind stage should be prefixed with a '$': " + std::string(s));
  }
  s.remove_prefix(1);
  if (s.empty() || s[0] == '$') fail(16872, "'$' by itself is not a valid FieldPath");
  return split_path(s);
}

}  // namespace

StagePtr parse_unwind(const Value& spec) {
  if (spec.type() == BsonType::kString) {
    return std::make_shared<UnwindStage>(unwind_path(spec), std::vector<std::string>{}, false);
  }
  if (!spec.is_document()) {
    fail(15981, "expected either a string or an object as specification for $unwind stage, got " +
                    type_name(spec));
  }
  std::vector<std::string> path, index;
  bool preserve = false;
  bool has_path = false;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "path") {
      path = unwind_path(e.value);
      has_path = true;
    } else if (e.key == "includeArrayIndex") {
      if (e.value.type() != BsonType::kString || e.value.as_string().empty()) {
        fail(28810,
             "expected a non-empty string for the includeArrayIndex option to $unwind "
             "stage, got " +
                 type_name(e.value));
      }
      std::string_view s = e.value.as_string();
      if (s[0] == '$') {
        fail(28822,
             "includeArrayIndex option to $unwind stage should not be prefixed with a "
             "'$': " +
                 std::string(s));
      }
      index = split_path(s);
    } else if (e.key == "preserveNullAndEmptyArrays") {
      if (e.value.type() != BsonType::kBool) {
        fail(28809,
             "expected a boolean for the preserveNullAndEmptyArrays option to $unwind "
             "stage, got " +
                 type_name(e.value));
      }
      preserve = e.value.as_bool();
    } else {
      fail(28811, "unrecognized option to $unwind stage: " + std::string(e.key));
    }
  }
  if (!has_path) fail(28812, "no path specified to $unwind stage");
  return std::make_shared<UnwindStage>(std::move(path), std::move(index), preserve);
}

}  // namespace mongostore::engine::aggregation_detail
