#include "server/generic_arguments.h"

#include <algorithm>
#include <array>
#include <string>

#include "mongostore/error.h"

namespace mongostore::server {
namespace {

using bson::BsonType;
using bson::Value;

// The generic arguments mongostore knows. Internal ones mongod accepts only from other
// cluster members ($replData, shardVersion, ...) are not here: a client never sends them, and
// they fail as unknown fields.
constexpr std::array<std::string_view, 14> kGeneric = {
    "$db",         "lsid",         "$clusterTime", "$readPreference",      "comment",
    "maxTimeMS",   "apiVersion",   "apiStrict",    "apiDeprecationErrors", "txnNumber",
    "readConcern", "writeConcern", "autocommit",   "startTransaction"};

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

std::string timestamp_text(bson::Timestamp t) {
  return "Timestamp(" + std::to_string(t.seconds) + ", " + std::to_string(t.increment) + ")";
}

bool is_bool_or_number(const Value& v) {
  return v.type() == BsonType::kBool || v.is_number();
}

// Returns the writeConcernError a replica set answers with (the write itself happens).
std::optional<Error> check_w(const Value& w, const ConcernContext& context) {
  if (w.is_number()) {
    int64_t n = 0;
    if (!w.number_as_exact_int64(&n) || n < 0 || n > 50) {
      throw Error(
          ErrorCode::kFailedToParse,
          "w has to be a non-negative number and not greater than 50; found: " + w.to_json());
    }
    // One member: waiting for more could never end (mongod's own answers).
    if (n > 1) {
      if (context.replica_set) {
        return Error(ErrorCode::kUnsatisfiableWriteConcern, "Not enough data-bearing nodes");
      }
      throw Error(ErrorCode::kBadValue, "cannot use 'w' > 1 when a host is not replicated");
    }
    return std::nullopt;
  }
  if (w.is_string()) {
    if (w.as_string() == "majority") return std::nullopt;  // a majority of one is that one
    if (context.replica_set) {
      return Error(ErrorCode::kUnknownReplWriteConcern, "No write concern mode named '" +
                                                            std::string(w.as_string()) +
                                                            "' found in replica set configuration");
    }
    throw Error(ErrorCode::kBadValue, "cannot use non-majority 'w' mode " +
                                          std::string(w.as_string()) +
                                          " when a host is not a member of a replica set");
  }
  if (w.is_document()) {  // a tag set ({dc: 2}): tags exist only in a replica set config
    if (context.replica_set) {
      return Error(
          ErrorCode::kUnknownReplWriteConcern,
          "No write concern mode named '" + w.to_json() + "' found in replica set configuration");
    }
    throw Error(ErrorCode::kBadValue, "cannot use non-majority 'w' mode " + w.to_json() +
                                          " when a host is not a member of a replica set");
  }
  throw Error(ErrorCode::kFailedToParse,
              "w has to be a number, string, or object; found type " + type_of(w));
}

}  // namespace

bool is_generic_argument(std::string_view field) {
  return std::find(kGeneric.begin(), kGeneric.end(), field) != kGeneric.end();
}

std::optional<Error> check_write_concern(const Value& wc, const ConcernContext& context) {
  if (!wc.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "BSON field 'writeConcern' is the wrong type '" +
                                              type_of(wc) + "', expected type 'object'");
  }
  bool j = false, fsync = false;
  std::optional<Error> unsatisfiable;
  for (const bson::Element& e : wc.as_document()) {
    if (e.key == "w") {
      unsatisfiable = check_w(e.value, context);
    } else if (e.key == "j" || e.key == "fsync") {
      if (!is_bool_or_number(e.value)) {
        throw Error(ErrorCode::kFailedToParse,
                    std::string(e.key) + " must be numeric or a boolean value");
      }
      (e.key == "j" ? j : fsync) = e.value.truthy();
    } else if (e.key == "wtimeout" || e.key == "wtimeoutMS") {
      // Honoured: a standalone acknowledges without waiting for other members, so the
      // timeout can never expire.
      if (!e.value.is_number()) {
        throw Error(ErrorCode::kFailedToParse, std::string(e.key) + " must be a number");
      }
    } else if (e.key == "provenance" || e.key == "getLastError") {
      // Recorded by mongod, without effect on the write.
    } else {
      throw Error(ErrorCode::kFailedToParse,
                  "unrecognized write concern field: " + std::string(e.key));
    }
  }
  if (j && fsync) {
    throw Error(ErrorCode::kFailedToParse, "fsync and j options cannot be used together");
  }
  return unsatisfiable;
}

void check_read_concern(const Value& rc, const ConcernContext& context) {
  if (!rc.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "BSON field 'readConcern' is the wrong type '" +
                                              type_of(rc) + "', expected type 'object'");
  }
  for (const bson::Element& e : rc.as_document()) {
    if (e.key == "level") {
      if (!e.value.is_string()) {
        throw Error(ErrorCode::kTypeMismatch, "BSON field 'readConcern.level' is the wrong type '" +
                                                  type_of(e.value) + "', expected type 'string'");
      }
      std::string_view level = e.value.as_string();
      if (level == "local" || level == "available" || level == "majority") {
        continue;  // one member: what it has committed is the majority-committed state
      }
      if (context.replica_set && level == "linearizable") continue;
      if (context.replica_set && level == "snapshot") {
        if (context.in_transaction) continue;
        throw Error(ErrorCode::kNotImplemented,
                    "readConcern level snapshot outside a transaction is not supported by "
                    "mongostore");
      }
      if (level == "linearizable" || level == "snapshot") {
        throw Error(ErrorCode::kNotAReplicaSet,
                    "node needs to be a replica set member to use read concern level " +
                        std::string(level));
      }
      throw Error(ErrorCode::kBadValue,
                  "Enumeration value '" + std::string(level) +
                      "' for field 'readConcern.level' is not a valid value.");
    } else if (e.key == "afterClusterTime" && context.replica_set) {
      if (e.value.type() != BsonType::kTimestamp) {
        throw Error(ErrorCode::kTypeMismatch,
                    "BSON field 'readConcern.afterClusterTime' is the wrong type '" +
                        type_of(e.value) + "', expected type 'timestamp'");
      }
      bson::Timestamp t = e.value.as_timestamp();
      if (t == bson::Timestamp{}) {
        throw Error(ErrorCode::kInvalidOptions,
                    "readConcern afterClusterTime cannot be a null timestamp");
      }
      // Every time this server handed out is reached already: there is nothing to wait for.
      // A later one was never handed out by it, and waiting for it could be forever.
      if (t > context.cluster_time) {
        throw Error(ErrorCode::kInvalidOptions,
                    "readConcern afterClusterTime value must not be greater than the current "
                    "clusterTime. Requested clusterTime: " +
                        timestamp_text(t) +
                        "; current clusterTime: " + timestamp_text(context.cluster_time));
      }
    } else if (e.key == "afterClusterTime" || e.key == "atClusterTime" || e.key == "afterOpTime") {
      // mongostore reports no operationTime or $clusterTime, so there is no time to wait for.
      throw Error(ErrorCode::kNotImplemented,
                  "readConcern." + std::string(e.key) + " is not supported by mongostore");
    } else if (e.key != "provenance") {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'readConcern." + std::string(e.key) + "' is an unknown field.");
    }
  }
}

GenericArguments check_generic_arguments(const bson::DocumentView& cmd,
                                         const GenericArgumentRules& rules) {
  const std::string name(rules.command);
  const ConcernContext context{rules.replica_set, rules.in_transaction, rules.cluster_time};
  GenericArguments out;
  if (Value wc = cmd.get("writeConcern"); !wc.is_missing()) {
    if (!rules.write_concern) {
      throw Error(ErrorCode::kInvalidOptions, "Command " + name + " does not support writeConcern");
    }
    out.write_concern_error = check_write_concern(wc, context);
    out.write_concern = wc;
  }
  if (Value rc = cmd.get("readConcern"); !rc.is_missing()) {
    if (!rules.read_concern) {
      throw Error(ErrorCode::kInvalidOptions, "Command " + name + " does not support readConcern");
    }
    check_read_concern(rc, context);
    out.read_concern = rc;
  }
  if (Value t = cmd.get("maxTimeMS"); !t.is_missing()) {
    int64_t ms = 0;
    if (!t.is_number() || !t.number_as_exact_int64(&ms) || ms < 0 || ms > INT32_MAX) {
      throw Error(ErrorCode::kBadValue,
                  t.to_json() + " value for maxTimeMS is out of range [0, 2147483647]");
    }
  }
  Value version = cmd.get("apiVersion");
  Value strict = cmd.get("apiStrict");
  Value deprecation = cmd.get("apiDeprecationErrors");
  if (version.is_missing()) {
    if (!strict.is_missing() || !deprecation.is_missing()) {
      throw Error(ErrorCode::kAPIVersionError,
                  "Provided apiStrict or apiDeprecationErrors without providing apiVersion");
    }
  } else {
    if (!version.is_string() || version.as_string() != "1") {
      throw Error(ErrorCode::kAPIVersionError,
                  "API version must be \"1\"; found " + version.to_json());
    }
    if (!strict.is_missing() && strict.type() != BsonType::kBool) {
      throw Error(ErrorCode::kTypeMismatch, "BSON field 'apiStrict' is the wrong type '" +
                                                type_of(strict) + "', expected type 'bool'");
    }
    if (!deprecation.is_missing() && deprecation.type() != BsonType::kBool) {
      throw Error(ErrorCode::kTypeMismatch,
                  "BSON field 'apiDeprecationErrors' is the wrong type '" + type_of(deprecation) +
                      "', expected type 'bool'");
    }
    if (strict.truthy() && !rules.api_v1) {
      throw Error(ErrorCode::kAPIStrictError,
                  "Provided apiStrict:true, but the command " + name + " is not in API Version 1");
    }
  }
  return out;
}

}  // namespace mongostore::server
