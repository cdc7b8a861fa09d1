// WriteCommands: deleteOne, deleteMany.
#include "engine/query/document_scan.h"
#include "engine/write/collection_write_path.h"
#include "engine/write/write_commands.h"
#include "engine/write_conflict_retry.h"

namespace mongostore::engine {

int64_t WriteCommands::remove(OperationContext& op, std::string_view db, std::string_view coll,
                              bson::DocumentView filter, bool multi, const DeleteOptions& options) {
  Matcher matcher = compile_filter(filter, options.let, options.collation);
  CollectionCatalog::WriteTarget target = collections_.writable(op, db, coll, /*create=*/false);
  const std::shared_ptr<CollectionEntry>& entry = target.entry;
  if (!entry) return 0;
  PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView(), options.hint);
  // Removes the first document `matcher` accepts (every one with `multi`), index entries
  // included; returns how many. The matches are collected first so the scan never walks
  // over its own removals.
  return write_conflict_retry(
      op, UnitOfWork::Mode::kWrite,
      [&] {
        std::vector<std::pair<std::string, bson::Document>> victims;
        scan(op, *entry, matcher, plan,
             [&](const std::string& key, bson::DocumentView doc, const MatchDetails&) {
               victims.emplace_back(key, bson::Document::copy_of(doc));
               return multi;
             });
        for (const auto& [key, doc] : victims) delete_document(op, *entry, key, doc.view());
        return static_cast<int64_t>(victims.size());
      },
      op.connection().commit_config_for(options.journal));
}

}  // namespace mongostore::engine
