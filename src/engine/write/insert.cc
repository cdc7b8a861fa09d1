// WriteCommands: insertOne, insertMany.
#include "engine/document_validation.h"
#include "engine/storage/record_table.h"
#include "engine/write/collection_write_path.h"
#include "engine/write/write_commands.h"
#include "engine/write_conflict_retry.h"

namespace mongostore::engine {

bson::OwnedValue WriteCommands::insert_one(OperationContext& op, std::string_view db,
                                           std::string_view coll, bson::DocumentView document,
                                           const InsertOptions& options) {
  bson::Document doc = prepare_for_insert(document);
  CollectionCatalog::WriteTarget target = collections_.writable(op, db, coll, /*create=*/true);
  const std::shared_ptr<CollectionEntry>& entry = target.entry;
  bson::Value id = doc.get("_id");
  std::string key = record_key(id);
  validate_write(*entry, doc.view(), nullptr, options.bypass_document_validation);
  write_conflict_retry(
      op, UnitOfWork::Mode::kWrite,
      [&] { insert_document(op, durable_, *entry, key, doc.view(), id); },
      op.connection().commit_config_for(options.journal));
  return bson::OwnedValue(id);
}

InsertManyResult WriteCommands::insert_many(OperationContext& op, std::string_view db,
                                            std::string_view coll,
                                            const std::vector<bson::Document>& documents,
                                            const InsertOptions& options) {
  InsertManyResult result;
  for (const auto& d : documents) {
    result.inserted_ids.push_back(insert_one(op, db, coll, d.view(), options));
  }
  return result;
}

}  // namespace mongostore::engine
