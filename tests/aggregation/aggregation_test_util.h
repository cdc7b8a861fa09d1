// Helpers for the aggregation tests: expressions and pipelines written as extended JSON,
// results compared as canonical extended JSON (so numeric types matter).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine::agg_test {

using mongostore::testing::J;

/// Canonical JSON of {"r": <value>} for the value written as `json`.
inline std::string V(std::string_view json) {
  return J("{\"r\": " + std::string(json) + "}").to_json(bson::JsonMode::kCanonical);
}

inline std::string wrap(const bson::Value& v) {
  if (v.is_missing()) return "missing";
  bson::DocumentBuilder b;
  b.append("r", v);
  return b.finish().to_json(bson::JsonMode::kCanonical);
}

/// Evaluates the expression written as `expr` against `doc`; canonical {"r": result} or
/// "missing".
inline std::string E(std::string_view expr, std::string_view doc = "{}") {
  bson::Document spec = J("{\"e\": " + std::string(expr) + "}");
  Expression e = Expression::compile(spec.get("e"));
  bson::Document d = J(doc);
  bson::OwnedValue r = e.evaluate(d);
  return wrap(r.view());
}

/// The error code raised by compiling or evaluating `expr` against `doc`, or 0.
inline int32_t EE(std::string_view expr, std::string_view doc = "{}", std::string* msg = nullptr) {
  try {
    E(expr, doc);
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  return 0;
}

inline std::vector<bson::Document> docs_of(std::string_view array_json) {
  bson::Document d = J("{\"d\": " + std::string(array_json) + "}");
  std::vector<bson::Document> out;
  for (const bson::Element& e : d.get("d").as_array()) {
    out.push_back(bson::Document::copy_of(e.value.as_document()));
  }
  return out;
}

inline Pipeline P(std::string_view pipeline_json) {
  bson::Document p = J("{\"p\": " + std::string(pipeline_json) + "}");
  return Pipeline::compile(p.get("p").as_array());
}

inline std::string canon_docs(const std::vector<bson::Document>& docs) {
  bson::DocumentBuilder b;
  b.open_array("r");
  for (const bson::Document& d : docs) b.push(d);
  b.close();
  return b.finish().to_json(bson::JsonMode::kCanonical);
}

/// An in-memory database for $lookup, $out and $merge.
struct FakeDb {
  std::map<std::string, std::vector<bson::Document>, std::less<>> collections;
  AggregationContext context() {
    AggregationContext c;
    c.read_collection = [this](std::string_view coll, bson::DocumentView filter) {
      Matcher m = Matcher::compile(filter);
      std::vector<bson::Document> out;
      auto it = collections.find(coll);
      if (it != collections.end()) {
        for (const bson::Document& d : it->second) {
          if (m.matches(d)) out.push_back(d);
        }
      }
      return make_vector_source(std::move(out));
    };
    c.replace_collection = [this](std::string_view coll, DocumentSource& docs) {
      collections[std::string(coll)] = drain(docs);
    };
    c.merge_document = [this](std::string_view coll, bson::DocumentView filter,
                              const MergeDecision& decide) {
      Matcher m = Matcher::compile(filter);
      auto& docs = collections[std::string(coll)];
      for (bson::Document& d : docs) {
        if (m.matches(d)) {
          auto r = decide(d.view());
          if (r) d = *r;
          return;
        }
      }
      auto r = decide(std::nullopt);
      if (r) docs.push_back(*r);
    };
    return c;
  }
};

/// Runs `pipeline` over `docs` (both JSON arrays); canonical {"r": [results]}.
inline std::string R(std::string_view pipeline, std::string_view docs,
                     const AggregationContext& ctx = AggregationContext()) {
  auto out = P(pipeline).run(make_vector_source(docs_of(docs)), ctx);
  return canon_docs(drain(*out));
}

/// The error code of compiling or running `pipeline` over `docs`, or 0.
inline int32_t RE(std::string_view pipeline, std::string_view docs = "[]",
                  std::string* msg = nullptr,
                  const AggregationContext& ctx = AggregationContext()) {
  try {
    R(pipeline, docs, ctx);
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  return 0;
}

}  // namespace mongostore::engine::agg_test
