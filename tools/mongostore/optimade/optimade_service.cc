#include "optimade/optimade_service.h"

#include <fmt/core.h>

#include <chrono>
#include <map>
#include <optional>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"
#include "mongostore/version.h"
#include "optimade/optimade_entry_filter.h"
#include "optimade/optimade_entry_type.h"
#include "optimade/optimade_query.h"
#include "stored_layout.h"

namespace mongostore::tool::optimade {
namespace {

constexpr const char* kApiVersion = "1.1.0";

// A failure that becomes an error document with `status`.
struct HttpError {
  int status;
  std::string detail;
};

std::string title_of(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 501:
      return "Not Implemented";
    case 553:
      return "Version Not Supported";
    case 500:
      return "Internal Server Error";
    default:
      return status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

std::string now_rfc3339() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(now).count();
  return rfc3339(seconds * 1'000'000'000);
}

}  // namespace

class OptimadeService::Impl {
 public:
  Impl(std::shared_ptr<client::Client> client, const std::string& database, OptimadeConfig config)
      : client_(std::move(client)),
        db_(client_->database(database)),
        config_(std::move(config)),
        layout_(read_stored_layout(db_)),
        store_(records::RecordStore::open(client_, layout_.store_options())) {
    for (const StoredFamily& family : layout_.families) {
      if (family.records.size() != 1) {
        skipped_.push_back(fmt::format("family '{}' has {} records (one is served)", family.name,
                                       family.records.size()));
        continue;
      }
      std::shared_ptr<const records::RecordSchema> schema;
      for (const records::EntryFamily& bound : layout_.family_bindings()) {
        if (bound.name == family.name) schema = bound.records.at(0).schema;
      }
      types_.emplace_back(family.name, schema->storage_name(), schema, config_.prefix,
                          store_.options().store_timestamp_resolution);
    }
    if (types_.empty()) {
      throw Error(ErrorCode::kBadValue, "database '" + database +
                                            "' holds no entry family this endpoint can serve" +
                                            (skipped_.empty() ? "" : ": " + skipped_.front()));
    }
  }

  OptimadeResponse handle(const OptimadeRequest& request) {
    Query query(request.params);
    std::string path = request.path;
    if (path.size() > 1 && path.back() == '/') path.pop_back();
    representation_ = path.rfind("/v1", 0) == 0 ? path.substr(3) : path;
    representation_ = utf8_safe(representation_ + query.representation());
    if (query.repeated())
      throw HttpError{400, "query parameter '" + *query.repeated() + "' is given twice"};
    if (request.method != "GET" && request.method != "HEAD") {
      throw HttpError{405, "only GET is served, not " + request.method};
    }
    if (path == "/versions") return {200, "text/csv; header=present", "version\n1\n"};
    if (path.size() >= 3 && path[0] == '/' && path[1] == 'v' && path[2] >= '0' && path[2] <= '9' &&
        path.rfind("/v1/", 0) != 0 && path != "/v1") {
      throw HttpError{553, "this server serves version 1 of the API only, under /v1"};
    }
    if (std::optional<std::string> hint = query.take("api_hint"); hint && *hint != "v1") {
      throw HttpError{553, "api_hint '" + *hint + "': this server serves v1 only"};
    }
    if (path.rfind("/v1/", 0) != 0) {
      throw HttpError{404, "no such endpoint: '" + path + "' (the API is under /v1)"};
    }
    std::vector<std::string> parts = split(path.substr(4));
    if (parts.size() == 1 && parts[0] == "info") return base_info(request);
    if (parts.size() == 2 && parts[0] == "info") return entry_info(type(parts[1]));
    if (parts.size() == 1 && parts[0] == "links") return links();
    if (parts.size() == 1) return listing(request, type(parts[0]), query);
    if (parts.size() == 2) return single(request, type(parts[0]), parts[1], query);
    throw HttpError{404, "no such endpoint: '" + path + "'"};
  }

  OptimadeResponse error(int status, const std::string& detail, bool keep_query = true) {
    if (!keep_query) representation_.clear();
    bson::DocumentBuilder b;
    jsonapi(b);
    b.open_array("errors")
        .push(bson::make_document("status", std::to_string(status), "title", title_of(status),
                                  "detail", utf8_safe(detail)))
        .close();
    meta(b, false, std::nullopt, {});
    return {status, "application/vnd.api+json", b.finish().to_json()};
  }

  std::vector<std::string> type_names() const {
    std::vector<std::string> out;
    for (const OptimadeEntryType& t : types_) out.push_back(t.name());
    return out;
  }
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  static std::vector<std::string> split(const std::string& rest) {
    std::vector<std::string> out;
    size_t begin = 0;
    while (true) {
      size_t slash = rest.find('/', begin);
      out.push_back(rest.substr(begin, slash == std::string::npos ? slash : slash - begin));
      if (slash == std::string::npos) return out;
      begin = slash + 1;
    }
  }

  const OptimadeEntryType& type(const std::string& name) const {
    for (const OptimadeEntryType& t : types_) {
      if (t.name() == name) return t;
    }
    std::string known;
    for (const OptimadeEntryType& t : types_) known += (known.empty() ? "" : ", ") + t.name();
    throw HttpError{404, "no entry type '" + name + "' (served: " + known + ")"};
  }

  void jsonapi(bson::DocumentBuilder& b) const {
    b.append("jsonapi", bson::make_document(
                            "version", "1.1", "meta",
                            bson::make_document("api", "OPTIMADE", "api-version", kApiVersion)));
  }

  void meta(bson::DocumentBuilder& b, bool more, std::optional<int64_t> returned,
            const std::vector<std::string>& warnings) const {
    std::string bare = config_.prefix;
    while (!bare.empty() && bare.front() == '_') bare.erase(bare.begin());
    while (!bare.empty() && bare.back() == '_') bare.pop_back();
    b.open_document("meta");
    b.append("query", bson::make_document("representation", representation_));
    b.append("api_version", kApiVersion);
    b.append("more_data_available", more);
    b.append("time_stamp", now_rfc3339());
    if (returned) b.append("data_returned", *returned);
    b.append("provider", bson::make_document("name", config_.provider_name, "description",
                                             config_.provider_description, "prefix", bare));
    b.append("implementation", bson::make_document("name", "mongostore", "version", kVersion));
    if (!warnings.empty()) {
      b.open_array("warnings");
      for (const std::string& w : warnings) {
        b.push(bson::make_document("type", "warning", "detail", utf8_safe(w)));
      }
      b.close();
    }
    b.close();
  }

  OptimadeResponse ok(bson::DocumentBuilder& b) const {
    return {200, "application/vnd.api+json", b.finish().to_json()};
  }

  OptimadeResponse base_info(const OptimadeRequest& request) {
    bson::DocumentBuilder b;
    jsonapi(b);
    b.open_document("data").append("type", "info").append("id", "/");
    b.open_document("attributes").append("api_version", kApiVersion);
    b.open_array("available_api_versions")
        .push(bson::make_document("url", request.base_url + "/v1", "version", kApiVersion))
        .close();
    b.open_array("formats").push("json").close();
    b.open_document("entry_types_by_format").open_array("json");
    for (const OptimadeEntryType& t : types_) b.push(t.name());
    b.close().close();
    b.open_array("available_endpoints").push("info").push("links");
    for (const OptimadeEntryType& t : types_) b.push(t.name());
    b.close();
    b.append("is_index", false);
    b.close().close();
    meta(b, false, 1, {});
    return ok(b);
  }

  OptimadeResponse entry_info(const OptimadeEntryType& t) {
    bson::DocumentBuilder b;
    jsonapi(b);
    b.open_document("data").append("type", "info").append("id", t.name());
    b.append("description", "The RecordStore entry family '" + t.name() + "' (record collection '" +
                                t.table() + "')");
    b.append("properties", t.properties_info());
    b.open_array("formats").push("json").close();
    b.open_document("output_fields_by_format").open_array("json");
    for (const std::string& p : t.property_names()) b.push(p);
    b.close().close();
    b.close();
    meta(b, false, 1, {});
    return ok(b);
  }

  OptimadeResponse links() {
    bson::DocumentBuilder b;
    jsonapi(b);
    b.open_array("data").close();
    meta(b, false, 0, {});
    return ok(b);
  }

  // response_fields: the attributes asked for (empty: all); unknown ones are warnings.
  std::vector<std::string> response_fields(const OptimadeEntryType& t, Query& query,
                                           std::vector<std::string>* warnings) {
    std::vector<std::string> fields;
    std::optional<std::string> text = query.take("response_fields");
    if (!text) return fields;
    for (const std::string& name : Query::comma_list(*text)) {
      if (!Query::is_property_name(name)) {
        throw HttpError{400, "response_fields: '" + name + "' is not a property name"};
      }
      if (!t.has_property(name)) {
        warnings->push_back("response_fields: '" + name + "' is not a property of " + t.name() +
                            " (see /info/" + t.name() + ")");
        continue;
      }
      fields.push_back(name);
    }
    // REQUIRED fields (id, type) are always there; asking for nothing else gives no attribute.
    if (fields.empty()) fields.push_back("id");
    return fields;
  }

  void common_parameters(Query& query) {
    if (std::optional<std::string> format = query.take("response_format");
        format && *format != "json") {
      throw HttpError{400, "response_format '" + *format + "': only json is served"};
    }
    if (std::optional<std::string> include = query.take("include");
        include && !include->empty() && *include != "references") {
      throw HttpError{400, "include '" + *include +
                               "': no relationship is served (only the default, references, "
                               "which is always empty)"};
    }
    query.take("email_address");
  }

  OptimadeResponse listing(const OptimadeRequest& request, const OptimadeEntryType& t,
                           Query& query) {
    std::vector<std::string> warnings;
    common_parameters(query);
    std::vector<std::string> fields = response_fields(t, query, &warnings);
    for (const char* name : {"page_offset", "page_number", "page_above", "page_below"}) {
      if (query.take(name)) {
        throw HttpError{501, std::string(name) +
                                 " is not supported: pages are keyset pages, followed with "
                                 "page_cursor from links.next"};
      }
    }
    if (query.take("sort"))
      throw HttpError{400, "sort is not supported (entries come in id order)"};
    int64_t limit = config_.default_page_limit;
    if (std::optional<std::string> text = query.take("page_limit")) {
      limit = page_limit(*text);
    }
    std::optional<std::string> cursor = query.take("page_cursor");
    if (cursor && cursor->empty()) cursor.reset();
    std::string filter = query.take("filter").value_or("");
    if (std::optional<std::string> unknown = query.unknown_standard_name()) {
      throw HttpError{400, "unknown query parameter '" + *unknown +
                               "' (a custom one needs a database prefix, e.g. " + config_.prefix +
                               "name)"};
    }

    records::SearchOptions options;
    records::OptimadeSearch search = [&] {
      if (!filter.empty()) {
        records::OptimadeTranslationOptions translation;
        translation.prefix = config_.prefix;
        // OPTIMADE's own last_modified is the store timestamp the entry shows as it.
        translation.properties = {{"last_modified", "store_timestamp"}};
        // Parsed first: a syntax error is reported before anything else.
        records::OptimadeFilter parsed = records::parse_optimade_filter(filter);
        records::Searcher searcher = store_.searcher(options);
        records::Var var = searcher.variable(t.schema());
        // id and immutable_id are the entry's, not the record's: optimade_entry_filter.h.
        records::OptimadeTranslation condition =
            translate_entry_filter(parsed, t, var, translation);
        searcher.add(condition.condition);
        return records::OptimadeSearch{std::move(searcher), var, std::move(condition.warnings)};
      }
      records::Searcher searcher = store_.searcher(options);
      records::Var var = searcher.variable(t.schema());
      return records::OptimadeSearch{std::move(searcher), var, {}};
    }();
    for (const std::string& w : search.warnings) warnings.push_back(w);
    search.searcher.output(search.record.sid(), "sid");
    records::ResultPage page = search.searcher.page(limit, {{"sid"}}, cursor, true);

    std::vector<int64_t> sids;
    bson::DocumentBuilder in;
    in.open_document("_id").open_array("$in");
    for (const records::Value& v : page.rows.column("sid")) {
      sids.push_back(v.as<int64_t>());
      in.push(sids.back());
    }
    in.close().close();
    std::map<int64_t, bson::Document> stored;
    if (!sids.empty()) {
      for (bson::Document& d : db_.collection(t.table()).find(in.finish())->to_vector()) {
        int64_t sid = 0;
        if (d.get("_id").number_as_exact_int64(&sid)) stored.emplace(sid, std::move(d));
      }
    }
    bson::DocumentBuilder b;
    jsonapi(b);
    b.open_array("data");
    for (int64_t sid : sids) {
      // A record deleted between the search and this read is left out.
      if (auto it = stored.find(sid); it != stored.end()) b.push(t.resource(it->second, fields));
    }
    b.close();
    b.open_document("links");
    auto link = [&](const char* key, const std::optional<std::string>& token) {
      if (token) {
        b.append(key, request.base_url + "/v1/" + t.name() + "?" +
                          Query::encode(request.params, "page_cursor", *token));
      } else {
        b.append(key, bson::Null{});
      }
    };
    link("next", page.next);
    link("prev", page.previous);
    b.close();
    meta(b, page.next.has_value(), page.total.value_or(0), warnings);
    return ok(b);
  }

  int64_t page_limit(const std::string& text) const {
    bool digits = !text.empty();
    for (char c : text) digits &= c >= '0' && c <= '9';
    if (!digits) throw HttpError{400, "page_limit '" + text + "' is not a positive integer"};
    std::string trimmed = text.substr(std::min(text.find_first_not_of('0'), text.size()));
    if (trimmed.empty()) throw HttpError{400, "page_limit must be at least 1"};
    if (trimmed.size() > 18 || std::stoll(trimmed) > config_.max_page_limit) {
      throw HttpError{403, "page_limit " + text + " is above this server's maximum, " +
                               std::to_string(config_.max_page_limit)};
    }
    return std::stoll(trimmed);
  }

  OptimadeResponse single(const OptimadeRequest&, const OptimadeEntryType& t, const std::string& id,
                          Query& query) {
    std::vector<std::string> warnings;
    common_parameters(query);
    std::vector<std::string> fields = response_fields(t, query, &warnings);
    if (std::optional<std::string> slices = query.take("dimension_slices");
        slices && !slices->empty()) {
      throw HttpError{501, "dimension_slices is not supported"};
    }
    // Other parameters of a single entry are ignored, as the specification says.
    int64_t sid = t.sid_of(id);
    std::optional<bson::Document> doc;
    if (sid > 0) doc = db_.collection(t.table()).find_one(bson::make_document("_id", sid));
    // An alternative (it has an alt_kind) is not an entry, as in the listing.
    if (doc && doc->has("alt_kind")) doc.reset();
    if (!doc) throw HttpError{404, "no " + t.name() + " entry with id '" + id + "'"};
    bson::DocumentBuilder b;
    jsonapi(b);
    b.append("data", t.resource(*doc, fields));
    b.append("links", bson::make_document("next", bson::Null{}));
    meta(b, false, 1, warnings);
    return ok(b);
  }

  std::shared_ptr<client::Client> client_;
  client::Database db_;
  OptimadeConfig config_;
  StoredLayout layout_;
  records::RecordStore store_;
  std::vector<OptimadeEntryType> types_;
  std::vector<std::string> skipped_;
  std::string representation_;
};

OptimadeService::OptimadeService(std::shared_ptr<client::Client> client,
                                 const std::string& database, OptimadeConfig config)
    : impl_(std::make_unique<Impl>(std::move(client), database, std::move(config))) {}

OptimadeService::~OptimadeService() = default;

OptimadeResponse OptimadeService::handle(const OptimadeRequest& request) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    try {
      return impl_->handle(request);
    } catch (const HttpError& e) {
      return impl_->error(e.status, e.detail);
    } catch (const records::OptimadeFilterSyntaxError& e) {
      return impl_->error(400, e.what());
    } catch (const records::FilterTranslationError& e) {
      // An unknown property is the client's mistake; a form not translated is ours.
      return impl_->error(e.category() == "unrecognized-property" ? 400 : 501,
                          e.category() + ": " + e.what());
    } catch (const records::PaginationCursorError& e) {
      return impl_->error(400, std::string("page_cursor: ") + e.what());
    } catch (const records::UnsupportedQueryError& e) {
      return impl_->error(501, e.what());
    } catch (const Error& e) {
      return impl_->error(500, fmt::format("{} ({} {})", e.what(), e.code_name(), e.code()));
    } catch (const std::exception& e) {
      return impl_->error(500, e.what());
    }
  } catch (...) {
    // Building the error document itself failed (e.g. out of memory).
    return {
        500, "application/vnd.api+json",
        R"({"errors":[{"status":"500","title":"Internal Server Error","detail":"internal error"}],"meta":{}})"};
  }
}

OptimadeResponse OptimadeService::error(int status, const std::string& detail) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    return impl_->error(status, detail, false);
  } catch (...) {
    return {status, "application/vnd.api+json", R"({"errors":[{"detail":"error"}],"meta":{}})"};
  }
}

std::vector<std::string> OptimadeService::entry_types() const {
  return impl_->type_names();
}

const std::vector<std::string>& OptimadeService::skipped() const {
  return impl_->skipped();
}

}  // namespace mongostore::tool::optimade
