// RecordSchema: the runtime description of a record type, which everything in the store is
// written against (identity, the stored form, dedup, validators, indexes, fingerprints).
//
// A typed declaration (declare.h) builds one; a tool can build one by hand to read a store
// without the C++ types. The stored form of each field follows httk's MongoStore exactly
// (reference §1.1), so documents are interchangeable with the Python system:
//
// | field type                    | role        | keys under `f`                                 |
// |-------------------------------|-------------|------------------------------------------------|
// | int, string, bool, bytes      | scalar      | `<f>` (int64, string, bool, binData)           |
// | float                         | encoded     | `<f>` double, `<f>_exact` hex float text       |
// | rational                      | encoded     | `<f>` nearest double, `<f>_exact` "p/q"        |
// | datetime                      | encoded     | `<f>` ISO 8601 (aware in UTC, "+00:00")         |
// | date                          | encoded     | `<f>` "YYYY-MM-DD"                             |
// | rational matrix r x c (r >= 1) | fixed_array | `<f>_0 .. <f>_{rc-1}` doubles, `<f>_exact`
// "d;n0,…" | | rational matrix of c columns, any rows | child | `[{<f>_0 .. <f>_{c-1}, <f>_exact}]`
// | | list of scalar / encoded      | child       | `[{<f>: …(, <f>_exact: …)}]` | | list of
// records               | child       | `[{<f>_sid: int}]`                             | | record
// | reference   | `<f>_sid: int`                                 |
//
// Thread safety: a schema is immutable once built (by a declaration or a SchemaBuilder) and
// may be shared across threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mongostore::records {

class RecordSchema;

/// How saving a record finds an existing equal one (reference §2).
enum class Dedup {
  kContentId,  // by content id: unique index, metadata (IdentitySkip) conflicts checked
  kByValue,    // by the stored field values (children not compared; no unique reservation)
  kNone,       // always insert
};
std::string_view dedup_name(Dedup dedup);  // "content_id", "by_value", "none"

/// Whether a field takes part in the content id and in storage.
enum class Identity {
  kIncluded,      // stored and part of the content id
  kIdentitySkip,  // stored, left out of the content id, compared on a dedup hit
  kSkip,          // neither stored nor part of the identity (keeps the C++ default on fetch)
  // A stored property (httk `derived`): a value computed from the record when it is saved,
  // stored and queryable like a field, left out of the content id and not compared on a dedup
  // hit (it follows from the identity fields), never read back into a typed record (the
  // declaration recomputes it). Scalar, encoded, matrix or list of scalar/encoded values only.
  kDerived,
};

enum class FieldKind {
  kInt,
  kString,
  kBool,
  kBytes,
  kFloat,
  kRational,
  kDateTime,
  kDate,
  kMatrix,     // a rational matrix: rows x cols, or any number of rows when rows == 0
  kList,       // a list of scalar or encoded values, or of records
  kReference,  // another record, stored in its own collection
};

/// What a field's storage looks like (reference §1.1).
enum class FieldRole { kScalar, kEncoded, kFixedArray, kChild, kReference };

/// The kind of a stored column: what one key under `f` holds.
enum class ColumnKind { kInt, kString, kBool, kBytes, kDouble };

struct Column {
  std::string name;  // the key under `f` (or inside a child element)
  ColumnKind kind;
};

/// A field's type. Lists have an element type (never a list or a variable-row matrix); a
/// reference (or a list of records) names its target schema lazily, so a record type may
/// refer to itself.
struct FieldType {
  FieldKind kind = FieldKind::kInt;
  size_t rows = 0, cols = 0;                 // kMatrix
  std::shared_ptr<const FieldType> element;  // kList
  bool tuple = false;                        // kList: the identity node is a tuple, not a list
  std::function<std::shared_ptr<const RecordSchema>()> target;  // kReference

  std::shared_ptr<const RecordSchema> target_schema() const;
  /// "int", "float", "rational", "matrix[3x3]", "list[float]", "record<name>", ...
  std::string describe() const;
};

struct FieldSchema {
  std::string name;
  FieldType type;
  bool optional = false;  // may be null (omitted from `f`)
  Identity identity = Identity::kIncluded;
  bool indexed = false;  // a single-key index on every column
  bool unique = false;   // a unique index on every column

  FieldRole role() const;
  /// The keys under `f` (scalar, encoded, fixed_array, reference), or the keys of one child
  /// element (child); in stored order.
  std::vector<Column> columns() const;
  bool stored() const { return identity != Identity::kSkip; }
  /// A stored property (Identity::kDerived).
  bool derived() const { return identity == Identity::kDerived; }
};

/// One key of a page order a record declares (RecordDecl::page_index): a stored scalar,
/// encoded or reference field, ascending or descending.
struct PageIndexKey {
  std::string field;
  bool descending = false;
};

class RecordSchema {
 public:
  /// Validates the declaration: SchemaError naming the field for a reserved or repeated name
  /// (`sid`, `content_id`, `_httk_role`, `store_timestamp`, `logical_id`, and `c_present`
  /// beside an optional child `c`), an empty name, a name with '.' or a leading '$', a list of
  /// lists, a unique or indexed child, a composite index naming an unknown, child or repeated
  /// field; a storage name starting with `_httk_` or `system.` is refused too; a stored
  /// property (Identity::kDerived) that is a reference or a list of records (not supported:
  /// saving it would save a computed record graph).
  /// `page_indexes` (declared page orders) are checked like composite indexes, and at most
  /// 31 keys each (the sid is the last key of a compound index of at most 32).
  RecordSchema(std::string identity_name, std::string storage_name, Dedup dedup,
               std::vector<FieldSchema> fields, std::vector<std::vector<std::string>> indexes,
               std::vector<std::vector<PageIndexKey>> page_indexes = {});

  /// The name hashed into every content id (httk: `module.qualname`).
  const std::string& identity_name() const { return identity_name_; }
  /// The collection the records live in.
  const std::string& storage_name() const { return storage_name_; }
  Dedup dedup() const { return dedup_; }
  const std::vector<FieldSchema>& fields() const { return fields_; }
  /// Composite indexes, by field names.
  const std::vector<std::vector<std::string>>& indexes() const { return indexes_; }
  /// Declared page orders: the store creates, with the collection, the index that lets
  /// Searcher::page read pages of that order as index ranges (as ensure_page_index does).
  /// Not part of the schema fingerprint (an index, not a shape).
  const std::vector<std::vector<PageIndexKey>>& page_indexes() const { return page_indexes_; }
  /// The index of the field named `name`, or nullopt.
  std::optional<size_t> field_index(std::string_view name) const;

 private:
  std::string identity_name_;
  std::string storage_name_;
  Dedup dedup_;
  std::vector<FieldSchema> fields_;
  std::vector<std::vector<std::string>> indexes_;
  std::vector<std::vector<PageIndexKey>> page_indexes_;
};

/// httk's default storage name of a class: acronym-aware snake_case ("CrystalStructure" ->
/// "crystal_structure", "HTTPServer" -> "http_server").
std::string default_storage_name(std::string_view class_name);

}  // namespace mongostore::records
