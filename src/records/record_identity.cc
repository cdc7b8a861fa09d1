#include "records/record_identity.h"

#include "mongostore/records/content_id.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/schema.h"

namespace mongostore::records {

IdentityNode RecordIdentity::node(const FieldType& type, const Value& value) {
  if (value.is_null()) return IdentityNode::null();
  switch (type.kind) {
    case FieldKind::kInt:
      return IdentityNode::integer(value.as<int64_t>());
    case FieldKind::kString:
      return IdentityNode::string(value.as<std::string>());
    case FieldKind::kBool:
      return IdentityNode::boolean(value.as<bool>());
    case FieldKind::kBytes:
      return IdentityNode::bytes(value.as<Bytes>().data);
    case FieldKind::kFloat:
      return IdentityNode::floating(value.as<double>());
    case FieldKind::kRational:
      return IdentityNode::rational(value.as<Rational>());
    case FieldKind::kDateTime: {
      const DateTime& dt = value.as<DateTime>();
      DateTime::Fields f = dt.fields();
      IdentityNode::Datetime d{f.year,   f.month,       f.day,    f.hour, f.minute,
                               f.second, f.microsecond, dt.aware, 0};
      return IdentityNode::datetime(d);
    }
    case FieldKind::kDate: {
      const Date& d = value.as<Date>();
      return IdentityNode::date(d.year, d.month, d.day);
    }
    case FieldKind::kMatrix: {
      const RationalMatrix& m = value.as<RationalMatrix>();
      return IdentityNode::frac_vector(m.cells, {m.rows, m.cols});
    }
    case FieldKind::kReference:
      return IdentityNode::record_ref(content_id(*value.as<Value::RecordPtr>()));
    case FieldKind::kList: {
      std::vector<IdentityNode> items;
      const Value::List& list = value.as<Value::List>();
      items.reserve(list.size());
      for (const Value& item : list) items.push_back(node(*type.element, item));
      return type.tuple ? IdentityNode::tuple(std::move(items))
                        : IdentityNode::list(std::move(items));
    }
  }
  return IdentityNode::null();
}

IdentityNode RecordIdentity::record_node(const DynamicRecord& record) {
  const RecordSchema& schema = record.schema();
  std::vector<IdentityNode::Entry> fields;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const FieldSchema& f = schema.fields()[i];
    if (f.identity != Identity::kIncluded) continue;
    const Value& v = record.fields()[i];
    if (v.is_null() && !f.optional && f.type.kind != FieldKind::kList) {
      throw SchemaError(schema.identity_name() + "." + f.name + " cannot be None");
    }
    // A None child list is [] (reference §1.1), in the identity as in storage.
    if (v.is_null() && f.type.kind == FieldKind::kList) {
      fields.emplace_back(f.name, f.type.tuple ? IdentityNode::tuple({}) : IdentityNode::list({}));
      continue;
    }
    fields.emplace_back(f.name, node(f.type, v));
  }
  return IdentityNode::record(schema.identity_name(), std::move(fields));
}

const std::string& RecordIdentity::content_id(const DynamicRecord& record) {
  auto it = memo_.find(&record);
  if (it != memo_.end()) return it->second;
  std::string digest = records::content_id(record_node(record));
  return memo_.emplace(&record, std::move(digest)).first->second;
}

std::string RecordIdentity::content_id(const DynamicRecord& record,
                                       std::span<const IdentityNode::Entry> extras) {
  return records::content_id(record_node(record), extras);
}

}  // namespace mongostore::records
