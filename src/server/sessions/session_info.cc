#include "server/sessions/session_info.h"

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::server {
namespace {

using bson::BsonType;
using bson::Value;

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

}  // namespace

std::string parse_lsid(const Value& lsid, std::string_view field) {
  const std::string name(field);
  if (!lsid.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "BSON field '" + name + "' is the wrong type '" +
                                              type_of(lsid) + "', expected type 'object'");
  }
  std::string key;
  std::string uid;
  bool has_id = false;
  for (const bson::Element& e : lsid.as_document()) {
    if (e.key == "id") {
      if (e.value.type() != BsonType::kBinary || e.value.as_binary().subtype != 4 ||
          e.value.as_binary().bytes.size() != 16) {
        throw Error(ErrorCode::kTypeMismatch, "BSON field '" + name + ".id' is the wrong type '" +
                                                  type_of(e.value) +
                                                  "', expected a UUID (binData subtype 4)");
      }
      auto bytes = e.value.as_binary().bytes;
      key.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      has_id = true;
    } else if (e.key == "uid") {
      if (e.value.type() != BsonType::kBinary || e.value.as_binary().bytes.size() != 32) {
        throw Error(ErrorCode::kTypeMismatch, "BSON field '" + name + ".uid' is the wrong type '" +
                                                  type_of(e.value) +
                                                  "', expected a 32-byte binData");
      }
      auto bytes = e.value.as_binary().bytes;
      uid.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    } else {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field '" + name + "." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!has_id) {
    throw Error(40414, "BSON field '" + name + ".id' is missing but a required field");
  }
  return key + uid;
}

bson::Document lsid_document(const std::string& key) {
  auto bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), 16);
  bson::DocumentBuilder b;
  b.append("id", bson::BinaryView{4, bytes});
  return b.finish();
}

SessionInfo parse_session_info(const bson::DocumentView& cmd) {
  SessionInfo out;
  if (Value lsid = cmd.get("lsid"); !lsid.is_missing()) {
    out.lsid = parse_lsid(lsid, "OperationSessionInfo.lsid");
  }
  if (Value txn = cmd.get("txnNumber"); !txn.is_missing()) {
    int64_t n = 0;
    if (txn.type() != BsonType::kInt64 && txn.type() != BsonType::kInt32) {
      throw Error(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.txnNumber' is the wrong type '" + type_of(txn) +
                      "', expected types '[long, int]'");
    }
    txn.number_as_exact_int64(&n);
    if (n < 0) throw Error(ErrorCode::kBadValue, "TxnNumber cannot be negative");
    if (out.lsid.empty()) {
      throw Error(ErrorCode::kInvalidOptions,
                  "Transaction number requires a session ID to also be specified");
    }
    out.txn_number = n;
  }
  if (Value autocommit = cmd.get("autocommit"); !autocommit.is_missing()) {
    if (autocommit.type() != BsonType::kBool) {
      throw Error(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.autocommit' is the wrong type '" +
                      type_of(autocommit) + "', expected type 'bool'");
    }
    if (autocommit.as_bool()) {
      throw Error(ErrorCode::kInvalidOptions, "Specifying autocommit=true is not allowed.");
    }
    if (!out.txn_number) {
      throw Error(ErrorCode::kInvalidOptions,
                  "'autocommit' field requires a transaction number to also be specified");
    }
    out.in_transaction = true;
  }
  if (Value start = cmd.get("startTransaction"); !start.is_missing()) {
    if (start.type() != BsonType::kBool) {
      throw Error(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.startTransaction' is the wrong type '" +
                      type_of(start) + "', expected type 'bool'");
    }
    if (!start.as_bool()) {
      throw Error(ErrorCode::kInvalidOptions, "Specifying startTransaction=false is not allowed.");
    }
    if (!out.in_transaction) {
      throw Error(ErrorCode::kInvalidOptions,
                  "'startTransaction' field requires 'autocommit' field to also be specified");
    }
    out.start_transaction = true;
  }
  return out;
}

}  // namespace mongostore::server
