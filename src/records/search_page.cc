// Keyset paging of a searcher (Searcher::page; reference §9, "Keyset paging").
//
// A page is the selecting stages, a rank per order key (nulls first or last), an optional
// seek past the token's anchor row, a sort on (rank, value) per key and the root's sid, and
// a limit of size + 1 (the extra row says whether there is more). Backward pages run the
// sort flipped and are reversed for display. Pages are not a snapshot: a row inserted between
// two pages shows up on a later page if it sorts after the anchor, and no row that existed
// before the first page is repeated or lost.
//
// Cost: when the query's rows are the root documents its own filter selects (no only_latest,
// no condition through a reference) and every order key after the first has its nulls where
// an index puts them, the rows after the anchor are read as a few index range scans with a
// limit (keyset_segments.h), served by the compound index ensure_page_index creates: a page
// costs O(size · log n) wherever it is. Otherwise the seek is one $expr over computed null
// ranks, which no index serves: each page then sorts every matching row (a top-k sort).
//
// Rows the client drops (exact comparisons, superseded versions under only_latest) make a
// page read batches until it is full; SearchOptions::page_candidate_budget bounds the
// candidates one call reads, after which the page is short and its token continues after
// the last candidate examined.
#include <algorithm>
#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/records/content_id.h"
#include "records/canonical_json.h"
#include "records/collection_setup.h"
#include "records/keyset_segments.h"
#include "records/page_token.h"
#include "records/page_token_key.h"
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

using Key = KeysetKey;

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
    case FieldKind::kDateTime:
      return AnchorKind::kDateTime;  // compared as their column's ISO text, typed in tokens
    case FieldKind::kDate:
      return AnchorKind::kDate;
    default:
      return AnchorKind::kString;
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
Document seek_expression(const std::vector<Key>& keys, const KeysetAnchor& token) {
  bson::DocumentView anchors = token.anchors;
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

// A row's values of the order keys, as a token's anchors: {"0": v0, ...} (null for a null;
// an int32 as an int64, the token's one integer type).
Document anchors_of(const std::vector<Key>& keys, const Document& row) {
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
  return a.finish();
}

// A description of the exact (client-verified) conjuncts, for the fingerprint: their
// prefilter is in the pipeline, but two values with one nearest double share a prefilter.
CanonicalJson exact_json(const std::vector<std::shared_ptr<const CondNode>>& exact) {
  CanonicalJson::Array out;
  for (const auto& c : exact) {
    CanonicalJson::Array one;
    one.emplace_back(c->lhs.describe());
    one.emplace_back(static_cast<int64_t>(c->op));
    if (c->kind == CondNode::Kind::kExactField) one.emplace_back(c->rhs.describe());
    for (const Value& v : c->values) one.emplace_back(v.as<Rational>().to_string());
    // Field factors only where there are some, so other queries keep their fingerprint.
    if (c->lhs_factor || c->rhs_factor) {
      one.emplace_back(c->lhs_factor ? c->lhs_factor->describe() : std::string());
      one.emplace_back(c->rhs_factor ? c->rhs_factor->describe() : std::string());
    }
    out.emplace_back(std::move(one));
  }
  return CanonicalJson(std::move(out));
}

}  // namespace

// The order keys of `order_by` as query columns, checked as page() documents.
std::vector<KeysetKey> Searcher::Impl::page_keys(const std::vector<PageOrder>& order_by,
                                                 std::vector<CanonicalJson>* order_json) const {
  if (vars.size() != 1) {
    throw UnsupportedQueryError("page() needs exactly one variable (the root)");
  }
  if (!sorts.empty() || offset != 0 || limit) {
    throw UnsupportedQueryError("page() orders and limits itself: no add_sort, offset or limit");
  }
  if (order_by.empty() || order_by.size() > kMaxOrderKeys) {
    throw UnsupportedQueryError("page() needs 1..32 order keys");
  }
  std::vector<Output> outs = effective_outputs();
  std::vector<Key> keys;
  std::set<std::string> seen;
  QueryPaths root_paths(std::nullopt);
  for (const PageOrder& o : order_by) {
    if (!seen.insert(o.name).second) {
      throw UnsupportedQueryError("page() order key '" + o.name + "' given twice");
    }
    const Output* out = nullptr;
    for (const auto& candidate : outs) {
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
    if (order_json) {
      order_json->push_back(
          triple(o.name, o.descending, o.nulls == Nulls::kFirst ? "first" : "last"));
    }
  }
  return keys;
}

std::string Searcher::ensure_page_index(const std::vector<PageOrder>& order_by) {
  std::vector<Key> keys = impl_->page_keys(order_by, nullptr);
  Document index = keyset_index_keys(keys);
  if (index.view().count() == 1) return "_id_";  // the sid alone: the _id index
  const std::string& c = impl_->root()->storage_name();
  std::string name = keyset_index_name(c, index);
  impl_->store->database().collection(c).create_index(index, make_document("name", name));
  return name;
}

ResultPage Searcher::page(int64_t size, const std::vector<PageOrder>& order_by,
                          const std::optional<std::string>& cursor, bool include_total) {
  return impl_->page(size, order_by, cursor, include_total, nullptr);
}

std::vector<Document> Searcher::explain_page(int64_t size, const std::vector<PageOrder>& order_by,
                                             const std::optional<std::string>& cursor) {
  std::vector<Document> explains;
  impl_->page(size, order_by, cursor, false, &explains);
  return explains;
}

ResultPage Searcher::Impl::page(int64_t size, const std::vector<PageOrder>& order_by,
                                const std::optional<std::string>& cursor, bool include_total,
                                std::vector<Document>* explains) {
  stats = SearchStats{};
  if (size < 1 || size > kMaxPageSize) {
    throw Error(ErrorCode::kBadValue, "a page size must be 1..10000, not " + std::to_string(size));
  }
  CanonicalJson::Array order_json;
  std::vector<Key> keys = page_keys(order_by, &order_json);
  std::vector<Output> outs = effective_outputs();

  Plan plan = this->plan();
  // The fingerprint: everything that decides which rows a page holds and in what order.
  CanonicalJson::Array outputs_json, pipeline_json;
  for (const auto& o : outs) {
    outputs_json.push_back(triple(o.name, o.path.describe(), o.record));
  }
  for (const Document& d : plan.stages) pipeline_json.push_back(CanonicalJson(d.view().to_json()));
  CanonicalJson::Object fp;
  fp.emplace("backend", "mongodb");
  fp.emplace("document_layout", "mongo-v2");
  fp.emplace("schema", table_fingerprint(*root()));
  fp.emplace("outputs", std::move(outputs_json));
  fp.emplace("order", std::move(order_json));
  fp.emplace("pipeline", std::move(pipeline_json));
  // Only with exact conjuncts, so the tokens of every other query keep their fingerprint.
  if (!plan.exact.empty()) fp.emplace("exact", exact_json(plan.exact));
  std::string fingerprint = sha256_hex(CanonicalJson(std::move(fp)).dump());

  std::vector<AnchorKind> kinds;
  for (const Key& k : keys) kinds.push_back(k.kind);
  if (!token_key) token_key = page_token_key(store->database());
  std::optional<PageToken> token;
  if (cursor) token = decode_page_token(*cursor, fingerprint, kinds, *token_key);
  bool forward = !token || token->forward;

  client::Collection collection = store->database().collection(root()->storage_name());
  // Up to `wanted` candidate rows after `anchor` (from the start without one), in page order.
  auto candidates = [&](const std::optional<KeysetAnchor>& anchor, int64_t wanted, bool explain) {
    std::vector<Document> docs;
    std::optional<std::vector<Document>> segments;
    if (plan.root_filter_decides || plan.latest_decides) segments = keyset_segments(keys, anchor);
    if (segments) {
      // Index ranges, in page order, each limited to the rows still wanted.
      std::vector<Document> rest(plan.stages.begin() + (plan.root_filter.view().empty() ? 0 : 1),
                                 plan.stages.end());
      if (plan.latest_decides) {
        // Keep the latest-only $lookup, drop its $match and $unset: the client drops the
        // superseded rows (accepted() below), so the last candidate read is known.
        rest.erase(rest.begin() + 1, rest.begin() + 3);
      }
      Document sort = keyset_sort(keys, forward);
      for (const Document& segment : *segments) {
        int64_t left = wanted - static_cast<int64_t>(docs.size());
        if (left <= 0) break;
        Document filter = plan.root_filter.view().empty()
                              ? segment
                              : make_document("$and", make_array(plan.root_filter, segment));
        std::vector<Document> p = {make_document("$match", filter), make_document("$sort", sort),
                                   make_document("$limit", left)};
        p.insert(p.end(), rest.begin(), rest.end());
        if (explain) {
          client::FindOptions find;
          find.sort = sort;
          find.limit = left;
          explains->push_back(collection.explain(filter.view(), find));
        }
        for (Document& d : run(p)) docs.push_back(std::move(d));
      }
      return docs;
    }
    std::vector<Document> p = plan.stages;
    DocumentBuilder ranks;
    for (size_t i = 0; i < keys.size(); ++i) {
      ranks.append("_httk_page_" + std::to_string(i) + "_rank",
                   make_document("$cond", make_array(known_expr(keys[i].column),
                                                     1 - keys[i].null_rank, keys[i].null_rank)));
    }
    p.push_back(make_document("$addFields", ranks.finish()));
    if (anchor) p.push_back(seek_expression(keys, *anchor));
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
    p.push_back(make_document("$limit", wanted));
    if (explain) {
      // What feeds the blocking sort: every row the query's own filter selects.
      explains->push_back(collection.explain(plan.root_filter.view(), client::FindOptions{}));
    }
    return run(p);
  };

  // The page's size + 1 rows (the extra one says whether there is more). With exact
  // conjuncts the client verifies candidates in page order, and a batch that falls short
  // is followed by the next, seeking past its last candidate (verification is a function of
  // the row, so the candidates skipped here are skipped by every page alike).
  // Rows the client drops: superseded ones read by index ranges under only_latest, and
  // those failing an exact conjunct.
  const bool latest_on_client =
      plan.latest_decides && keyset_segments(keys, std::nullopt).has_value();
  const bool client_filters = latest_on_client || !plan.exact.empty();
  auto accepted = [&](const Document& d) {
    if (latest_on_client) {
      bson::Value newer = d.view().get("_httk_latest_0");
      if (!newer.is_array() || !newer.as_array().empty()) return false;
    }
    return plan.exact.empty() || verified(plan, d.view());
  };
  // The work is bounded: at most `budget` candidates are read (transferred and examined)
  // per call. When it runs out before the page is full, the page holds the rows verified so
  // far and its token in the reading direction anchors at the last candidate examined, so
  // the next call continues right after it: no row is repeated or lost, only the page is
  // short (possibly empty).
  const int64_t wanted = size + 1;
  const int64_t budget = std::max(options.page_candidate_budget, wanted);
  std::optional<KeysetAnchor> anchor;
  if (token) anchor = KeysetAnchor{token->anchors.view(), token->sid, token->forward};
  int64_t batch = wanted, examined = 0;
  bool out_of_budget = false;
  std::vector<Document> docs;
  Document batch_anchor, last_examined;
  for (bool first = true;; first = false) {
    int64_t ask = std::min(batch, budget - examined);
    std::vector<Document> got = candidates(anchor, ask, first && explains);
    bool exhausted = static_cast<int64_t>(got.size()) < ask;
    for (Document& d : got) {
      if (static_cast<int64_t>(docs.size()) >= wanted) break;
      ++examined;
      last_examined = d;
      if (accepted(d)) docs.push_back(std::move(d));
    }
    if (static_cast<int64_t>(docs.size()) >= wanted || exhausted || !client_filters) break;
    if (examined >= budget) {
      out_of_budget = true;
      break;
    }
    batch_anchor = anchors_of(keys, last_examined);
    int64_t last_sid = 0;
    last_examined.view().get("_id").number_as_exact_int64(&last_sid);
    anchor = KeysetAnchor{batch_anchor.view(), last_sid, forward};
    batch = std::min<int64_t>(batch * 2, 4 * kMaxPageSize);
  }
  bool more = static_cast<int64_t>(docs.size()) > size;
  if (more) docs.resize(static_cast<size_t>(size));
  if (!forward) std::reverse(docs.begin(), docs.end());

  auto token_of = [&](const Document& anchors, int64_t sid, bool fwd) {
    PageToken t;
    t.forward = fwd;
    t.fingerprint = fingerprint;
    t.anchors = anchors;
    t.sid = sid;
    return encode_page_token(t, kinds, *token_key);
  };
  auto token_at = [&](const Document& row, bool fwd) {
    int64_t sid = 0;
    row.view().get("_id").number_as_exact_int64(&sid);
    return token_of(anchors_of(keys, row), sid, fwd);
  };

  ResultPage page{rows(docs), std::nullopt, std::nullopt, std::nullopt};
  if (out_of_budget) {
    // Onward from the last candidate examined; back from the first row, or, on an empty
    // page, from where the page started (the cursor's anchor).
    std::optional<std::string> onward = token_at(last_examined, forward);
    std::optional<std::string> back;
    if (!docs.empty()) {
      back = token_at(forward ? docs.front() : docs.back(), !forward);
    } else if (token) {
      back = token_of(token->anchors, token->sid, !forward);
    }
    (forward ? page.next : page.previous) = onward;
    (forward ? page.previous : page.next) = back;
  } else if (!docs.empty()) {
    if (forward) {
      if (more) page.next = token_at(docs.back(), true);
      if (token) page.previous = token_at(docs.front(), false);
    } else {
      page.next = token_at(docs.back(), true);
      if (more) page.previous = token_at(docs.front(), false);
    }
  }
  if (include_total && !plan.exact.empty()) {
    page.total = static_cast<int64_t>(verified_rows(plan, plan.stages, false).size());
  } else if (include_total) {
    std::vector<Document> c = plan.stages;
    c.push_back(make_document("$count", "n"));
    auto counted = run(c);
    int64_t n = 0;
    if (!counted.empty()) counted[0].view().get("n").number_as_exact_int64(&n);
    page.total = n;
  }
  return page;
}

}  // namespace mongostore::records
