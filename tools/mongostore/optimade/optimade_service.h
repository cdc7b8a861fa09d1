// OptimadeService: the OPTIMADE v1 API of a RecordStore, as request -> response, independent
// of any HTTP library (optimade_http_server.h puts it behind cpp-httplib).
//
// Routes, under the versioned base URL /v1 (the unversioned one serves only /versions):
//   /versions                 "version\n1\n" (text/csv; header=present)
//   /v1/info                  the base info (api_version, entry types, endpoints)
//   /v1/info/<type>           the entry type's properties (optimade_entry_type.h)
//   /v1/links                 an empty list (no other databases are linked)
//   /v1/<type>                entries in sid order: filter, page_limit, page_cursor,
//                             response_fields; links.next carries the store's signed keyset
//                             page token (Searcher::page) as page_cursor
//   /v1/<type>/<id>           one entry (id "<type>-<sid>")
// Entry types are the store's entry families that have one record each.
//
// Errors are OPTIMADE error documents {errors: [{status, title, detail}], meta} with the HTTP
// status: 400 a malformed filter (the parser's message, with its column), an unknown
// property, a page_limit that is not a positive integer, a malformed or foreign page_cursor,
// an unknown query parameter without a database prefix, a repeated parameter, an include
// other than references, a response_format other than json, sort (not supported); 403 a
// page_limit above the maximum (the specification's MUST); 404 an unknown path, entry type
// or id; 405 a method other than GET; 501 a filter the translation refuses
// ("type-mismatch", "not-implemented"), page_offset / page_number / page_above / page_below
// (only cursor pages are served), dimension_slices; 553 another API version (/v2, api_hint);
// 500 anything else (a backend error), its message as detail. Nothing is ever written but the
// page-token key the store makes on its first page.
//
// Thread safety: handle() may be called from any number of threads; requests are served one
// at a time (the store is not shared between threads).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/client/client.h"

namespace mongostore::tool::optimade {

struct OptimadeConfig {
  /// The database-specific prefix of property names, `_name_` (the filter translation's).
  std::string prefix = "_httk_";
  int64_t default_page_limit = 20;
  /// The largest page_limit accepted (a larger one is 403).
  int64_t max_page_limit = 1000;
  std::string provider_name = "mongostore";
  std::string provider_description = "A RecordStore served by mongostore optimade";
};

struct OptimadeRequest {
  std::string method = "GET";
  /// The decoded path, e.g. "/v1/structures/structures-3".
  std::string path;
  /// The decoded query parameters in request order.
  std::vector<std::pair<std::string, std::string>> params;
  /// "http://host:port" the client reached us at (links are built on it).
  std::string base_url;
};

struct OptimadeResponse {
  int status = 200;
  std::string content_type = "application/vnd.api+json";
  std::string body;
};

class OptimadeService {
 public:
  /// Reads the RecordStore layout of `database` (stored_layout.h) and opens the store.
  /// Error(NamespaceNotFound) without a RecordStore there, Error(BadValue) when it has no entry
  /// family this endpoint can serve.
  OptimadeService(std::shared_ptr<client::Client> client, const std::string& database,
                  OptimadeConfig config = {});
  ~OptimadeService();
  OptimadeService(const OptimadeService&) = delete;
  OptimadeService& operator=(const OptimadeService&) = delete;

  /// Never throws: every failure is an error document.
  OptimadeResponse handle(const OptimadeRequest& request) noexcept;

  /// The error document of `status` with `detail` (for failures the HTTP layer detects itself:
  /// an oversized URI or body).
  OptimadeResponse error(int status, const std::string& detail) noexcept;

  /// The served entry types, in layout order.
  std::vector<std::string> entry_types() const;
  /// Families not served, each with the reason (for the startup message).
  const std::vector<std::string>& skipped() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::mutex mutex_;
};

}  // namespace mongostore::tool::optimade
