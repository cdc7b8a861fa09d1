// WriteCommands: the findAndModify family. One unit of work finds the first match in sort
// order and updates, replaces or (with no update) deletes it.
#include "engine/query/document_scan.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/write/collection_write_path.h"
#include "engine/write/write_commands.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/projection.h"
#include "mongostore/error.h"

namespace mongostore::engine {

std::optional<bson::Document> WriteCommands::find_and_modify(
    OperationContext& op, std::string_view db, std::string_view coll, bson::DocumentView filter,
    const bson::DocumentView* update, const FindAndModifyOptions& options) {
  NowScope now;  // the filter and an update pipeline share the command's $$NOW
  Matcher matcher = compile_filter(filter, options.let, options.collation);
  SortSpec sort = SortSpec::compile(options.sort.view(), matcher.collation());
  std::vector<bson::DocumentView> filters;
  for (const auto& f : options.array_filters) filters.push_back(f.view());
  std::optional<Update> compiled;
  if (options.update_is_pipeline && !options.array_filters.empty()) {
    throw Error(ErrorCode::kFailedToParse,
                "arrayFilters may not be specified for pipeline-style updates");
  }
  if (update != nullptr) {
    compiled = options.update_is_pipeline
                   ? Update::compile_pipeline(*update, options.let, matcher.collation())
                   : Update::compile(*update, filters, matcher.collation());
  }
  Projection projection = Projection::compile(options.projection.view(), &matcher);
  bool upsert = options.upsert && update != nullptr;
  CollectionCatalog::WriteTarget target = collections_.writable(op, db, coll, upsert);
  const std::shared_ptr<CollectionEntry>& entry = target.entry;
  if (!entry) return std::nullopt;
  PlannedQuery plan = plan_for(*entry, matcher, options.sort.view(), options.hint);
  const UpdateIndexData index_data = compiled ? UpdateIndexData(*compiled) : UpdateIndexData();
  for (int attempt = 0;; ++attempt) {
    try {
      std::optional<bson::Document> out;
      FindAndModifyOutcome outcome;
      write_conflict_retry(
          op, UnitOfWork::Mode::kWrite,
          [&] {
            out.reset();
            outcome = FindAndModifyOutcome{};
            std::optional<Match> m = first_match(op, *entry, matcher, plan, sort);
            outcome.matched = m.has_value();
            if (m && !compiled) {
              delete_document(op, *entry, m->key, m->document.view());
              out = projection.apply(m->document.view());
              return;
            }
            if (m) {
              Update::Result r = compiled->apply(m->document.view(), m->array_index, false);
              if (r.modified) {
                bson::DocumentView before = m->document.view();
                validate_write(*entry, r.document.view(), &before,
                               options.bypass_document_validation);
                update_document(op, durable_, *entry, m->key, m->document.view(), r.document.view(),
                                &index_data);
              }
              bson::DocumentView chosen = options.return_document == ReturnDocument::kAfter
                                              ? r.document.view()
                                              : m->document.view();
              out = projection.apply(chosen);
              return;
            }
            if (!upsert) return;
            bson::Document inserted = build_upsert(matcher, *compiled);
            validate_write(*entry, inserted.view(), nullptr, options.bypass_document_validation);
            bson::Value id = inserted.get("_id");
            insert_document(op, durable_, *entry, record_key(id), inserted.view(), id);
            outcome.upserted_id = bson::OwnedValue(id);
            if (options.return_document == ReturnDocument::kAfter) out = projection.apply(inserted);
          },
          op.connection().commit_config_for(options.journal));
      if (options.outcome != nullptr) *options.outcome = std::move(outcome);
      return out;
    } catch (const DuplicateKeyError&) {
      // Two upserts raced on one key: the loser retries and now finds the winner's
      // document, as mongod retries upserts on a duplicate key.
      if (!upsert || attempt >= 3) throw;
    }
  }
}

}  // namespace mongostore::engine
