// Reading one field back from a stored `f` document (records/stored_form.h): a non-list field
// is present when any of its columns is, whether the caller computed the columns once for
// many documents or decode_field computes them.
#include "records/stored_form.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/records/errors.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;

Value::RecordPtr no_reference(const std::shared_ptr<const RecordSchema>&, int64_t) {
  ADD_FAILURE() << "no field here refers to a record";
  return nullptr;
}

// The field decoded both ways; they agree or the test fails. SchemaError's text, if it throws.
std::string decoded(const Document& f, const FieldSchema& field) {
  std::string one, many;
  try {
    Value v = decode_field(f.view(), field, no_reference);
    one = v.is_null() ? "None" : v.as<Rational>().to_string();
  } catch (const SchemaError& e) {
    one = e.what();
  }
  const std::vector<Column> columns = field.columns();
  try {
    Value v = decode_field(f.view(), field, columns, no_reference);
    many = v.is_null() ? "None" : v.as<Rational>().to_string();
  } catch (const SchemaError& e) {
    many = e.what();
  }
  EXPECT_EQ(one, many);
  return one;
}

TEST(StoredForm, ANonListFieldIsPresentWhenAnyOfItsColumnsIs) {
  FieldSchema optional{"r", FieldType{FieldKind::kRational}};
  optional.optional = true;
  FieldSchema required{"r", FieldType{FieldKind::kRational}};

  const Document both = make_document("r", 1.5, "r_exact", "3/2");
  EXPECT_EQ(decoded(both, optional), Rational(3, 2).to_string());
  EXPECT_EQ(decoded(both, required), Rational(3, 2).to_string());
  // The exact column alone (not the first column) still makes the field present: it is read.
  const Document exact_only = make_document("r_exact", "3/2");
  EXPECT_EQ(decoded(exact_only, required), Rational(3, 2).to_string());
  // The double column alone makes it present too, and its exact column is then missing.
  EXPECT_NE(decoded(make_document("r", 1.5), optional).find("'r_exact' is not a string"),
            std::string::npos);
  // No column at all: None when optional, a mismatch otherwise.
  const Document none = make_document("other", 1);
  EXPECT_EQ(decoded(none, optional), "None");
  EXPECT_NE(decoded(none, required).find("stored field 'r' does not match"), std::string::npos);
  EXPECT_NE(decoded(none, required).find("missing"), std::string::npos);
}

}  // namespace
}  // namespace mongostore::records::testing
