// CollectionValidation: a collection's validator and when it applies (MongoDB's `validator`,
// `validationLevel`, `validationAction` collection options).
//
// The validator is compiled once, when the options are parsed (create, collMod, catalog
// load), and every write checks the document it would store against that compiled Matcher.
// An instance is immutable; collMod makes a new one. Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

enum class ValidationLevel { kStrict, kModerate, kOff };
enum class ValidationAction { kError, kWarn };

class CollectionValidation {
 public:
  /// No validator: every document passes.
  CollectionValidation() = default;

  /// Parses the validation fields of `options` ({validator, validationLevel,
  /// validationAction}; other fields are ignored here, the caller refuses them). `command`
  /// names the command in errors ("create", "collMod"). Errors as mongod's: TypeMismatch (14)
  /// for a validator that is not a document or a level/action that is not a string, BadValue
  /// (2) for an unknown level/action or an operator validators may not use ($where, $text,
  /// $near, $nearSphere, $geoNear), and the matcher's own error for a malformed filter or
  /// $jsonSchema. The validator is compiled with `collation` (the collection's default; null:
  /// simple), as mongod compiles it: its string comparisons and its $expr go by it.
  static CollectionValidation parse(bson::DocumentView options, std::string_view command,
                                    std::shared_ptr<const Collation> collation = nullptr);

  /// Refuses a non-empty `validator` in `options` where mongod does: InvalidOptions (72)
  /// "Document validators not allowed on system collection <db>.<coll>" for `system.*`
  /// collections, "Document validators are not allowed on collections in the <db> database"
  /// for the admin, local and config databases. Called by create and collMod (not when the
  /// catalog is loaded).
  static void refuse_on_namespace(bson::DocumentView options, std::string_view db,
                                  std::string_view coll);

  /// This one with the fields collMod sets in `changes` replaced (an empty validator removes
  /// it, as on mongod); a new validator is compiled with this one's collation.
  CollectionValidation modified(bson::DocumentView changes) const;

  /// The options as listCollections shows them: only what was set, in mongod's order
  /// ({validator, validationLevel, validationAction}); empty when nothing was.
  bson::Document options() const;

  /// Checks the document a write would store. `before` is the stored document an update
  /// replaces (null for an insert or upsert): under `moderate`, an update of a document that
  /// did not match the validator is not checked. Throws DocumentValidationError (121) when the
  /// action is `error`; with `warn` the write goes on and the first failure of each collection
  /// is logged to stderr.
  void check(bson::DocumentView document, const bson::DocumentView* before,
             const std::string& ns) const;

  bool has_validator() const { return matcher_ != nullptr; }

 private:
  bson::Document validator_;                    // as given (may be empty)
  std::shared_ptr<const Matcher> matcher_;      // null when the validator is empty
  std::shared_ptr<const Collation> collation_;  // the validator's (null: simple)
  std::optional<ValidationLevel> level_;
  std::optional<ValidationAction> action_;
  std::shared_ptr<std::atomic<bool>> warned_ = std::make_shared<std::atomic<bool>>(false);

  void set_validator(bson::DocumentView validator);
  bson::Document err_info(bson::DocumentView document) const;
};

}  // namespace mongostore::engine
