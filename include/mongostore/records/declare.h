// Declaring a plain C++ struct as a record, without macros and without touching the struct.
//
//   struct Author { std::string name; std::optional<std::string> email; };
//   struct Structure {
//     std::string formula;
//     int64_t spacegroup = 0;
//     std::array<std::array<records::Rational, 3>, 3> cell;
//     std::vector<Site> sites;                       // child records, saved first
//     std::shared_ptr<const Author> author;          // a reference (stored as author_sid)
//     std::string note;                              // metadata: not part of the identity
//   };
//
//   // Found by argument-dependent lookup: declare it in the struct's namespace.
//   inline auto declare_record(mongostore::records::Tag<Structure>) {
//     using namespace mongostore::records;
//     return record<Structure>("app.Structure",
//                              field("formula", &Structure::formula, indexed),
//                              field("spacegroup", &Structure::spacegroup, indexed),
//                              field("cell", &Structure::cell),
//                              field("sites", &Structure::sites),
//                              field("author", &Structure::author),
//                              field("note", &Structure::note, identity_skip))
//         .storage_name("structure")
//         .index({"spacegroup", "formula"});
//   }
//
// Member types and the stored form they get (schema.h has the table):
//   int64_t / int32_t, std::string, bool, Bytes, double, Rational, DateTime, Date;
//   std::array<std::array<Rational, C>, R> (a fixed matrix), std::vector<std::array<Rational, C>>
//   (variable rows); std::vector<X> of any of the scalar/encoded types (a child list);
//   a declared record R held by value, as std::shared_ptr<const R> (a reference; null is None
//   and needs `nullable`) or as std::optional<R>; std::vector<R> or
//   std::vector<std::shared_ptr<const R>> (a child list of records); std::optional<X> of any
//   non-list type (None omits the keys).
// Modifiers: indexed, unique, identity_skip, skip (not stored; fetch keeps the default),
// nullable (a shared_ptr reference may be null), as_tuple (a list whose identity node is a
// tuple, for records shared with Python code that declares a tuple).
// Any other member type does not compile; a reserved or repeated name throws SchemaError the
// first time the record type is used.
//
// Stored properties (httk's @stored_property): a value computed from the record by a function,
// written with the record under `f` like a field of the function's result type, queryable,
// sortable and pageable like a field, left out of the content id and never read back: the
// typed record has no member for it, the function recomputes it whenever it is wanted.
//
//   double volume_of(const Structure& s);                    // a free function
//   struct Structure { ...; int64_t nsites() const { return sites.size(); } };  // or a method
//
//   record<Structure>("app.Structure", field("formula", &Structure::formula),
//                     property("volume", &volume_of, indexed),
//                     property("nsites", &Structure::nsites),
//                     property("label", [](const Structure& s) { return s.formula + "!"; }));
//
// The function is called with `const T&` at most once per save (on a dedup hit its value is not
// compared with the stored one: it follows from the identity fields). Its result type is any
// field type except a record: scalars, encoded values, matrices, lists of those, and
// std::optional of a non-list (None omits the keys); a record or list of records is
// SchemaError.
// Modifiers: indexed, unique, as_tuple; identity_skip, skip and nullable are SchemaError (a
// property is never part of the identity; return std::optional for None). A free function or
// a method also names the property in queries (`s.field(&volume_of)`,
// `s.field(&Structure::nsites)`); a lambda's property is named by its name (`s.field("label")`).
// The function must be deterministic. A changed function changes what the typed record
// computes, not the values already stored, which are what the searcher sees: a content_id
// dedup hit rewrites nothing, by_value dedup compares stored properties too (so it inserts a
// new record), and the schema fingerprint does not see a function's body.
//
// Thread safety: a declaration is built once per type (a function-local static) and is
// immutable after; conversions may run concurrently.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mongostore/records/errors.h"
#include "mongostore/records/schema.h"
#include "mongostore/records/value.h"

namespace mongostore::records {

/// The argument that names a record type to `declare_record`.
template <class T>
struct Tag {};

/// A type with a `declare_record(Tag<T>)` found by argument-dependent lookup.
template <class T>
concept Declared = requires(Tag<T> tag) {
  declare_record(tag);
};

// --- modifiers -------------------------------------------------------------------------------
struct FieldModifier {
  enum Kind { kIndexed, kUnique, kIdentitySkip, kSkip, kNullable, kAsTuple } kind;
};
inline constexpr FieldModifier indexed{FieldModifier::kIndexed};
inline constexpr FieldModifier unique{FieldModifier::kUnique};
inline constexpr FieldModifier identity_skip{FieldModifier::kIdentitySkip};
inline constexpr FieldModifier skip{FieldModifier::kSkip};
inline constexpr FieldModifier nullable{FieldModifier::kNullable};
inline constexpr FieldModifier as_tuple{FieldModifier::kAsTuple};

// --- conversions between typed records and DynamicRecords -----------------------------------

/// State of one typed -> dynamic conversion (one save): the same shared object converts once,
/// and a graph that reaches itself is refused.
class ToDynamic {
 public:
  /// The DynamicRecord made for the object at `address` in this conversion, if any.
  Value::RecordPtr memo(const void* address) const {
    auto it = memo_.find(address);
    return it == memo_.end() ? nullptr : it->second;
  }
  void remember(const void* address, Value::RecordPtr record) { memo_[address] = record; }
  /// Marks `address` active while its fields convert; StorageProjectionCycleError when it
  /// already is.
  void enter(const void* address, const std::string& what) {
    if (!active_.insert(address).second) throw StorageProjectionCycleError(what);
  }
  void leave(const void* address) { active_.erase(address); }

 private:
  std::unordered_map<const void*, Value::RecordPtr> memo_;
  std::unordered_set<const void*> active_;
};

/// State of one dynamic -> typed conversion (one fetch): a record met twice becomes one shared
/// object, and `share` (set by the store) returns the object its identity cache already holds
/// for a stored record.
class FromDynamic {
 public:
  using Make = std::function<std::shared_ptr<const void>()>;
  /// (record, typeid name, make) -> the shared object for `record`.
  std::function<std::shared_ptr<const void>(const DynamicRecord&, const char*, const Make&)> share;

  template <class R>
  std::shared_ptr<const R> shared(const DynamicRecord& record, const Make& make) {
    auto key = std::pair<const void*, const char*>(&record, typeid(R).name());
    for (const auto& [k, v] : memo_) {
      if (k == key) return std::static_pointer_cast<const R>(v);
    }
    std::shared_ptr<const void> object = share ? share(record, typeid(R).name(), make) : make();
    memo_.emplace_back(key, object);
    return std::static_pointer_cast<const R>(object);
  }

 private:
  std::vector<std::pair<std::pair<const void*, const char*>, std::shared_ptr<const void>>> memo_;
};

template <class T>
class RecordType;

// --- field traits: the field type of a member type, and its conversions ---------------------
template <class M, class = void>
struct FieldTraits;  // undefined: a member type the store cannot represent

template <class M>
struct ScalarTraits {
  static constexpr bool kOptional = false;
  static constexpr bool kIsList = false;
};

/// A member type stored as one Value alternative (`Held`).
template <class CxxType, FieldKind Kind, class Held>
struct PlainTraits : ScalarTraits<CxxType> {
  static FieldType type() { return FieldType{Kind}; }
  static Value to(const CxxType& v, ToDynamic&) { return Value(Held(v)); }
  static CxxType from(const Value& v, FromDynamic&) { return static_cast<CxxType>(v.as<Held>()); }
};
template <>
struct FieldTraits<int64_t> : PlainTraits<int64_t, FieldKind::kInt, int64_t> {};
template <>
struct FieldTraits<int32_t> : PlainTraits<int32_t, FieldKind::kInt, int64_t> {};
template <>
struct FieldTraits<std::string> : PlainTraits<std::string, FieldKind::kString, std::string> {};
template <>
struct FieldTraits<bool> : PlainTraits<bool, FieldKind::kBool, bool> {};
template <>
struct FieldTraits<Bytes> : PlainTraits<Bytes, FieldKind::kBytes, Bytes> {};
template <>
struct FieldTraits<double> : PlainTraits<double, FieldKind::kFloat, double> {};
template <>
struct FieldTraits<Rational> : PlainTraits<Rational, FieldKind::kRational, Rational> {};
template <>
struct FieldTraits<DateTime> : PlainTraits<DateTime, FieldKind::kDateTime, DateTime> {};
template <>
struct FieldTraits<Date> : PlainTraits<Date, FieldKind::kDate, Date> {};

/// A fixed-shape rational matrix.
template <size_t R, size_t C>
struct FieldTraits<std::array<std::array<Rational, C>, R>> : ScalarTraits<void> {
  static_assert(R >= 1 && C >= 1, "a matrix field needs at least one row and one column");
  using M = std::array<std::array<Rational, C>, R>;
  static FieldType type() { return FieldType{FieldKind::kMatrix, R, C}; }
  static Value to(const M& m, ToDynamic&) {
    RationalMatrix out{R, C, {}};
    out.cells.reserve(R * C);
    for (const auto& row : m) out.cells.insert(out.cells.end(), row.begin(), row.end());
    return Value(std::move(out));
  }
  static M from(const Value& v, FromDynamic&) {
    const RationalMatrix& m = v.as<RationalMatrix>();
    if (m.rows != R || m.cols != C) throw SchemaError("matrix of the wrong shape");
    M out;
    for (size_t i = 0; i < R * C; ++i) out[i / C][i % C] = m.cells[i];
    return out;
  }
};

/// A rational matrix with any number of rows of C columns (stored as a child array).
template <size_t C>
struct FieldTraits<std::vector<std::array<Rational, C>>> : ScalarTraits<void> {
  static_assert(C >= 1, "a matrix field needs at least one column");
  using M = std::vector<std::array<Rational, C>>;
  static FieldType type() { return FieldType{FieldKind::kMatrix, 0, C}; }
  static Value to(const M& m, ToDynamic&) {
    RationalMatrix out{m.size(), C, {}};
    out.cells.reserve(m.size() * C);
    for (const auto& row : m) out.cells.insert(out.cells.end(), row.begin(), row.end());
    return Value(std::move(out));
  }
  static M from(const Value& v, FromDynamic&) {
    const RationalMatrix& m = v.as<RationalMatrix>();
    if (m.cols != C) throw SchemaError("matrix of the wrong shape");
    M out(m.rows);
    for (size_t i = 0; i < m.rows * C; ++i) out[i / C][i % C] = m.cells[i];
    return out;
  }
};

/// A declared record held by value: a reference that is never None.
template <Declared R>
struct FieldTraits<R> : ScalarTraits<void> {
  static FieldType type() {
    FieldType t{FieldKind::kReference};
    t.target = [] { return RecordType<R>::get().schema(); };
    return t;
  }
  static Value to(const R& r, ToDynamic& ctx) { return RecordType<R>::get().to_dynamic(r, ctx); }
  static R from(const Value& v, FromDynamic& ctx) {
    return RecordType<R>::get().from_dynamic(*v.as<Value::RecordPtr>(), ctx);
  }
};

/// A shared, immutable declared record: a reference (null is None with `nullable`).
template <Declared R>
struct FieldTraits<std::shared_ptr<const R>> : ScalarTraits<void> {
  static FieldType type() { return FieldTraits<R>::type(); }
  static Value to(const std::shared_ptr<const R>& r, ToDynamic& ctx) {
    if (!r) return Value();
    return RecordType<R>::get().to_dynamic(*r, ctx);
  }
  static std::shared_ptr<const R> from(const Value& v, FromDynamic& ctx) {
    if (v.is_null()) return nullptr;
    const DynamicRecord& record = *v.as<Value::RecordPtr>();
    return ctx.shared<R>(record, [&record, &ctx]() -> std::shared_ptr<const void> {
      return std::make_shared<const R>(RecordType<R>::get().from_dynamic(record, ctx));
    });
  }
};

/// std::optional<X>: None omits the keys.
template <class X>
struct FieldTraits<std::optional<X>> {
  static_assert(!FieldTraits<X>::kIsList, "an optional list is not supported: use an empty list");
  static constexpr bool kOptional = true;
  static constexpr bool kIsList = false;
  static FieldType type() { return FieldTraits<X>::type(); }
  static Value to(const std::optional<X>& v, ToDynamic& ctx) {
    return v ? FieldTraits<X>::to(*v, ctx) : Value();
  }
  static std::optional<X> from(const Value& v, FromDynamic& ctx) {
    if (v.is_null()) return std::nullopt;
    return FieldTraits<X>::from(v, ctx);
  }
};

/// std::vector<X> of scalars, encoded values or records: a child list.
template <class X>
struct IsRationalRow : std::false_type {};
template <size_t C>
struct IsRationalRow<std::array<Rational, C>> : std::true_type {};

template <class X>
struct FieldTraits<std::vector<X>, std::enable_if_t<!IsRationalRow<X>::value>> {
  static constexpr bool kOptional = false;
  static constexpr bool kIsList = true;
  static FieldType type() {
    FieldType element = FieldTraits<X>::type();
    if (element.kind == FieldKind::kList || element.kind == FieldKind::kMatrix) {
      throw SchemaError("a list of " + element.describe() + " is not supported");
    }
    FieldType t{FieldKind::kList};
    t.element = std::make_shared<const FieldType>(std::move(element));
    return t;
  }
  static Value to(const std::vector<X>& v, ToDynamic& ctx) {
    Value::List out;
    out.reserve(v.size());
    for (const X& x : v) {
      Value item = FieldTraits<X>::to(x, ctx);
      if (item.is_null()) throw SchemaError("a list element is None");
      out.push_back(std::move(item));
    }
    return Value(std::move(out));
  }
  static std::vector<X> from(const Value& v, FromDynamic& ctx) {
    std::vector<X> out;
    if (v.is_null()) return out;
    const Value::List& items = v.as<Value::List>();
    out.reserve(items.size());
    for (const Value& item : items) out.push_back(FieldTraits<X>::from(item, ctx));
    return out;
  }
};

// --- declarations ----------------------------------------------------------------------------

/// One declared field of T: its schema and its two conversions.
template <class T>
struct FieldDecl {
  FieldSchema schema;
  /// The member this field reads (its type and bytes), so a query can name a field by member
  /// pointer (searcher.h: `s.field(&Structure::spacegroup)`).
  std::string member_key;
  std::function<Value(const T&, ToDynamic&)> to;
  std::function<void(T&, const Value&, FromDynamic&)> from;
};

/// A key identifying a member pointer: its type and its bytes (member pointers of different
/// types cannot be compared directly).
template <class T, class M>
std::string member_key_of(M T::*member) {
  std::string key(typeid(M T::*).name());
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&member), sizeof member);
  return key;
}

/// Applies a modifier a field and a stored property take alike (indexed, unique, as_tuple) to
/// `schema`, whose name and type are already set; `what` ("field", "stored property") names
/// it in the SchemaError of as_tuple on a type that is not a list. The other modifiers are
/// each declaration's own (they differ): this leaves `schema` as it is for them.
inline void apply_shared_modifier(FieldSchema& schema, FieldModifier modifier,
                                  std::string_view what) {
  switch (modifier.kind) {
    case FieldModifier::kIndexed:
      schema.indexed = true;
      break;
    case FieldModifier::kUnique:
      schema.unique = true;
      break;
    case FieldModifier::kAsTuple:
      if (schema.type.kind != FieldKind::kList) {
        throw SchemaError(std::string(what) + " '" + schema.name +
                          "': as_tuple applies to lists only");
      }
      schema.type.tuple = true;
      break;
    case FieldModifier::kIdentitySkip:
    case FieldModifier::kSkip:
    case FieldModifier::kNullable:
      break;
  }
}

template <class T, class M, class... Mods>
FieldDecl<T> field(std::string name, M T::*member, Mods... modifiers) {
  static_assert((std::is_same_v<Mods, FieldModifier> && ...), "field modifiers only");
  using Traits = FieldTraits<M>;
  FieldDecl<T> decl;
  decl.member_key = member_key_of(member);
  decl.schema.name = std::move(name);
  decl.schema.type = Traits::type();
  decl.schema.optional = Traits::kOptional;
  bool allow_null = Traits::kOptional;
  const std::initializer_list<FieldModifier> all = {modifiers...};
  for (FieldModifier m : all) {
    switch (m.kind) {
      case FieldModifier::kIndexed:
      case FieldModifier::kUnique:
      case FieldModifier::kAsTuple:
        apply_shared_modifier(decl.schema, m, "field");
        break;
      case FieldModifier::kIdentitySkip:
        decl.schema.identity = Identity::kIdentitySkip;
        break;
      case FieldModifier::kSkip:
        decl.schema.identity = Identity::kSkip;
        break;
      case FieldModifier::kNullable:
        decl.schema.optional = true;
        allow_null = true;
        break;
    }
  }
  std::string field_name = decl.schema.name;
  decl.to = [member, allow_null, field_name](const T& object, ToDynamic& ctx) {
    Value v = Traits::to(object.*member, ctx);
    if (v.is_null() && !allow_null) {
      throw SchemaError(field_name + " cannot be None (declare it nullable or std::optional)");
    }
    return v;
  };
  decl.from = [member](T& object, const Value& v, FromDynamic& ctx) {
    object.*member = Traits::from(v, ctx);
  };
  return decl;
}

/// A key identifying a free function `R (*)(const T&)` a stored property is computed by.
template <class F>
std::string function_key_of(F function) {
  static_assert(std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>);
  std::string key(typeid(F).name());
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&function), sizeof function);
  return key;
}

/// A stored property before it knows its record type: `record<T>` resolves it into a
/// FieldDecl<T> (the result type of calling `compute` with `const T&`).
template <class F>
struct PropertyDecl {
  std::string name;
  F compute;
  std::vector<FieldModifier> modifiers;

  template <class T>
  FieldDecl<T> resolve() const {
    static_assert(std::is_invocable_v<const F&, const T&>,
                  "a stored property's function takes the record as `const T&`");
    using Result = std::remove_cvref_t<std::invoke_result_t<const F&, const T&>>;
    using Traits = FieldTraits<Result>;
    FieldDecl<T> decl;
    if constexpr (std::is_member_function_pointer_v<F>) {
      decl.member_key = member_key_of(compute);
    } else if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>) {
      decl.member_key = function_key_of(compute);
    }
    decl.schema.name = name;
    decl.schema.type = Traits::type();
    decl.schema.optional = Traits::kOptional;
    decl.schema.identity = Identity::kDerived;
    for (FieldModifier m : modifiers) {
      switch (m.kind) {
        case FieldModifier::kIndexed:
        case FieldModifier::kUnique:
        case FieldModifier::kAsTuple:
          apply_shared_modifier(decl.schema, m, "stored property");
          break;
        case FieldModifier::kIdentitySkip:
        case FieldModifier::kSkip:
          throw SchemaError("stored property '" + name +
                            "': identity_skip and skip do not apply (a stored property is "
                            "stored and never part of the identity)");
        case FieldModifier::kNullable:
          throw SchemaError("stored property '" + name +
                            "': nullable does not apply (return std::optional for None)");
      }
    }
    const bool allow_null = Traits::kOptional;
    decl.to = [compute = compute, allow_null, field_name = name](const T& object, ToDynamic& ctx) {
      Value v = Traits::to(std::invoke(compute, object), ctx);
      if (v.is_null() && !allow_null) {
        throw SchemaError("stored property " + field_name +
                          " cannot be None (return std::optional)");
      }
      return v;
    };
    // Never read back: the typed record has no member for it (RecordType::from_dynamic).
    decl.from = [](T&, const Value&, FromDynamic&) {};
    return decl;
  }
};

/// A stored property named `name`, computed by `compute` (a free function, a const method or
/// any callable taking `const T&`); see the top of this file.
template <class F, class... Mods>
PropertyDecl<F> property(std::string name, F compute, Mods... modifiers) {
  static_assert((std::is_same_v<Mods, FieldModifier> && ...), "field modifiers only");
  return PropertyDecl<F>{std::move(name), std::move(compute), {modifiers...}};
}

template <class T>
FieldDecl<T> resolve_decl(FieldDecl<T> decl) {
  return decl;
}
template <class T, class F>
FieldDecl<T> resolve_decl(const PropertyDecl<F>& decl) {
  return decl.template resolve<T>();
}

/// The declaration of record type T: build it with record<T>(...) and the setters below.
template <class T>
class RecordDecl {
 public:
  RecordDecl(std::string identity_name, std::vector<FieldDecl<T>> fields)
      : identity_name_(std::move(identity_name)), fields_(std::move(fields)) {}
  /// The collection (default: the identity name's last component in snake_case).
  RecordDecl&& storage_name(std::string name) && {
    storage_name_ = std::move(name);
    return std::move(*this);
  }
  RecordDecl&& dedup(Dedup policy) && {
    dedup_ = policy;
    return std::move(*this);
  }
  /// A composite index over these fields (scalar, encoded or reference fields).
  RecordDecl&& index(std::vector<std::string> field_names) && {
    indexes_.push_back(std::move(field_names));
    return std::move(*this);
  }
  /// A page order served by an index: the store creates it with the collection, the index
  /// Searcher::ensure_page_index would make for page() ordered by outputs of these fields in
  /// these directions (`{{"energy"}, {"spacegroup", true}}`: energy ascending, then
  /// spacegroup descending, then the sid).
  RecordDecl&& page_index(std::vector<PageIndexKey> keys) && {
    page_indexes_.push_back(std::move(keys));
    return std::move(*this);
  }

 private:
  friend class RecordType<T>;
  std::string identity_name_;
  std::string storage_name_;
  Dedup dedup_ = Dedup::kContentId;
  std::vector<std::vector<std::string>> indexes_;
  std::vector<std::vector<PageIndexKey>> page_indexes_;
  std::vector<FieldDecl<T>> fields_;
};

template <class T, class... Fields>
RecordDecl<T> record(std::string identity_name, Fields... fields) {
  static_assert(std::is_default_constructible_v<T>, "a record type must be default-constructible");
  return RecordDecl<T>(std::move(identity_name),
                       std::vector<FieldDecl<T>>{resolve_decl<T>(std::move(fields))...});
}

/// The resolved declaration of T: its runtime schema and the conversions of its fields.
template <class T>
class RecordType {
 public:
  static const RecordType& get() {
    static const RecordType type(declare_record(Tag<T>{}));
    return type;
  }
  const std::shared_ptr<const RecordSchema>& schema() const { return schema_; }
  /// The name of the field declared on `member` (a data member, or the method of a stored
  /// property); SchemaError when no field reads it.
  template <class M>
  const std::string& field_name(M T::*member) const {
    return name_of_key(member_key_of(member), "member");
  }
  /// The name of the stored property computed by the free function `compute`; SchemaError
  /// when no property is.
  template <class R>
  const std::string& field_name(R (*compute)(const T&)) const {
    return name_of_key(function_key_of(compute), "function");
  }

  Value::RecordPtr to_dynamic(const T& object, ToDynamic& ctx) const {
    if (Value::RecordPtr done = ctx.memo(&object)) return done;
    ctx.enter(&object, schema_->identity_name());
    std::vector<Value> values;
    values.reserve(fields_.size());
    for (const auto& f : fields_) {
      values.push_back(f.schema.identity == Identity::kSkip ? Value() : f.to(object, ctx));
    }
    ctx.leave(&object);
    auto record = std::make_shared<const DynamicRecord>(schema_, std::move(values));
    ctx.remember(&object, record);
    return record;
  }
  T from_dynamic(const DynamicRecord& record, FromDynamic& ctx) const {
    T object{};
    for (size_t i = 0; i < fields_.size(); ++i) {
      // A stored property's stored value is not trusted: its function recomputes it.
      if (fields_[i].schema.identity == Identity::kSkip || fields_[i].schema.derived()) continue;
      fields_[i].from(object, record.fields()[i], ctx);
    }
    return object;
  }

 private:
  explicit RecordType(RecordDecl<T> decl) : fields_(std::move(decl.fields_)) {
    std::vector<FieldSchema> schemas;
    for (const auto& f : fields_) schemas.push_back(f.schema);
    std::string storage = decl.storage_name_.empty()
                              ? default_storage_name(last_component(decl.identity_name_))
                              : decl.storage_name_;
    schema_ = std::make_shared<const RecordSchema>(
        decl.identity_name_, std::move(storage), decl.dedup_, std::move(schemas),
        std::move(decl.indexes_), std::move(decl.page_indexes_));
  }
  const std::string& name_of_key(const std::string& key, const char* what) const {
    for (const auto& f : fields_) {
      if (!f.member_key.empty() && f.member_key == key) return f.schema.name;
    }
    throw SchemaError(schema_->identity_name() + " declares no field on this " + what);
  }
  static std::string_view last_component(std::string_view name) {
    size_t dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
  }

  std::shared_ptr<const RecordSchema> schema_;
  std::vector<FieldDecl<T>> fields_;
};

/// The runtime schema of a declared type.
template <Declared T>
const std::shared_ptr<const RecordSchema>& schema_of() {
  return RecordType<T>::get().schema();
}

}  // namespace mongostore::records
