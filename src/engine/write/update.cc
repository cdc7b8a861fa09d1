// WriteCommands: updateOne, updateMany and replaceOne, with upsert.
#include "engine/document_validation.h"
#include "engine/query/document_scan.h"
#include "engine/storage/record_table.h"
#include "engine/write/collection_write_path.h"
#include "engine/write/id_guard_filter.h"
#include "engine/write/write_commands.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/error.h"

namespace mongostore::engine {

void WriteCommands::reject_operators_in_replacement(bson::DocumentView replacement) {
  for (const bson::Element& e : replacement) {
    if (!e.key.empty() && e.key[0] == '$') {
      throw Error(ErrorCode::kBadValue, "the replacement document must not contain $-operators ('" +
                                            std::string(e.key) + "')");
    }
  }
}

bson::Document WriteCommands::build_upsert(const Matcher& matcher, const Update& update) {
  // MongoDB seeds the new document with the filter's equality fields, then applies the
  // update (with $setOnInsert); a replacement keeps only the filter's _id.
  bson::DocumentBuilder seed;
  bool has_id = false;
  if (!update.is_replacement()) {
    for (const auto& [path, value] : matcher.equality_fields()) {
      if (path.find('.') != std::string::npos) continue;  // nested seeds come from the update
      if (path == "_id") has_id = true;
      seed.append(path, value);
    }
  } else if (auto id = matcher.id_equality()) {
    seed.append("_id", *id);
    has_id = true;
  }
  (void)has_id;
  bson::Document seeded = seed.finish();
  Update::Result r = update.apply(seeded.view(), std::nullopt, true);
  return prepare_for_insert(r.document.view());
}

std::optional<UpdateResult> WriteCommands::update_by_id(
    OperationContext& op, std::string_view db, std::string_view coll, bson::DocumentView filter,
    const bson::Value& id, bson::DocumentView update, const UpdateOptions& options) {
  NowScope now;
  // The same order of errors as the general path: the update's, then the collection's.
  // `update` outlives `compiled` (both end with this call): no copy of it.
  Update compiled = Update::compile_borrowed(update, {}, nullptr);
  CollectionCatalog::WriteTarget target = collections_.writable(op, db, coll, /*create=*/false);
  const std::shared_ptr<CollectionEntry>& entry = target.entry;
  if (!entry) return UpdateResult{};
  const UpdateIndexData index_data(compiled);
  const std::string key = record_key(id);
  return write_conflict_retry(
      op, UnitOfWork::Mode::kWrite,
      [&]() -> std::optional<UpdateResult> {
        UpdateResult result;
        // One cursor reads the record and writes it back (RecordTable::get and update each
        // opened their own). The document is a view of the cursor's value, not a copy: it
        // stays valid until the cursor's next modifying operation, and update_document
        // writes through the cursor only after its last use of `before`.
        CursorHandle records(op.session(), entry->table_uri);
        if (!records) return result;
        const int rc = RecordTable::search(records.get(), key);
        if (rc == WT_NOTFOUND) return result;
        check_in_transaction(rc, "search", op.session());
        const bson::DocumentView doc = current_value(records.get());
        switch (IdGuardFilter::test(filter, doc)) {
          case IdGuardFilter::Outcome::kNoMatch:
            return result;
          case IdGuardFilter::Outcome::kUndecided:
            return std::nullopt;  // nothing written: the general path decides
          case IdGuardFilter::Outcome::kMatch:
            break;
        }
        result.matched_count = 1;
        Update::Result r = compiled.apply(doc, std::nullopt, false);
        if (!r.modified) return result;  // an update that changes nothing writes nothing
        bson::DocumentView before = doc;
        validate_write(*entry, r.document.view(), &before, options.bypass_document_validation);
        update_document(op, durable_, *entry, key, before, r.document.view(), &index_data,
                        records.get());
        result.modified_count = 1;
        return result;
      },
      op.connection().commit_config_for(options.journal));
}

UpdateResult WriteCommands::update(OperationContext& op, std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView update,
                                   const UpdateOptions& options, bool multi) {
  if (!multi) {
    if (std::optional<bson::Value> id = IdGuardFilter::recognise(filter, options)) {
      if (std::optional<UpdateResult> r =
              update_by_id(op, db, coll, filter, *id, update, options)) {
        return *r;
      }
    }
  }
  NowScope now;  // the filter and an update pipeline share the command's $$NOW
  Matcher matcher = compile_filter(filter, options.let, options.collation);
  std::vector<bson::DocumentView> filters;
  for (const auto& f : options.array_filters) filters.push_back(f.view());
  if (options.update_is_pipeline && !options.array_filters.empty()) {
    throw Error(ErrorCode::kFailedToParse,
                "arrayFilters may not be specified for pipeline-style updates");
  }
  Update compiled = options.update_is_pipeline
                        ? Update::compile_pipeline(update, options.let, matcher.collation())
                        : Update::compile_borrowed(update, filters, matcher.collation());
  if (multi && compiled.is_replacement()) {
    throw Error(ErrorCode::kFailedToParse,
                "multi update is not supported for replacement-style update");
  }
  if (multi && !options.sort.empty()) {
    throw Error(ErrorCode::kInvalidOptions, "Cannot specify sort with multi=true");
  }
  SortSpec sort = SortSpec::compile(options.sort.view(), matcher.collation());
  CollectionCatalog::WriteTarget target = collections_.writable(op, db, coll, options.upsert);
  const std::shared_ptr<CollectionEntry>& entry = target.entry;
  if (!entry) return UpdateResult{};
  PlannedQuery plan = plan_for(*entry, matcher, options.sort.view(), options.hint);
  const UpdateIndexData index_data(compiled);
  for (int attempt = 0;; ++attempt) {
    try {
      return write_conflict_retry(
          op, UnitOfWork::Mode::kWrite,
          [&] {
            UpdateResult result;
            std::vector<Match> matches;
            if (!multi) {
              // The first match, in `sort` order when there is one (MongoDB 8.0's updateOne).
              if (std::optional<Match> m = first_match(op, *entry, matcher, plan, sort)) {
                matches.push_back(std::move(*m));
              }
            } else {
              scan(op, *entry, matcher, plan,
                   [&](const std::string& key, bson::DocumentView doc, const MatchDetails& d) {
                     matches.push_back(Match{key, bson::Document::copy_of(doc), d.array_index});
                     return true;
                   });
            }
            for (const Match& m : matches) {
              ++result.matched_count;
              Update::Result r = compiled.apply(m.document.view(), m.array_index, false);
              if (!r.modified) continue;  // an update that changes nothing writes nothing
              bson::DocumentView before = m.document.view();
              validate_write(*entry, r.document.view(), &before,
                             options.bypass_document_validation);
              update_document(op, durable_, *entry, m.key, m.document.view(), r.document.view(),
                              &index_data);
              ++result.modified_count;
            }
            if (matches.empty() && options.upsert) {
              bson::Document inserted = build_upsert(matcher, compiled);
              validate_write(*entry, inserted.view(), nullptr, options.bypass_document_validation);
              bson::Value id = inserted.get("_id");
              insert_document(op, durable_, *entry, record_key(id), inserted.view(), id);
              result.upserted_id = bson::OwnedValue(id);
            }
            return result;
          },
          op.connection().commit_config_for(options.journal));
    } catch (const DuplicateKeyError&) {
      if (!options.upsert || attempt >= 3) throw;
    }
  }
}

}  // namespace mongostore::engine
