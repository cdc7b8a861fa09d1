// CompiledFind: what Engine::prepare_find compiles once (the filter's Matcher, the
// Projection, the SortSpec) so that each run of a repeated find only plans and reads. A run
// compiles again only what it cannot reuse: the filter when the caller passes another one,
// and everything collation-dependent when the collection's default collation is no longer
// the one it was compiled under (dropped and created again with another). Immutable once
// built: any number of threads may run one at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/sort_spec.h"
#include "engine/transaction/multi_document_transaction.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {

class QueryExecutor;

struct CompiledFind final : PreparedFind {
  std::string db, coll;
  bson::Document filter;
  FindOptions options;       // as the caller gave them (an empty collation: the default's)
  bson::Document collation;  // the one the parts below were compiled under
  Matcher matcher;
  Projection projection;
  SortSpec sort;
};

/// Compiles `filter` with `options` as find would; `resolved` is `options` with the
/// collection's default collation filled in. Throws what find throws.
std::shared_ptr<const CompiledFind> compile_find(std::string_view db, std::string_view coll,
                                                 bson::DocumentView filter,
                                                 const FindOptions& options,
                                                 const FindOptions& resolved);

/// A cursor running `find` (with `filter` instead of its own when not null), `resolved` being
/// its options under the collection's default collation now.
std::unique_ptr<Cursor> run_compiled_find(std::shared_ptr<const void> keep_alive,
                                          std::shared_ptr<MultiDocumentTransaction> transaction,
                                          QueryExecutor& executor, const CompiledFind& find,
                                          const bson::DocumentView* filter,
                                          const FindOptions& resolved);

}  // namespace mongostore::engine
