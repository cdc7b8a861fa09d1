// Collation over ICU's C API: one UCollator per parsed collation, configured once and then
// only read (ICU's comparison and sort-key functions are thread-safe on a const collator).
#include "mongostore/engine/collation.h"

#include <unicode/ucol.h>
#include <unicode/uloc.h>
#include <unicode/ustring.h>

#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/types.h"
#include "mongostore/error.h"

namespace mongostore::engine {

struct Collation::Icu {
  UCollator* collator = nullptr;
  ~Icu() {
    if (collator != nullptr) ucol_close(collator);
  }
};

namespace {

// What mongod reports as the collation version (its bundled ICU's); the only one accepted.
constexpr std::string_view kVersion = "57.1";
// Longer than any locale ICU has collation data for; bounds what reaches ICU.
constexpr size_t kMaxLocaleLength = 100;

[[noreturn]] void wrong_type(std::string_view field, const bson::Value& v,
                             std::string_view expected) {
  throw Error(ErrorCode::kTypeMismatch, "BSON field 'collation." + std::string(field) +
                                            "' is the wrong type '" +
                                            std::string(bson::type_alias(v.type())) +
                                            "', expected type '" + std::string(expected) + "'");
}

bool bool_field(std::string_view field, const bson::Value& v) {
  if (v.type() != bson::BsonType::kBool) wrong_type(field, v, "bool");
  return v.as_bool();
}

std::string_view string_field(std::string_view field, const bson::Value& v) {
  if (v.type() != bson::BsonType::kString) wrong_type(field, v, "string");
  return v.as_string();
}

[[noreturn]] void bad_enum(std::string_view field, std::string_view value) {
  throw Error(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                        "' for field 'collation." + std::string(field) +
                                        "' is not a valid value.");
}

void check(UErrorCode status, std::string_view what) {
  if (U_FAILURE(status)) {
    throw Error(ErrorCode::kBadValue,
                "ICU failed to " + std::string(what) + ": " + u_errorName(status));
  }
}

void set(UCollator* c, UColAttribute attribute, UColAttributeValue value) {
  UErrorCode status = U_ZERO_ERROR;
  ucol_setAttribute(c, attribute, value, &status);
  check(status, "set a collation attribute");
}

bool get_on(UCollator* c, UColAttribute attribute) {
  UErrorCode status = U_ZERO_ERROR;
  UColAttributeValue v = ucol_getAttribute(c, attribute, &status);
  check(status, "read a collation attribute");
  return v == UCOL_ON;
}

// mongod accepts a locale only when ICU has collation data for exactly that name: ICU's
// "valid locale" of the collator it opens must be the name given (so "en-US", "en_us",
// "xx_US" and "en_US@collation=phonebook", which ICU quietly maps elsewhere, are refused).
UCollator* open_collator(std::string_view locale) {
  std::string name(locale);
  auto invalid = [&]() {
    return Error(ErrorCode::kBadValue, "Field 'locale' is invalid with value: " + name);
  };
  if (name.empty() || name.size() > kMaxLocaleLength || name.find('\0') != std::string::npos ||
      name == "root") {
    throw invalid();
  }
  UErrorCode status = U_ZERO_ERROR;
  UCollator* c = ucol_open(name.c_str(), &status);
  if (U_FAILURE(status) || c == nullptr) {
    if (c != nullptr) ucol_close(c);
    throw invalid();
  }
  UErrorCode s2 = U_ZERO_ERROR;
  const char* valid = ucol_getLocaleByType(c, ULOC_VALID_LOCALE, &s2);
  if (U_FAILURE(s2) || valid == nullptr || name != valid) {
    ucol_close(c);
    throw invalid();
  }
  return c;
}

}  // namespace

Collation::Collation(std::unique_ptr<Icu> icu, bson::Document spec)
    : icu_(std::move(icu)), spec_(std::move(spec)) {}

Collation::~Collation() = default;

std::shared_ptr<const Collation> Collation::parse_option(const bson::Value& value,
                                                         std::string_view field) {
  if (!value.is_document()) {
    throw Error(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(field) + "' is the wrong type '" +
                    std::string(bson::type_alias(value.type())) + "', expected type 'object'");
  }
  return parse(value.as_document());
}

std::shared_ptr<const Collation> Collation::parse(bson::DocumentView spec) {
  std::optional<std::string_view> locale;
  std::optional<int> strength;
  std::optional<bool> case_level, numeric, normalization, backwards;
  std::optional<std::string_view> case_first, alternate, max_variable;
  size_t fields = 0;
  for (const auto& el : spec) {
    ++fields;
    std::string_view k = el.key;
    const bson::Value& v = el.value;
    if (k == "locale") {
      locale = string_field(k, v);
    } else if (k == "strength") {
      if (!v.is_number()) wrong_type(k, v, "int");
      int64_t n = 0;
      if (!v.number_as_exact_int64(&n)) {
        throw Error(ErrorCode::kBadValue, "BSON field 'collation.strength' must be an integer");
      }
      if (n < 1 || n > 5) {
        throw Error(ErrorCode::kBadValue,
                    "Field 'strength' must be an integer 1 through 5. Got: " + std::to_string(n));
      }
      strength = static_cast<int>(n);
    } else if (k == "caseLevel") {
      case_level = bool_field(k, v);
    } else if (k == "caseFirst") {
      case_first = string_field(k, v);
      if (*case_first != "upper" && *case_first != "lower" && *case_first != "off") {
        bad_enum(k, *case_first);
      }
    } else if (k == "numericOrdering") {
      numeric = bool_field(k, v);
    } else if (k == "alternate") {
      alternate = string_field(k, v);
      if (*alternate != "non-ignorable" && *alternate != "shifted") bad_enum(k, *alternate);
    } else if (k == "maxVariable") {
      max_variable = string_field(k, v);
      if (*max_variable != "punct" && *max_variable != "space") bad_enum(k, *max_variable);
    } else if (k == "normalization") {
      normalization = bool_field(k, v);
    } else if (k == "backwards") {
      backwards = bool_field(k, v);
    } else if (k == "version") {
      if (string_field(k, v) != kVersion) {
        throw Error(ErrorCode::kBadValue,
                    "Requested collation version " + std::string(v.as_string()) +
                        " but the only available collator version was " + std::string(kVersion));
      }
    } else {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'collation." + std::string(k) + "' is an unknown field.");
    }
  }
  if (!locale) {
    throw Error(40414, "BSON field 'collation.locale' is missing but a required field");
  }
  if (*locale == "simple") {
    if (fields > 1) {
      throw Error(ErrorCode::kFailedToParse,
                  "If \"locale\" is set to \"simple\", then no other fields may be specified");
    }
    return nullptr;
  }

  auto icu = std::make_unique<Icu>();
  icu->collator = open_collator(*locale);
  UCollator* c = icu->collator;
  if (strength) {
    static constexpr UColAttributeValue kStrengths[] = {UCOL_PRIMARY, UCOL_SECONDARY, UCOL_TERTIARY,
                                                        UCOL_QUATERNARY, UCOL_IDENTICAL};
    set(c, UCOL_STRENGTH, kStrengths[*strength - 1]);
  }
  if (case_level) set(c, UCOL_CASE_LEVEL, *case_level ? UCOL_ON : UCOL_OFF);
  if (case_first) {
    set(c, UCOL_CASE_FIRST,
        *case_first == "upper"   ? UCOL_UPPER_FIRST
        : *case_first == "lower" ? UCOL_LOWER_FIRST
                                 : UCOL_OFF);
  }
  if (numeric) set(c, UCOL_NUMERIC_COLLATION, *numeric ? UCOL_ON : UCOL_OFF);
  if (alternate) {
    set(c, UCOL_ALTERNATE_HANDLING, *alternate == "shifted" ? UCOL_SHIFTED : UCOL_NON_IGNORABLE);
  }
  if (max_variable) {
    UErrorCode status = U_ZERO_ERROR;
    ucol_setMaxVariable(
        c, *max_variable == "space" ? UCOL_REORDER_CODE_SPACE : UCOL_REORDER_CODE_PUNCTUATION,
        &status);
    check(status, "set maxVariable");
  }
  if (normalization) set(c, UCOL_NORMALIZATION_MODE, *normalization ? UCOL_ON : UCOL_OFF);
  if (backwards) set(c, UCOL_FRENCH_COLLATION, *backwards ? UCOL_ON : UCOL_OFF);

  // The fully specified spec: what was given, the locale's own defaults for the rest (as
  // mongod reads them back from ICU, e.g. backwards: true for fr_CA).
  UErrorCode status = U_ZERO_ERROR;
  UColAttributeValue s = ucol_getAttribute(c, UCOL_STRENGTH, &status);
  UColAttributeValue cf = ucol_getAttribute(c, UCOL_CASE_FIRST, &status);
  UColAttributeValue alt = ucol_getAttribute(c, UCOL_ALTERNATE_HANDLING, &status);
  UColReorderCode mv = ucol_getMaxVariable(c);
  check(status, "read the collation attributes");
  int strength_number = s == UCOL_PRIMARY      ? 1
                        : s == UCOL_SECONDARY  ? 2
                        : s == UCOL_TERTIARY   ? 3
                        : s == UCOL_QUATERNARY ? 4
                                               : 5;
  bson::DocumentBuilder b;
  b.append("locale", *locale);
  b.append("caseLevel", get_on(c, UCOL_CASE_LEVEL));
  b.append("caseFirst", cf == UCOL_UPPER_FIRST   ? "upper"
                        : cf == UCOL_LOWER_FIRST ? "lower"
                                                 : "off");
  b.append("strength", int32_t(strength_number));
  b.append("numericOrdering", get_on(c, UCOL_NUMERIC_COLLATION));
  b.append("alternate", alt == UCOL_SHIFTED ? "shifted" : "non-ignorable");
  b.append("maxVariable", mv == UCOL_REORDER_CODE_SPACE ? "space" : "punct");
  b.append("normalization", get_on(c, UCOL_NORMALIZATION_MODE));
  b.append("backwards", get_on(c, UCOL_FRENCH_COLLATION));
  b.append("version", kVersion);
  return std::shared_ptr<const Collation>(new Collation(std::move(icu), b.finish()));
}

int Collation::compare(std::string_view a, std::string_view b) const {
  UErrorCode status = U_ZERO_ERROR;
  UCollationResult r = ucol_strcollUTF8(icu_->collator, a.data(), static_cast<int32_t>(a.size()),
                                        b.data(), static_cast<int32_t>(b.size()), &status);
  if (U_FAILURE(status)) {
    // Only an allocation failure inside ICU gets here; bytes keep the order total.
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return r == UCOL_LESS ? -1 : (r == UCOL_GREATER ? 1 : 0);
}

std::string Collation::sort_key(std::string_view s) const {
  // UTF-8 to UTF-16 (ICU's sort keys take UTF-16), ill-formed bytes as U+FFFD.
  std::vector<UChar> utf16(s.size() + 1);
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(utf16.data(), static_cast<int32_t>(utf16.size()), &length, s.data(),
                       static_cast<int32_t>(s.size()), 0xFFFD, nullptr, &status);
  check(status, "convert a string to UTF-16");
  std::string key(s.size() * 2 + 16, '\0');
  int32_t n =
      ucol_getSortKey(icu_->collator, utf16.data(), length, reinterpret_cast<uint8_t*>(key.data()),
                      static_cast<int32_t>(key.size()));
  if (n > static_cast<int32_t>(key.size())) {
    key.resize(static_cast<size_t>(n));
    n = ucol_getSortKey(icu_->collator, utf16.data(), length,
                        reinterpret_cast<uint8_t*>(key.data()), n);
  }
  if (n <= 0) throw Error(ErrorCode::kInternalError, "ICU failed to make a sort key");
  key.resize(static_cast<size_t>(n - 1));  // without the terminating zero
  return key;
}

void Collation::append_key(bson::DocumentBuilder& b, std::string_view key,
                           const bson::Value& v) const {
  switch (v.type()) {
    case bson::BsonType::kString:
    case bson::BsonType::kSymbol:
      b.append(key, std::string_view(sort_key(v.as_string())));
      return;
    case bson::BsonType::kDocument:
      b.open_document(key);
      for (const auto& el : v.as_document()) append_key(b, el.key, el.value);
      b.close();
      return;
    case bson::BsonType::kArray:
      b.open_array(key);
      for (const auto& el : v.as_array()) append_key(b, el.key, el.value);
      b.close();
      return;
    default:
      b.append(key, v);
  }
}

bson::OwnedValue Collation::comparison_key(const bson::Value& v) const {
  if (!collation_sensitive(v)) return bson::OwnedValue(v);
  bson::DocumentBuilder b;
  append_key(b, "", v);
  bson::Document d = b.finish();
  return bson::OwnedValue(d.view().get(""));
}

bool Collation::collation_sensitive(const bson::Value& v) {
  switch (v.type()) {
    case bson::BsonType::kString:
    case bson::BsonType::kSymbol:
      return true;
    case bson::BsonType::kDocument:
    case bson::BsonType::kArray:
      for (const auto& el : bson::DocumentView(v.data(), v.size())) {
        if (collation_sensitive(el.value)) return true;
      }
      return false;
    default:
      return false;
  }
}

bool Collation::same(const Collation* a, const Collation* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a == b || bson::compare_documents(a->spec_.view(), b->spec_.view()) == 0;
}

}  // namespace mongostore::engine
