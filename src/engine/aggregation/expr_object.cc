// Object expressions: $mergeObjects $getField $setField $unsetField $objectToArray
// $arrayToObject.
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

OwnedValue op_merge_objects(std::string_view, std::vector<OwnedValue>& a) {
  std::vector<std::pair<std::string, OwnedValue>> fields;
  for (size_t i = 0; i < a.size(); ++i) {
    Value v = a[i].view();
    if (nullish(v)) continue;
    if (!v.is_document()) {
      fail(40400, "$mergeObjects requires object inputs, but input " + render(v) + " is of type " +
                      type_name(v));
    }
    for (const bson::Element& e : v.as_document()) {
      bool found = false;
      for (auto& f : fields) {
        if (f.first == e.key) {
          f.second = OwnedValue(e.value);
          found = true;
          break;
        }
      }
      if (!found) fields.emplace_back(std::string(e.key), OwnedValue(e.value));
    }
  }
  bson::DocumentBuilder b;
  for (const auto& [k, v] : fields) append_value(b, k, v.view());
  return make_value(b.finish());
}

OwnedValue op_object_to_array(std::string_view, std::vector<OwnedValue>& a) {
  Value v = a[0].view();
  if (nullish(v)) return null_value();
  if (!v.is_document()) {
    fail(40390, "$objectToArray requires a document input, found: " + type_name(v));
  }
  bson::DocumentBuilder b;
  b.open_array("");
  for (const bson::Element& e : v.as_document()) {
    b.push_document().append("k", e.key).append("v", e.value).close();
  }
  b.close();
  Document d = b.finish();
  return OwnedValue(d.get(""));
}

OwnedValue op_array_to_object(std::string_view, std::vector<OwnedValue>& a) {
  Value v = a[0].view();
  if (nullish(v)) return null_value();
  if (!v.is_array()) {
    fail(40386, "$arrayToObject requires an array input, found: " + type_name(v));
  }
  std::vector<std::pair<std::string, Value>> fields;
  auto set = [&](std::string_view k, Value val) {
    if (k.find('\0') != std::string_view::npos) {
      fail(4940401, "Key field cannot contain an embedded null byte");
    }
    if (!k.empty() && k[0] == '$') {
      fail(5153300, "Key field cannot start with $: " + std::string(k));
    }
    for (auto& f : fields) {
      if (f.first == k) {
        f.second = val;
        return;
      }
    }
    fields.emplace_back(std::string(k), val);
  };
  int format = 0;  // 1: [k, v] pairs, 2: {k, v} documents
  for (const bson::Element& e : v.as_array()) {
    Value el = e.value;
    int this_format = el.is_array() ? 1 : (el.is_document() ? 2 : 0);
    if (this_format == 0) {
      fail(40398, "Unrecognised input type format for $arrayToObject: " + type_name(el));
    }
    if (format != 0 && format != this_format) {
      fail(40391,
           "All elements of the input array to $arrayToObject must be of the same "
           "shape");
    }
    format = this_format;
    if (format == 1) {
      std::vector<Value> pair = array_elements(el);
      if (pair.size() != 2) {
        fail(40397, "$arrayToObject requires an array of size 2 arrays,found array of size: " +
                        std::to_string(pair.size()));
      }
      if (pair[0].type() != BsonType::kString) {
        fail(40395,
             "$arrayToObject requires an array of key-value pairs, where the key must be "
             "of type string. Found key type: " +
                 type_name(pair[0]));
      }
      set(pair[0].as_string(), pair[1]);
    } else {
      DocumentView d = el.as_document();
      if (d.count() != 2 || !d.has("k") || !d.has("v")) {
        fail(40392,
             "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect "
             "number of keys:" +
                 std::to_string(d.count()));
      }
      Value k = d.get("k");
      if (k.type() != BsonType::kString) {
        fail(40394,
             "$arrayToObject requires an object with keys 'k' and 'v', where the value "
             "of 'k' must be of type string. Found type: " +
                 type_name(k));
      }
      set(k.as_string(), d.get("v"));
    }
  }
  bson::DocumentBuilder b;
  for (const auto& [k, val] : fields) b.append(k, val);
  return make_value(b.finish());
}

class GetFieldNode : public ExprNode {
 public:
  GetFieldNode(ExprPtr field, ExprPtr input) : field_(std::move(field)), input_(std::move(input)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue f = field_->eval(ctx);
    if (f.view().type() != BsonType::kString) {
      fail(3041704,
           "$getField requires 'field' to evaluate to type String, but got " + type_name(f.view()));
    }
    OwnedValue in = input_ ? input_->eval(ctx) : make_document_value(ctx.root);
    if (nullish(in.view())) return in.view().is_missing() ? OwnedValue() : null_value();
    if (!in.view().is_document()) return OwnedValue();
    return OwnedValue(in.view().as_document().get(f.view().as_string()));
  }

 private:
  ExprPtr field_, input_;
};

class SetFieldNode : public ExprNode {
 public:
  SetFieldNode(std::string field, ExprPtr input, ExprPtr value, bool unset)
      : field_(std::move(field)),
        input_(std::move(input)),
        value_(std::move(value)),
        unset_(unset) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = input_->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (!in.view().is_document()) {
      fail(4161105, std::string(unset_ ? "$unsetField" : "$setField") +
                        " requires 'input' to evaluate to type Object");
    }
    OwnedValue v = unset_ ? OwnedValue() : value_->eval(ctx);
    bson::DocumentBuilder b;
    bool done = false;
    for (const bson::Element& e : in.view().as_document()) {
      if (e.key == field_) {
        append_value(b, e.key, v.view());
        done = true;
      } else {
        b.append(e.key, e.value);
      }
    }
    if (!done) append_value(b, field_, v.view());
    return make_value(b.finish());
  }

 private:
  std::string field_;
  ExprPtr input_, value_;
  bool unset_;
};

ExprPtr parse_set_field(std::string_view name, const Value& args) {
  bool unset = name == "$unsetField";
  std::string op(name);
  if (!args.is_document()) fail(4161100, op + " only supports an object as its argument");
  std::string field;
  bool has_field = false;
  ExprPtr input, value;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "field") {
      Value f = e.value;
      if (f.is_document() && f.as_document().has("$literal")) f = f.as_document().get("$literal");
      if (f.type() != BsonType::kString) {
        fail(4161106, op + " requires 'field' to evaluate to a constant, but got a non-constant "
                           "argument");
      }
      field = std::string(f.as_string());
      has_field = true;
    } else if (e.key == "input") {
      input = parse_expression(e.value);
    } else if (!unset && e.key == "value") {
      value = parse_expression(e.value);
    } else {
      fail(4161101, op + " found an unknown argument: " + std::string(e.key));
    }
  }
  if (!has_field) fail(4161102, op + " requires 'field' to be specified");
  if (!input) fail(4161109, op + " requires 'input' to be specified");
  if (!unset && !value) fail(4161103, op + " requires 'value' to be specified");
  return std::make_shared<SetFieldNode>(field, input, value, unset);
}

ExprPtr parse_get_field(std::string_view, const Value& args) {
  if (args.is_document() && !args.as_document().empty() &&
      args.as_document().begin()->key[0] != '$') {
    ExprPtr field, input;
    for (const bson::Element& e : args.as_document()) {
      if (e.key == "field") {
        field = parse_expression(e.value);
      } else if (e.key == "input") {
        input = parse_expression(e.value);
      } else {
        fail(3041701, "$getField found an unknown argument: " + std::string(e.key));
      }
    }
    if (!field) fail(3041702, "$getField requires 'field' to be specified");
    return std::make_shared<GetFieldNode>(field, input);
  }
  return std::make_shared<GetFieldNode>(parse_expression(args), nullptr);
}

}  // namespace

void register_object(OperatorTable& t) {
  add_eager(t, "$mergeObjects", 0, -1, op_merge_objects);
  add_eager(t, "$objectToArray", 1, 1, op_object_to_array);
  add_eager(t, "$arrayToObject", 1, 1, op_array_to_object);
  t["$getField"] = parse_get_field;
  t["$setField"] = parse_set_field;
  t["$unsetField"] = parse_set_field;
}

}  // namespace mongostore::engine::aggregation_detail
