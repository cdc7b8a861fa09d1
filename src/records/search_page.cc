// Keyset paging of a searcher (Searcher::page; reference §9, "Keyset paging").
//
// A page is the selecting stages, a rank per order key (nulls first or last), an optional
// seek past the token's anchor row, a sort on (rank, value) per key and the root's sid, and
// a limit of size + 1 (the extra row says whether there is more). Backward pages run the
// sort flipped and are reversed for display. Pages are not a snapshot: a row inserted between
// two pages shows up on a later page if it sorts after the anchor, and no row that existed
// before the first page is repeated or lost.
//
// Cost: the seek replaces an offset, but the computed null ranks and the $expr seek keep the
// planner from serving it with an index today, so each page sorts every matching row (a
// top-k sort). Making the common orders index-served is left to do (docs/record-store.md).
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/records/content_id.h"
#include "records/canonical_json.h"
#include "records/page_token.h"
#include "records/searcher_impl.h"
#include "records/store_layout.h"

namespace mongostore::records {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_array;
using bson::make_document;

namespace {

constexpr int64_t kMaxPageSize = 10'000;
constexpr size_t kMaxOrderKeys = 32;

struct Key {
  std::string column;
  bool descending;
  int null_rank;  // the rank of a null value: 0 first, 1 last
  AnchorKind kind;
};

AnchorKind anchor_kind(const FieldPath& path) {
  switch (path.end) {
    case PathEnd::kSid:
    case PathEnd::kLogicalId:
    case PathEnd::kStoreTimestamp:
      return AnchorKind::kInt;
    case PathEnd::kContentId:
      return AnchorKind::kString;
    case PathEnd::kField:
      break;
  }
  switch (path.field_schema()->type.kind) {
    case FieldKind::kInt:
    case FieldKind::kReference:
      return AnchorKind::kInt;
    case FieldKind::kFloat:
    case FieldKind::kRational:
      return AnchorKind::kFloat;
    case FieldKind::kBool:
      return AnchorKind::kBool;
    case FieldKind::kBytes:
      return AnchorKind::kBytes;
    default:
      return AnchorKind::kString;  // strings, and datetimes and dates by their ISO text
  }
}

// A three-element JSON array (built element by element: GCC 12 misreads the brace form).
template <class A, class B, class C>
CanonicalJson triple(A a, B b, C c) {
  CanonicalJson::Array out;
  out.reserve(3);
  out.emplace_back(a);
  out.emplace_back(b);
  out.emplace_back(c);
  return CanonicalJson(std::move(out));
}

Document known_expr(const std::string& column) {
  return make_document("$gt", make_array("$" + column, bson::Null{}));
}

// rank_i as the row's, compared with the anchor's: after (forward) or before (backward).
Document seek_expression(const std::vector<Key>& keys, const PageToken& token) {
  bson::DocumentView anchors = token.anchors.view();
  bson::DocumentBuilder any;
  any.open_array("$or");
  std::vector<Document> equal_prefix;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Key& k = keys[i];
    bson::Value a = anchors.get(std::to_string(i));
    bool anchor_null = a.is_null() || a.is_missing();
    int a_rank = anchor_null ? k.null_rank : 1 - k.null_rank;
    std::string rank = "$_httk_page_" + std::to_string(i) + "_rank";
    std::string value = "$" + k.column;
    const char* rank_op = token.forward ? "$gt" : "$lt";
    bool value_greater = token.forward != k.descending;
    std::vector<Document> branch = equal_prefix;
    Document beyond = make_document(rank_op, make_array(rank, a_rank));
    if (anchor_null) {
      branch.push_back(beyond);
    } else {
      DocumentBuilder cmp;
      cmp.open_array(value_greater ? "$gt" : "$lt").push(value).push(a).close();
      Document tie = make_document(
          "$and", make_array(make_document("$eq", make_array(rank, a_rank)), cmp.finish()));
      branch.push_back(make_document("$or", make_array(beyond, tie)));
    }
    DocumentBuilder all;
    all.open_array("$and");
    for (const Document& d : branch) all.push(d);
    all.close();
    any.push(all.finish());
    // Equal on this key: same rank and, for a known anchor, the same value.
    equal_prefix.push_back(make_document("$eq", make_array(rank, a_rank)));
    if (!anchor_null) {
      DocumentBuilder eq;
      eq.open_array("$eq").push(value).push(a).close();
      equal_prefix.push_back(eq.finish());
    }
  }
  std::vector<Document> last = equal_prefix;
  last.push_back(make_document(token.forward ? "$gt" : "$lt", make_array("$_id", token.sid)));
  DocumentBuilder all;
  all.open_array("$and");
  for (const Document& d : last) all.push(d);
  all.close();
  any.push(all.finish());
  any.close();
  return make_document("$match", make_document("$expr", any.finish()));
}

}  // namespace

ResultPage Searcher::page(int64_t size, const std::vector<PageOrder>& order_by,
                          const std::optional<std::string>& cursor, bool include_total) {
  Impl& im = *impl_;
  if (size < 1 || size > kMaxPageSize) {
    throw Error(ErrorCode::kBadValue, "a page size must be 1..10000, not " + std::to_string(size));
  }
  if (im.vars.size() != 1) {
    throw UnsupportedQueryError("page() needs exactly one variable (the root)");
  }
  if (!im.sorts.empty() || im.offset != 0 || im.limit) {
    throw UnsupportedQueryError("page() orders and limits itself: no add_sort, offset or limit");
  }
  if (order_by.empty() || order_by.size() > kMaxOrderKeys) {
    throw UnsupportedQueryError("page() needs 1..32 order keys");
  }
  std::vector<Impl::Output> outputs = im.effective_outputs();
  std::vector<Key> keys;
  std::set<std::string> seen;
  CanonicalJson::Array order_json;
  QueryPaths root_paths(std::nullopt);
  for (const PageOrder& o : order_by) {
    if (!seen.insert(o.name).second) {
      throw UnsupportedQueryError("page() order key '" + o.name + "' given twice");
    }
    const Impl::Output* out = nullptr;
    for (const auto& candidate : outputs) {
      if (candidate.name == o.name) out = &candidate;
    }
    if (!out) throw UnsupportedQueryError("page() order key '" + o.name + "' is not an output");
    const FieldSchema* f = out->path.field_schema();
    if (out->record || out->path.var != 0 || !out->path.hops.empty() ||
        (f && f->role() != FieldRole::kScalar && f->role() != FieldRole::kEncoded &&
         f->role() != FieldRole::kReference)) {
      throw UnsupportedQueryError("page() order key '" + o.name +
                                  "' must be a scalar output of the root variable");
    }
    keys.push_back(Key{root_paths.column(out->path), o.descending, o.nulls == Nulls::kFirst ? 0 : 1,
                       anchor_kind(out->path)});
    order_json.push_back(triple(o.name, o.descending, o.nulls == Nulls::kFirst ? "first" : "last"));
  }

  Impl::Plan plan = im.plan();
  if (!plan.exact.empty()) {
    throw UnsupportedQueryError(
        "page() of a query with an exact (client-verified) comparison is not supported yet");
  }
  // The fingerprint: everything that decides which rows a page holds and in what order.
  CanonicalJson::Array outputs_json, pipeline_json;
  for (const auto& o : outputs) {
    outputs_json.push_back(triple(o.name, o.path.describe(), o.record));
  }
  for (const Document& d : plan.stages) pipeline_json.push_back(CanonicalJson(d.view().to_json()));
  CanonicalJson::Object fp;
  fp.emplace("backend", "mongodb");
  fp.emplace("document_layout", "mongo-v2");
  fp.emplace("schema", table_fingerprint(*im.root()));
  fp.emplace("outputs", std::move(outputs_json));
  fp.emplace("order", std::move(order_json));
  fp.emplace("pipeline", std::move(pipeline_json));
  std::string fingerprint = sha256_hex(CanonicalJson(std::move(fp)).dump());

  std::optional<PageToken> token;
  if (cursor) {
    std::vector<AnchorKind> kinds;
    for (const Key& k : keys) kinds.push_back(k.kind);
    token = decode_page_token(*cursor, fingerprint, kinds);
  }
  bool forward = !token || token->forward;

  std::vector<Document> p = plan.stages;
  DocumentBuilder ranks;
  for (size_t i = 0; i < keys.size(); ++i) {
    ranks.append("_httk_page_" + std::to_string(i) + "_rank",
                 make_document("$cond", make_array(known_expr(keys[i].column),
                                                   1 - keys[i].null_rank, keys[i].null_rank)));
  }
  p.push_back(make_document("$addFields", ranks.finish()));
  if (token) p.push_back(seek_expression(keys, *token));
  DocumentBuilder sort;
  int flip = forward ? 1 : -1;
  std::set<std::string> used;
  for (size_t i = 0; i < keys.size(); ++i) {
    sort.append("_httk_page_" + std::to_string(i) + "_rank", flip);
    if (used.insert(keys[i].column).second) {
      sort.append(keys[i].column, (keys[i].descending ? -1 : 1) * flip);
    }
  }
  if (used.insert("_id").second) sort.append("_id", flip);
  p.push_back(make_document("$sort", sort.finish()));
  p.push_back(make_document("$limit", size + 1));
  std::vector<Document> docs = im.run(p);
  bool more = static_cast<int64_t>(docs.size()) > size;
  if (more) docs.resize(static_cast<size_t>(size));
  if (!forward) std::reverse(docs.begin(), docs.end());

  auto token_at = [&](const Document& row, bool fwd) {
    PageToken t;
    t.forward = fwd;
    t.fingerprint = fingerprint;
    DocumentBuilder a;
    for (size_t i = 0; i < keys.size(); ++i) {
      bson::Value v = row.view().get_path(keys[i].column);
      if (v.is_missing() || v.is_null()) {
        a.append(std::to_string(i), bson::Null{});
      } else if (v.type() == bson::BsonType::kInt32) {
        a.append(std::to_string(i), static_cast<int64_t>(v.as_int32()));
      } else {
        a.append(std::to_string(i), v);
      }
    }
    t.anchors = a.finish();
    row.view().get("_id").number_as_exact_int64(&t.sid);
    return encode_page_token(t);
  };

  ResultPage page{im.rows(docs), std::nullopt, std::nullopt, std::nullopt};
  if (!docs.empty()) {
    if (forward) {
      if (more) page.next = token_at(docs.back(), true);
      if (token) page.previous = token_at(docs.front(), false);
    } else {
      page.next = token_at(docs.back(), true);
      if (more) page.previous = token_at(docs.front(), false);
    }
  }
  if (include_total) {
    std::vector<Document> c = plan.stages;
    c.push_back(make_document("$count", "n"));
    auto counted = im.run(c);
    int64_t n = 0;
    if (!counted.empty()) counted[0].view().get("n").number_as_exact_int64(&n);
    page.total = n;
  }
  return page;
}

}  // namespace mongostore::records
