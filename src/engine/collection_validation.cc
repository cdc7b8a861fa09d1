#include "collection_validation.h"

#include <cstdio>
#include <string>

#include "engine/matcher/validation_error_details.h"
#include "mongostore/bson/builder.h"
#include "mongostore/document_validation_error.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

[[noreturn]] void wrong_type(std::string_view command, std::string_view field,
                             std::string_view expected) {
  throw Error(ErrorCode::kTypeMismatch,
              "BSON field '" + std::string(command) + "." + std::string(field) +
                  "' is the wrong type, expected type '" + std::string(expected) + "'");
}

[[noreturn]] void bad_enum(std::string_view command, std::string_view field,
                           std::string_view value) {
  throw Error(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) + "' for field '" +
                                        std::string(command) + "." + std::string(field) +
                                        "' is not a valid value.");
}

void refuse_banned(bson::DocumentView filter, int depth);

// The operators of one field's condition ({$near: ...}, {$not: {...}}, {$elemMatch: {...}}).
void refuse_banned_in_condition(bson::DocumentView condition, int depth) {
  for (const bson::Element& op : condition) {
    if (op.key == "$near" || op.key == "$nearSphere" || op.key == "$geoNear") {
      throw Error(ErrorCode::kBadValue,
                  "$geoNear, $near, and $nearSphere are not allowed in this context");
    }
    if ((op.key == "$not" || op.key == "$elemMatch") && op.value.is_document()) {
      refuse_banned(op.value.as_document(), depth + 1);
      refuse_banned_in_condition(op.value.as_document(), depth + 1);
    }
  }
}

// mongod parses validators with $where, $text and geo-near banned. The matcher refuses them
// too (NotImplemented), but a validator gets mongod's own answer, so this walk runs first. It
// stops at 200 levels (BSON input nests no deeper; the matcher then has its own limit).
void refuse_banned(bson::DocumentView filter, int depth) {
  if (depth > 200) return;
  for (const bson::Element& e : filter) {
    if (e.key == "$where")
      throw Error(ErrorCode::kBadValue, "$where is not allowed in this context");
    if (e.key == "$text") throw Error(ErrorCode::kBadValue, "TEXT is not allowed in this context");
    if ((e.key == "$and" || e.key == "$or" || e.key == "$nor") && e.value.is_array()) {
      for (const bson::Element& clause : e.value.as_array()) {
        if (clause.value.is_document()) refuse_banned(clause.value.as_document(), depth + 1);
      }
    } else if (!e.key.empty() && e.key[0] != '$' && e.value.is_document()) {
      refuse_banned_in_condition(e.value.as_document(), depth + 1);
    }
  }
}

}  // namespace

void CollectionValidation::set_validator(bson::DocumentView validator) {
  if (validator.empty()) {
    validator_ = bson::Document();
    matcher_.reset();
    return;
  }
  refuse_banned(validator, 0);
  validator_ = bson::Document::copy_of(validator);
  // Compiled again from the copy this object keeps, so nothing points into the caller's bytes.
  MatcherOptions options;
  options.collation = collation_;
  matcher_ = std::make_shared<const Matcher>(Matcher::compile(validator_.view(), options));
}

CollectionValidation CollectionValidation::parse(bson::DocumentView options,
                                                 std::string_view command,
                                                 std::shared_ptr<const Collation> collation) {
  CollectionValidation out;
  out.collation_ = std::move(collation);
  for (const bson::Element& e : options) {
    if (e.key == "validator") {
      if (!e.value.is_document()) wrong_type(command, e.key, "object");
      out.set_validator(e.value.as_document());
    } else if (e.key == "validationLevel") {
      if (!e.value.is_string()) wrong_type(command, e.key, "string");
      std::string_view v = e.value.as_string();
      if (v == "strict") {
        out.level_ = ValidationLevel::kStrict;
      } else if (v == "moderate") {
        out.level_ = ValidationLevel::kModerate;
      } else if (v == "off") {
        out.level_ = ValidationLevel::kOff;
      } else {
        bad_enum(command, e.key, v);
      }
    } else if (e.key == "validationAction") {
      if (!e.value.is_string()) wrong_type(command, e.key, "string");
      std::string_view v = e.value.as_string();
      if (v == "error") {
        out.action_ = ValidationAction::kError;
      } else if (v == "warn") {
        out.action_ = ValidationAction::kWarn;
      } else {
        bad_enum(command, e.key, v);
      }
    }
  }
  return out;
}

void CollectionValidation::refuse_on_namespace(bson::DocumentView options, std::string_view db,
                                               std::string_view coll) {
  bson::Value validator = options.get("validator");
  if (!validator.is_document() || validator.as_document().empty()) return;
  if (coll.starts_with("system.")) {
    throw Error(ErrorCode::kInvalidOptions,
                "Document validators not allowed on system collection " + std::string(db) + "." +
                    std::string(coll));
  }
  if (db == "admin" || db == "local" || db == "config") {
    throw Error(ErrorCode::kInvalidOptions,
                "Document validators are not allowed on collections in the " + std::string(db) +
                    " database");
  }
}

CollectionValidation CollectionValidation::modified(bson::DocumentView changes) const {
  CollectionValidation parsed = parse(changes, "collMod", collation_);
  CollectionValidation out = *this;
  out.warned_ = std::make_shared<std::atomic<bool>>(false);
  if (!changes.get("validator").is_missing()) {
    out.validator_ = parsed.validator_;
    out.matcher_ = parsed.matcher_;
  }
  if (parsed.level_) out.level_ = parsed.level_;
  if (parsed.action_) out.action_ = parsed.action_;
  return out;
}

bson::Document CollectionValidation::options() const {
  bson::DocumentBuilder b;
  if (!validator_.empty()) b.append("validator", validator_);
  if (level_) {
    b.append("validationLevel", *level_ == ValidationLevel::kStrict     ? "strict"
                                : *level_ == ValidationLevel::kModerate ? "moderate"
                                                                        : "off");
  }
  if (action_)
    b.append("validationAction", *action_ == ValidationAction::kError ? "error" : "warn");
  return b.finish();
}

bson::Document CollectionValidation::err_info(bson::DocumentView document) const {
  return validation_error_info(validator_.view(), document);
}

void CollectionValidation::check(bson::DocumentView document, const bson::DocumentView* before,
                                 const std::string& ns) const {
  if (!matcher_) return;
  ValidationLevel level = level_.value_or(ValidationLevel::kStrict);
  if (level == ValidationLevel::kOff) return;
  if (matcher_->matches(document)) return;
  // moderate: an update of a document that was already invalid is let through.
  if (level == ValidationLevel::kModerate && before != nullptr && !matcher_->matches(*before)) {
    return;
  }
  if (action_.value_or(ValidationAction::kError) == ValidationAction::kError) {
    throw DocumentValidationError(err_info(document));
  }
  if (!warned_->exchange(true)) {
    std::fprintf(stderr,
                 "mongostore: warning: Document would fail validation (namespace %s; "
                 "validationAction warn: written anyway; further failures on this collection "
                 "are not logged)\n",
                 ns.c_str());
  }
}

}  // namespace mongostore::engine
