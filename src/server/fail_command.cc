#include "server/fail_command.h"

#include <algorithm>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::server {
namespace {

using bson::Value;

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

int64_t whole_number(const Value& v, std::string_view field) {
  int64_t n = 0;
  if (!v.is_number() || !v.number_as_exact_int64(&n)) {
    throw Error(ErrorCode::kTypeMismatch,
                "'" + std::string(field) + "' must be a whole number, found " + type_of(v));
  }
  if (n < 0) throw Error(ErrorCode::kBadValue, "'" + std::string(field) + "' must be >= 0");
  return n;
}

bool boolean(const Value& v, std::string_view field) {
  if (v.type() != bson::BsonType::kBool) {
    throw Error(ErrorCode::kTypeMismatch, "'" + std::string(field) + "' must be a boolean");
  }
  return v.as_bool();
}

}  // namespace

int64_t FailCommand::configure(const Value& mode, const Value& data) {
  // Parse everything first: a malformed request changes nothing.
  bool on = true;
  int64_t times = -1, skip = 0;
  if (mode.is_string() && mode.as_string() == "alwaysOn") {
  } else if (mode.is_string() && mode.as_string() == "off") {
    on = false;
  } else if (mode.is_document()) {
    bson::DocumentView m = mode.as_document();
    for (const bson::Element& e : m) {
      if (e.key == "times") {
        times = whole_number(e.value, "times");
      } else if (e.key == "skip") {
        skip = whole_number(e.value, "skip");
      } else if (e.key == "activationProbability") {
        throw Error(ErrorCode::kNotImplemented,
                    "fail point mode activationProbability is not supported by mongostore");
      } else {
        throw Error(ErrorCode::kBadValue, "unknown fail point mode: " + std::string(e.key));
      }
    }
    if (m.has("times") && m.has("skip")) {
      throw Error(ErrorCode::kNotImplemented,
                  "fail point modes times and skip together are not supported by mongostore");
    }
    if (times == 0) on = false;
  } else {
    throw Error(
        ErrorCode::kBadValue,
        "'mode' must be \"alwaysOn\", \"off\", {times: n} or {skip: n}; found " + mode.to_json());
  }
  std::vector<std::string> commands;
  std::string app_name;
  FailCommandAction action;
  if (on) {
    if (!data.is_document()) {
      throw Error(ErrorCode::kTypeMismatch, "'data' must be an object, found " + type_of(data));
    }
    bool block = false;
    int64_t block_ms = -1;
    for (const bson::Element& e : data.as_document()) {
      if (e.key == "failCommands") {
        if (!e.value.is_array()) {
          throw Error(ErrorCode::kTypeMismatch, "'failCommands' must be an array of strings");
        }
        for (const bson::Element& name : e.value.as_array()) {
          if (!name.value.is_string()) {
            throw Error(ErrorCode::kTypeMismatch, "'failCommands' must be an array of strings");
          }
          commands.emplace_back(name.value.as_string());
        }
      } else if (e.key == "errorCode") {
        int64_t code = 0;
        if (!e.value.is_number() || !e.value.number_as_exact_int64(&code) || code < INT32_MIN ||
            code > INT32_MAX) {
          throw Error(ErrorCode::kTypeMismatch, "'errorCode' must be a 32-bit integer");
        }
        action.error_code = static_cast<int32_t>(code);
      } else if (e.key == "errorLabels") {
        if (!e.value.is_array()) {
          throw Error(ErrorCode::kTypeMismatch, "'errorLabels' must be an array of strings");
        }
        std::vector<std::string> labels;
        for (const bson::Element& label : e.value.as_array()) {
          if (!label.value.is_string()) {
            throw Error(ErrorCode::kTypeMismatch, "'errorLabels' must be an array of strings");
          }
          labels.emplace_back(label.value.as_string());
        }
        action.error_labels = std::move(labels);
      } else if (e.key == "closeConnection") {
        action.close_connection = boolean(e.value, "closeConnection");
      } else if (e.key == "blockConnection") {
        block = boolean(e.value, "blockConnection");
      } else if (e.key == "blockTimeMS") {
        block_ms = whole_number(e.value, "blockTimeMS");
      } else if (e.key == "writeConcernError") {
        if (!e.value.is_document()) {
          throw Error(ErrorCode::kTypeMismatch, "'writeConcernError' must be an object");
        }
        action.write_concern_error = bson::Document::copy_of(e.value.as_document());
      } else if (e.key == "appName") {
        if (!e.value.is_string()) {
          throw Error(ErrorCode::kTypeMismatch, "'appName' must be a string");
        }
        app_name = std::string(e.value.as_string());
      } else if (e.key == "failInternalCommands") {
        boolean(e.value, "failInternalCommands");  // mongostore runs no internal commands
      } else {
        throw Error(ErrorCode::kNotImplemented, "failCommand data field '" + std::string(e.key) +
                                                    "' is not supported by mongostore");
      }
    }
    if (commands.empty()) {
      throw Error(ErrorCode::kBadValue, "failCommand needs a non-empty 'failCommands' array");
    }
    if (block) {
      if (block_ms < 0) {
        throw Error(ErrorCode::kBadValue, "'blockConnection' needs 'blockTimeMS'");
      }
      // Bounded: a blocked command holds a worker thread.
      action.block = std::chrono::milliseconds(std::min<int64_t>(block_ms, 60000));
    }
  }
  std::lock_guard lock(mutex_);
  int64_t previous = triggered_;
  triggered_ = 0;
  times_left_ = times;
  skip_left_ = skip;
  commands_ = std::move(commands);
  app_name_ = std::move(app_name);
  action_ = std::move(action);
  active_ = on;
  return previous;
}

std::optional<FailCommandAction> FailCommand::evaluate(std::string_view name,
                                                       std::string_view app_name) {
  if (!active()) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (!active_) return std::nullopt;
  if (std::find(commands_.begin(), commands_.end(), name) == commands_.end()) return std::nullopt;
  if (!app_name_.empty() && app_name != app_name_) return std::nullopt;
  if (skip_left_ > 0) {
    --skip_left_;
    return std::nullopt;
  }
  if (times_left_ > 0 && --times_left_ == 0) active_ = false;
  ++triggered_;
  return action_;
}

}  // namespace mongostore::server
