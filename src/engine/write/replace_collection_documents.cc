// WriteCommands::replace_collection_documents: what $out does, the way MongoDB does it.
// The documents go into a fresh temporary collection that gets the target's indexes, then
// one atomic rename puts it in the target's place. Readers see the old contents or the
// new; no transaction holds the whole result.
#include "engine/document_validation.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/write/collection_write_path.h"
#include "engine/write/write_commands.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::engine {

void WriteCommands::replace_collection_documents(
    OperationContext& op, std::string_view db, std::string_view coll,
    const std::function<std::optional<bson::Document>()>& next_document,
    bool bypass_document_validation) {
  validate_database_name(db);
  validate_collection_name(coll);
  // The temporary collection has the target's validator (as MongoDB's $out), so the
  // documents are checked as they are written.
  std::shared_ptr<const CollectionValidation> validation;
  if (auto existing = collections_.lookup(db, coll)) validation = existing->validation();
  std::string temp;
  for (;;) {
    temp = collections_.next_temporary_name();
    if (collections_.create_if_missing(op, db, temp, validation).second) break;
  }
  try {
    if (collections_.exists(db, coll)) {
      for (const bson::Document& index : indexes_.list(db, coll)) {
        if (index.get("name").as_string() == "_id_") continue;
        bson::DocumentBuilder options;
        for (const bson::Element& e : index) {
          if (e.key != "key" && e.key != "v" && e.key != "ns") options.append(e.key, e.value);
        }
        indexes_.create(op, db, temp, index.get("key").as_document(), options.finish());
      }
    }
    CollectionCatalog::WriteTarget target = collections_.writable(op, db, temp, /*create=*/false);
    if (!target.entry) {
      // A dropDatabase (or a drop of the temporary collection by name) came in between.
      throw Error(ErrorCode::kNamespaceNotFound, "$out's temporary collection " + ns_of(db, temp) +
                                                     " was dropped while the aggregation ran");
    }
    // Batches keep each transaction small. They need no fsync of their own: the rename's
    // catalog transaction is synced and comes later in the same ordered log.
    constexpr size_t kBatchBytes = 16 * 1024 * 1024;
    // A batch is pulled from the stream before its transaction starts, so a retried
    // transaction writes the same documents again.
    std::vector<bson::Document> batch;
    bool more = true;
    while (more) {
      batch.clear();
      size_t bytes = 0;
      while (bytes < kBatchBytes) {
        std::optional<bson::Document> doc = next_document();
        if (!doc) {
          more = false;
          break;
        }
        bytes += doc->size();
        batch.push_back(prepare_for_insert(doc->view()));
        validate_write(*target.entry, batch.back().view(), nullptr, bypass_document_validation);
      }
      if (batch.empty()) break;
      write_conflict_retry(
          op, UnitOfWork::Mode::kWrite,
          [&] {
            for (const bson::Document& doc : batch) {
              bson::Value id = doc.get("_id");
              insert_document(op, durable_, *target.entry, record_key(id), doc.view(), id);
            }
          },
          op.connection().commit_config_for(/*journal=*/false));
    }
    target = CollectionCatalog::WriteTarget();
    collections_.rename(op, db, temp, db, coll, /*drop_target=*/true);
  } catch (...) {
    // Nothing reached the target; the temporary collection goes.
    collections_.drop(op, db, temp);
    throw;
  }
}

}  // namespace mongostore::engine
