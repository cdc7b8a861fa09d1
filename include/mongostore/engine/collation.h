// Collation: MongoDB's language-aware string comparison, on ICU (the library mongod uses).
//
//   auto fr = Collation::parse(make_document("locale", "fr", "strength", 1));
//   fr->compare("côte", "cote") == 0;   // strength 1 ignores accents
//
// parse() validates a collation document as mongod does and returns null for the simple
// collation ({locale: "simple"}), which compares strings as bytes: everywhere a
// `const Collation*` (or bson::StringComparator*) is taken, null means simple. A Collation is
// immutable after parse(); compare() and sort_key() are safe from any number of threads.
// https://www.mongodb.com/docs/manual/reference/collation/
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

class Collation final : public bson::StringComparator {
 public:
  /// Parses a collation document: `locale` (required; "simple" or a locale ICU has collation
  /// data for, as "en_US", "de@collation=phonebook"), `strength` (1-5), `caseLevel`,
  /// `caseFirst` ("upper", "lower", "off"), `numericOrdering`, `alternate`
  /// ("non-ignorable", "shifted"), `maxVariable` ("punct", "space"), `normalization`,
  /// `backwards`, `version` ("57.1", what mongod reports). Returns null for the simple
  /// collation. Errors (mongostore::Error, mongod's codes): a missing locale 40414, an unknown
  /// field 40415, a wrong type TypeMismatch (14), "simple" with other fields FailedToParse
  /// (9), an unknown locale, an out-of-range value or another version BadValue (2).
  static std::shared_ptr<const Collation> parse(bson::DocumentView spec);

  /// parse() of a whole option value: a document, else TypeMismatch (14) naming `field`.
  static std::shared_ptr<const Collation> parse_option(const bson::Value& value,
                                                       std::string_view field = "collation");

  ~Collation() override;
  Collation(const Collation&) = delete;
  Collation& operator=(const Collation&) = delete;

  /// ICU's comparison of two UTF-8 strings (ill-formed bytes compare as U+FFFD).
  int compare(std::string_view a, std::string_view b) const override;

  /// ICU's sort key of `s` (without its terminating zero byte): comparing two sort keys as
  /// bytes gives compare()'s order, so an index can store them.
  std::string sort_key(std::string_view s) const;

  /// `v` with every string and symbol (also inside arrays and documents) replaced by its
  /// sort_key() as a string, so that comparing two results without a collation (or their
  /// index keys as bytes) orders them as comparing the values under this collation does.
  /// What MongoDB stores in an index with a collation, and what sorts and groups key on.
  bson::OwnedValue comparison_key(const bson::Value& v) const;

  /// The collation of an options struct's `collation` field: null when it is empty (not
  /// given) or the simple collation, else parse().
  static std::shared_ptr<const Collation> of_option(const bson::Document& spec) {
    return spec.empty() ? nullptr : parse(spec.view());
  }

  /// The fully specified collation, as listIndexes and listCollections show it: {locale,
  /// caseLevel, caseFirst, strength, numericOrdering, alternate, maxVariable, normalization,
  /// backwards, version}.
  const bson::Document& spec() const { return spec_; }

  /// True when both compare alike (same fully specified spec); null is the simple collation.
  static bool same(const Collation* a, const Collation* b);

  /// Whether `v` holds a string or symbol (also inside arrays and documents): only such a
  /// value compares differently under a collation.
  static bool collation_sensitive(const bson::Value& v);

 private:
  struct Icu;
  Collation(std::unique_ptr<Icu> icu, bson::Document spec);
  void append_key(bson::DocumentBuilder& b, std::string_view key, const bson::Value& v) const;
  std::unique_ptr<Icu> icu_;
  bson::Document spec_;
};

}  // namespace mongostore::engine
