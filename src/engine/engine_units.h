// EngineUnits: the units one open engine is made of, owned together so that the engine
// facade and the views of it a multi-document transaction hands out share them (and keep
// them alive while any of them, or a cursor of theirs, lives).
//
// Members are declared in dependency order, so they are destroyed in reverse: the
// transaction reaper first, the WiredTiger connection last.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/catalog/collection_catalog.h"
#include "engine/catalog/durable_catalog.h"
#include "engine/catalog/index_catalog.h"
#include "engine/disk_space_guard.h"
#include "engine/query/query_executor.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/transaction/transaction_reaper.h"
#include "engine/write/write_commands.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

struct EngineUnits {
  explicit EngineUnits(const EngineOptions& opts)
      : options(opts),
        connection(opts),
        durable_catalog(connection),
        collections(connection, durable_catalog),
        indexes(connection, durable_catalog, collections),
        queries(connection, collections),
        writes(durable_catalog, collections, indexes),
        // Checked by the writes that take space (inserts, updates, DDL that creates);
        // deletes and drops stay allowed, they are how space is given back.
        disk_space(connection.home(), opts.durability == Durability::kInMemory
                                          ? 0
                                          : uint64_t{opts.disk_space_reserve_mb} << 20) {}

  EngineOptions options;
  WiredTigerConnection connection;
  DurableCatalog durable_catalog;
  CollectionCatalog collections;
  IndexCatalog indexes;
  QueryExecutor queries;
  WriteCommands writes;
  DiskSpaceGuard disk_space;
  std::atomic<uint64_t> next_transaction_id{1};
  TransactionReaper transaction_reaper;
};

}  // namespace mongostore::engine
