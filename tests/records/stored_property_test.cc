// Stored properties (reference §1.1 modifiers, §2, §8; httk's @stored_property) on every
// backend: computed at save and written under `f` like a field, left out of the content id,
// never read back into the typed record, indexed and validated like a field, queryable,
// sortable, pageable and OPTIMADE-filterable like a field; the fingerprint says `derived`, and
// a new property is not an additive upgrade.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"
#include "records/record_validator.h"
#include "records/store_fixture.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;

// A cube of edge `a` holding `natoms` atoms; its volume, doubled count, half count, first tag
// and labels are stored properties.
struct Prism {
  std::string formula;
  int64_t natoms = 0;
  double a = 0;
  std::vector<std::string> tags;
  int64_t doubled() const { return natoms * 2; }
};
double volume_of(const Prism& p) {
  return p.a * p.a * p.a;
}
double never_declared(const Prism& p) {
  return p.a;
}

// What a property computed by a function that changed between two saves sees (the function is
// meant to be deterministic; this one reads a variable so the test can change it).
int64_t g_generation = 1;

inline auto declare_record(Tag<Prism>) {
  return record<Prism>("mongostore.tests.Prism", field("formula", &Prism::formula, indexed),
                       field("natoms", &Prism::natoms), field("a", &Prism::a),
                       field("tags", &Prism::tags), property("volume", &volume_of, indexed),
                       property("doubled", &Prism::doubled),
                       property("half", [](const Prism& p) { return Rational(p.natoms, 2); }),
                       property("first_tag",
                                [](const Prism& p) -> std::optional<std::string> {
                                  if (p.tags.empty()) return std::nullopt;
                                  return p.tags.front();
                                }),
                       property("labels",
                                [](const Prism& p) {
                                  std::vector<std::string> out;
                                  for (const std::string& t : p.tags) out.push_back(t + "!");
                                  return out;
                                }),
                       property("generation", [](const Prism&) { return g_generation; }))
      .storage_name("prism");
}

// The same record declared without its properties (another collection).
struct PlainPrism {
  std::string formula;
  int64_t natoms = 0;
  double a = 0;
  std::vector<std::string> tags;
};
inline auto declare_record(Tag<PlainPrism>) {
  return record<PlainPrism>("mongostore.tests.Prism", field("formula", &PlainPrism::formula),
                            field("natoms", &PlainPrism::natoms), field("a", &PlainPrism::a),
                            field("tags", &PlainPrism::tags))
      .storage_name("plain_prism");
}

// A record referring to a prism: its properties are reached through the reference.
struct Mount {
  std::string name;
  std::shared_ptr<const Prism> prism;
};
inline auto declare_record(Tag<Mount>) {
  return record<Mount>("mongostore.tests.Mount", field("name", &Mount::name),
                       field("prism", &Mount::prism));
}

// by_value dedup, which compares the stored properties like the fields.
struct Tally {
  std::string name;
};
inline auto declare_record(Tag<Tally>) {
  return record<Tally>("mongostore.tests.Tally", field("name", &Tally::name),
                       property("generation", [](const Tally&) { return g_generation; }))
      .dedup(Dedup::kByValue);
}

Prism make_prism(std::string formula, int64_t natoms, double a,
                 std::vector<std::string> tags = {}) {
  Prism p;
  p.formula = std::move(formula);
  p.natoms = natoms;
  p.a = a;
  p.tags = std::move(tags);
  return p;
}

class StoredPropertyContract : public StoreFixture {
 protected:
  StoredPropertyContract() : StoreFixture("stored_property_test") {}
  void SetUp() override {
    StoreFixture::SetUp();
    g_generation = 1;
  }

  // Ten prisms: edges 1..10 (volumes 1, 8, ..., 1000), natoms 1..10 (doubled 2..20).
  std::vector<int64_t> fill(RecordStore& store) {
    std::vector<int64_t> sids;
    for (int i = 1; i <= 10; ++i) {
      std::vector<std::string> tags;
      if (i % 2 == 0) tags.push_back("even");
      if (i % 3 == 0) tags.push_back("three");
      sids.push_back(store.save(make_prism("P" + std::to_string(i), i, i, tags)));
    }
    return sids;
  }
};

TEST_P(StoredPropertyContract, SaveWritesThePropertiesUnderFAndFetchRecomputesThem) {
  RecordStore store = open();
  int64_t sid = store.save(make_prism("NaCl", 3, 2.0, {"salt", "cubic"}));
  int64_t bare = store.save(make_prism("X", 1, 1.0));

  auto doc = coll("prism").find_one(make_document("_id", sid));
  ASSERT_TRUE(doc);
  bson::DocumentView f = doc->get("f").as_document();
  EXPECT_EQ(f.get("volume").as_double(), 8.0);
  EXPECT_EQ(f.get("volume_exact").as_string(), "0x1.0000000000000p+3");
  EXPECT_EQ(f.get("doubled").as_int64(), 6);
  EXPECT_EQ(f.get("half").as_double(), 1.5);
  EXPECT_EQ(f.get("half_exact").as_string(), "3/2");
  EXPECT_EQ(f.get("first_tag").as_string(), "salt");
  std::vector<std::string> labels;
  for (const bson::Element& e : f.get("labels").as_array()) {
    labels.emplace_back(e.value.as_document().get("labels").as_string());
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"salt!", "cubic!"}));
  EXPECT_EQ(f.get("generation").as_int64(), 1);
  // An optional property that is None omits its keys; an empty list property is [].
  auto bare_doc = coll("prism").find_one(make_document("_id", bare));
  ASSERT_TRUE(bare_doc);
  EXPECT_TRUE(bare_doc->get("f").as_document().get("first_tag").is_missing());
  EXPECT_TRUE(bare_doc->get("f").as_document().get("labels").as_array().empty());

  // Every document satisfies the validator, which requires the property's columns.
  auto validator = record_validator(*schema_of<Prism>(), true);
  EXPECT_EQ(coll("prism").count_documents(validator), 2);
  client::UpdateOptions bypass;
  bypass.bypass_document_validation = true;
  coll("prism").update_one(make_document("_id", bare),
                           make_document("$unset", make_document("f.volume_exact", "")), bypass);
  EXPECT_EQ(coll("prism").count_documents(validator), 1);

  // The property's index, beside the field's.
  std::set<std::string> names;
  for (const Document& ix : coll("prism").list_indexes()) {
    names.insert(std::string(ix.get("name").as_string()));
  }
  EXPECT_TRUE(names.count("ix_prism_volume"));
  EXPECT_TRUE(names.count("ix_prism_formula"));

  // The stored value is what queries see, never what fetch returns: a tampered one does not
  // reach the typed record, whose function recomputes the property.
  coll("prism").update_one(make_document("_id", sid),
                           make_document("$set", make_document("f.volume", 99.0, "f.volume_exact",
                                                               "0x1.8c00000000000p+6")),
                           bypass);
  RecordStore fresh = open();  // no cached record
  auto fetched = fresh.fetch<Prism>(sid);
  ASSERT_TRUE(fetched);
  EXPECT_EQ(fetched->formula, "NaCl");
  EXPECT_EQ(volume_of(*fetched), 8.0);
  EXPECT_EQ(fetched->doubled(), 6);
  // A stored value that does not decode reads as None in the untyped record, and the typed
  // fetch does not care.
  coll("prism").update_one(make_document("_id", sid),
                           make_document("$set", make_document("f.half_exact", "not a rational")),
                           bypass);
  RecordStore third = open();
  auto dynamic = third.fetch(schema_of<Prism>(), sid);
  EXPECT_TRUE(dynamic->get("half").is_null());
  EXPECT_EQ(dynamic->get("volume").as<double>(), 99.0);  // what a query sees
  EXPECT_EQ(third.fetch<Prism>(sid)->natoms, 3);
}

TEST_P(StoredPropertyContract, PropertiesAreNotPartOfTheIdentityAndADedupHitKeepsTheFirstValue) {
  RecordStore store = open();
  Prism p = make_prism("NaCl", 3, 2.0, {"salt"});
  PlainPrism plain{"NaCl", 3, 2.0, {"salt"}};
  const std::string id = store.content_id(p);
  EXPECT_EQ(id, store.content_id(plain));
  int64_t sid = store.save(p);
  store.save(plain);
  EXPECT_EQ(coll("prism").find_one(make_document("_id", sid))->get("content_id").as_string(), id);
  EXPECT_EQ(coll("plain_prism").find_one(Document())->get("content_id").as_string(), id);
  EXPECT_EQ(store.fetch_by_content_id<Prism>(id)->formula, "NaCl");

  // A dedup hit compares no property (they follow from the identity fields): a function that
  // changed since the first save neither conflicts nor rewrites the stored value.
  g_generation = 2;
  EXPECT_EQ(store.save(p), sid);
  RecordStore other = open();  // no identity cache: the hit is found by content id
  EXPECT_EQ(other.save(p), sid);
  EXPECT_EQ(coll("prism").count_documents(Document()), 1);
  auto doc = coll("prism").find_one(make_document("_id", sid));
  EXPECT_EQ(doc->get("f").as_document().get("generation").as_int64(), 1);

  // by_value dedup finds a record by its stored columns, properties included (httk's query
  // holds every non-child key of `f`): a changed value is a new record.
  g_generation = 1;
  int64_t tally = store.save(Tally{"t"});
  EXPECT_EQ(store.save(Tally{"t"}), tally);
  g_generation = 2;
  EXPECT_NE(other.save(Tally{"t"}), tally);
  EXPECT_EQ(coll("tally").count_documents(Document()), 2);
}

TEST_P(StoredPropertyContract, PropertiesAreQueriedSortedOutputAndPagedLikeFields) {
  RecordStore store = open();
  std::vector<int64_t> sids = fill(store);

  // Conditions by name, by free function, by method; a list property's has.
  Searcher s = store.searcher();
  Var v = s.variable<Prism>();
  s.add(v.field(&volume_of) > Value(100.0));              // edges 5..10
  s.add(v.field(&Prism::doubled) <= Value(int64_t{18}));  // natoms <= 9
  s.add(v.field("labels").has(Value("even!")));           // even
  s.output(v.field("formula"), "formula");
  s.output(v.field("volume"), "volume");
  s.output(v.field("half"), "half");
  s.add_sort(v.field("volume"), /*descending=*/true);
  EXPECT_EQ(s.count(), 2);
  ResultSet rows = s.results();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["formula"].as<std::string>(), "P8");
  EXPECT_EQ(rows[0]["volume"].as<double>(), 512.0);
  EXPECT_EQ(rows[0]["half"].as<Rational>(), Rational(4));
  EXPECT_EQ(rows[1]["formula"].as<std::string>(), "P6");

  // Optional property: null never satisfies a comparison or its negation.
  Searcher tagged = store.searcher();
  Var t = tagged.variable<Prism>();
  tagged.add(~(t.field("first_tag") == Value("zzz")));
  EXPECT_EQ(tagged.count(), 7);  // the seven tagged prisms (2, 3, 4, 6, 8, 9, 10), no null
  // Exact comparisons on a rational property.
  Searcher exact = store.searcher();
  Var e = exact.variable<Prism>();
  exact.add(e.field("half").exact(CompareOp::kEq, Rational(5, 2)));
  exact.output(e.sid(), "sid");
  ASSERT_EQ(exact.results().size(), 1u);
  EXPECT_EQ(exact.results()[0]["sid"].as<int64_t>(), sids[4]);

  // Pages ordered by a property, forward to the end.
  Searcher paged = store.searcher();
  Var p = paged.variable<Prism>();
  paged.add(p.field("doubled") > Value(int64_t{4}));  // natoms 3..10
  paged.output(p.field("volume"), "volume");
  paged.output(p.field("formula"), "formula");
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    ResultPage page = paged.page(3, {{"volume", true}}, cursor, true);
    EXPECT_EQ(page.total, 8);
    for (const ResultRow& r : page.rows) seen.push_back(r["formula"].as<std::string>());
    cursor = page.next;
    ++pages;
  } while (cursor && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"P10", "P9", "P8", "P7", "P6", "P5", "P4", "P3"}));

  // Through a reference, by function and by name.
  auto big = std::make_shared<const Prism>(make_prism("P20", 20, 20.0));
  store.save(Mount{"big", big});
  store.save(Mount{"small", std::make_shared<const Prism>(make_prism("P1", 1, 1.0))});
  Searcher mounts = store.searcher();
  Var m = mounts.variable<Mount>();
  mounts.add((m.field("prism").field(&volume_of) > Value(1000.0)) &
             (m.field("prism").field("labels").length(CompareOp::kEq, 0)));
  mounts.output(m.field("name"), "name");
  mounts.output(m.field("prism").field(&Prism::doubled), "doubled");
  ResultSet mounted = mounts.results();
  ASSERT_EQ(mounted.size(), 1u);
  EXPECT_EQ(mounted[0]["name"].as<std::string>(), "big");
  EXPECT_EQ(mounted[0]["doubled"].as<int64_t>(), 40);

  // A free function that computes no property of the record, and a property of another type.
  Searcher bad = store.searcher();
  Var b = bad.variable<Prism>();
  EXPECT_THROW(b.field(&never_declared), SchemaError);
  Var other = bad.variable<PlainPrism>();
  EXPECT_THROW(other.field(&volume_of), SchemaError);
}

TEST_P(StoredPropertyContract, OptimadeFiltersNamePropertiesLikeFields) {
  RecordStore store = open();
  std::vector<int64_t> sids = fill(store);
  OptimadeSearch found = optimade_filter_searcher(
      store, schema_of<Prism>(),
      R"(_httk_custom_volume >= 64 AND _httk_custom_doubled < 16 AND )"
      R"(_httk_custom_labels HAS "three!" AND _httk_custom_first_tag IS KNOWN)");
  found.searcher.output(found.record.sid(), "sid");
  ResultPage page = found.searcher.page(10, {{"sid"}});
  ASSERT_EQ(page.rows.size(), 1u);  // edge 6 (volume 216, doubled 12, tags even, three)
  EXPECT_EQ(page.rows[0]["sid"].as<int64_t>(), sids[5]);
}

TEST_P(StoredPropertyContract, TheFingerprintSaysDerivedAndANewPropertyIsNoAdditiveUpgrade) {
  // In a family, so its fingerprint is in the layout's entry_schemas.
  const std::vector<EntryFamily> family = {
      EntryFamily{"Prisms", "def:p", {EntryRecord{"prism", schema_of<Prism>(), "def:pr"}}}};
  {
    RecordStore store = open(options(family));
    store.save(make_prism("NaCl", 3, 2.0));
  }
  auto layout = coll("_httk_store_metadata").find_one(make_document("_id", "layout"));
  ASSERT_TRUE(layout);
  std::string schemas(layout->get("entry_schemas").as_string());
  // httk's field fingerprint of a stored property of type float (sorted compact JSON).
  EXPECT_NE(schemas.find(R"("volume":{"child":null,"codec_name":"float","columns":[)"
                         R"({"indexed":true,"kind":"float","name":"volume","nullable":false,)"
                         R"("unique":false},{"indexed":true,"kind":"str","name":"volume_exact",)"
                         R"("nullable":false,"unique":false}],"container":null,"derived":true,)"
                         R"("identity_skipped":false,"optional":false,"related":null,)"
                         R"("role":"encoded","shape":null,"target":null})"),
            std::string::npos)
      << schemas;
  size_t derived = 0;
  for (size_t at = schemas.find(R"("derived":true)"); at != std::string::npos;
       at = schemas.find(R"("derived":true)", at + 1)) {
    ++derived;
  }
  EXPECT_EQ(derived, 6u);  // the six properties, no field

  // A runtime declaration of the gadget without and then with a new optional property.
  auto gadget = [](bool with_property) {
    std::vector<FieldSchema> fields;
    fields.push_back(FieldSchema{"name", FieldType{FieldKind::kString}});
    if (with_property) {
      FieldSchema length{"length", FieldType{FieldKind::kInt}};
      length.optional = true;
      length.identity = Identity::kDerived;
      fields.push_back(length);
    }
    return std::make_shared<const RecordSchema>("mongostore.tests.Gadget", "gadget",
                                                Dedup::kContentId, std::move(fields),
                                                std::vector<std::vector<std::string>>{});
  };
  {
    RecordStore store = open(options(family));
    store.save(
        std::make_shared<const DynamicRecord>(gadget(false), std::vector<Value>{Value("g")}));
  }
  RecordStoreOptions o = options(family);
  o.upgrade = true;
  RecordStore store = open(o);
  try {
    store.save(std::make_shared<const DynamicRecord>(
        gadget(true), std::vector<Value>{Value("h"), Value(int64_t{1})}));
    FAIL() << "a new stored property was accepted as an additive upgrade";
  } catch (const StorageLayoutUpgradeRequiredError& e) {
    EXPECT_NE(e.diff().find("gadget"), std::string::npos) << e.diff();
    EXPECT_NE(e.hint().find("not additive"), std::string::npos) << e.hint();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoredPropertyContract, backend_params(), store_param_name);

// --- declarations the store refuses ---------------------------------------------------------

struct SkippedProperty {
  double a = 0;
};
double edge(const SkippedProperty& b) {
  return b.a;
}
inline auto declare_record(Tag<SkippedProperty>) {
  return record<SkippedProperty>("mongostore.tests.SkippedProperty",
                                 field("a", &SkippedProperty::a),
                                 property("edge", &edge, identity_skip));
}
struct NullableProperty {
  double a = 0;
};
inline auto declare_record(Tag<NullableProperty>) {
  return record<NullableProperty>(
      "mongostore.tests.NullableProperty", field("a", &NullableProperty::a),
      property(
          "edge", [](const NullableProperty& r) { return r.a; }, nullable));
}
struct RecordValuedProperty {
  double a = 0;
  std::shared_ptr<const Prism> inside;
};
inline auto declare_record(Tag<RecordValuedProperty>) {
  return record<RecordValuedProperty>(
      "mongostore.tests.RecordValuedProperty", field("a", &RecordValuedProperty::a),
      property("inner", [](const RecordValuedProperty& r) { return r.inside; }));
}
struct ClashingProperty {
  double a = 0;
};
inline auto declare_record(Tag<ClashingProperty>) {
  return record<ClashingProperty>("mongostore.tests.ClashingProperty",
                                  field("a", &ClashingProperty::a),
                                  property("a", [](const ClashingProperty& r) { return r.a; }));
}
struct ReservedProperty {
  double a = 0;
};
inline auto declare_record(Tag<ReservedProperty>) {
  return record<ReservedProperty>("mongostore.tests.ReservedProperty",
                                  field("a", &ReservedProperty::a),
                                  property("sid", [](const ReservedProperty& r) { return r.a; }));
}
struct NoneProperty {
  std::optional<double> a;
};
inline auto declare_record(Tag<NoneProperty>) {
  return record<NoneProperty>(
      "mongostore.tests.NoneProperty", field("a", &NoneProperty::a),
      property("twice", [](const NoneProperty& r) { return r.a ? *r.a * 2 : 0.0; }),
      property("sqrt", [](const NoneProperty& r) { return std::optional<double>(r.a); }));
}

std::string schema_error(const std::function<void()>& use) {
  try {
    use();
  } catch (const SchemaError& e) {
    return e.what();
  }
  return "no SchemaError";
}

TEST(StoredPropertyDeclaration, ModifiersRecordsAndNamesThatDoNotApplyAreSchemaErrors) {
  EXPECT_NE(schema_error([] {
              schema_of<SkippedProperty>();
            }).find("stored property 'edge': identity_skip and skip do not apply"),
            std::string::npos);
  EXPECT_NE(schema_error([] {
              schema_of<NullableProperty>();
            }).find("stored property 'edge': nullable does not apply"),
            std::string::npos);
  EXPECT_NE(schema_error([] {
              schema_of<RecordValuedProperty>();
            }).find("mongostore.tests.RecordValuedProperty.inner: a stored property of records"),
            std::string::npos);
  EXPECT_NE(schema_error([] {
              schema_of<ClashingProperty>();
            }).find("mongostore.tests.ClashingProperty.a: declared twice"),
            std::string::npos);
  EXPECT_NE(schema_error([] { schema_of<ReservedProperty>(); }).find("reserved"),
            std::string::npos);
  // A hand-built schema is held to the same rule.
  FieldSchema list_of_records{"parts", FieldType{FieldKind::kList}};
  FieldType element{FieldKind::kReference};
  element.target = [] { return schema_of<Prism>(); };
  list_of_records.type.element = std::make_shared<const FieldType>(element);
  list_of_records.identity = Identity::kDerived;
  EXPECT_THROW(RecordSchema("x.Y", "y", Dedup::kContentId, {list_of_records}, {}), SchemaError);
}

TEST(StoredPropertyDeclaration, IndexedUniqueAndAsTupleApplyAsToAField) {
  FieldDecl<Prism> plain = property("volume", &volume_of).resolve<Prism>();
  EXPECT_FALSE(plain.schema.indexed);
  EXPECT_FALSE(plain.schema.unique);
  EXPECT_TRUE(plain.schema.derived());
  FieldDecl<Prism> marked = property("volume", &volume_of, indexed, unique).resolve<Prism>();
  EXPECT_TRUE(marked.schema.indexed);
  EXPECT_TRUE(marked.schema.unique);
  EXPECT_TRUE(marked.schema.derived());
  auto tags = [](const Prism& p) { return p.tags; };
  EXPECT_FALSE(property("tags", tags).resolve<Prism>().schema.type.tuple);
  EXPECT_TRUE(property("tags", tags, as_tuple).resolve<Prism>().schema.type.tuple);
  EXPECT_NE(schema_error([] {
              property("volume", &volume_of, as_tuple).resolve<Prism>();
            }).find("stored property 'volume': as_tuple applies to lists only"),
            std::string::npos);
}

TEST(StoredPropertyDeclaration, ThePropertyIsComputedAtConversionAndNeverReadBack) {
  const RecordType<NoneProperty>& type = RecordType<NoneProperty>::get();
  ToDynamic to;
  Value::RecordPtr with = type.to_dynamic(NoneProperty{4.0}, to);
  EXPECT_EQ(with->get("twice").as<double>(), 8.0);
  EXPECT_EQ(with->get("sqrt").as<double>(), 4.0);
  ToDynamic to_none;
  Value::RecordPtr none = type.to_dynamic(NoneProperty{}, to_none);
  EXPECT_TRUE(none->get("sqrt").is_null());
  // The schema marks them derived; the identity leaves them out.
  EXPECT_TRUE(schema_of<NoneProperty>()->fields()[1].derived());
  EXPECT_FALSE(schema_of<NoneProperty>()->fields()[0].derived());
  FromDynamic from;
  NoneProperty back = type.from_dynamic(*with, from);
  EXPECT_EQ(back.a, 4.0);
}

}  // namespace
}  // namespace mongostore::records::testing
