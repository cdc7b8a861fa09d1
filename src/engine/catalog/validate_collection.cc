#include "engine/catalog/validate_collection.h"

#include <functional>
#include <string>
#include <vector>

#include "engine/index_key_generator.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "engine/write_conflict_retry.h"

namespace mongostore::engine {

ValidateResult validate_collection(OperationContext& op, const CollectionEntry& entry) {
  return write_conflict_retry(op, UnitOfWork::Mode::kReadOnly, [&] {
    WT_SESSION* s = op.session();
    ValidateResult result;
    auto indexes = entry.indexes();
    struct Tally {
      int64_t expected = 0, actual = 0;
      uint64_t expected_print = 0, actual_print = 0;
    };
    std::vector<Tally> tallies(indexes->size());
    auto print = [](std::string_view key, std::string_view value) {
      std::string joined(key);
      joined.push_back('\0');
      joined.append(value);
      return static_cast<uint64_t>(std::hash<std::string>{}(joined));
    };
    CursorHandle c(s, entry.table_uri);
    std::vector<GeneratedKey> keys;
    while (c && c->next(c.get()) == 0) {
      ++result.records;
      std::string primary = current_key(c.get());
      bson::DocumentView doc = current_value(c.get());
      for (size_t i = 0; i < indexes->size(); ++i) {
        const IndexEntry& ix = *(*indexes)[i];
        keys.clear();
        bool multikey = false;
        try {
          IndexKeyGenerator(ix.descriptor).generate(doc, &keys, &multikey);
        } catch (const Error& e) {
          result.errors.push_back("document with record key of " + std::to_string(primary.size()) +
                                  " bytes cannot be indexed by " + ix.descriptor.name() + ": " +
                                  e.what());
          continue;
        }
        // An entry's value: the stored fields (if any, in the document's first entry), then
        // the record id.
        const std::string stored = IndexEntryValue::stored_fields_of(ix.descriptor, doc);
        for (size_t k = 0; k < keys.size(); ++k) {
          std::string key = keys[k].bytes;
          if (!ix.descriptor.unique()) key += primary;
          std::string value(IndexEntryValue::stored_at(ix.descriptor, k, stored));
          value += primary;
          ++tallies[i].expected;
          tallies[i].expected_print += print(key, value);
        }
      }
    }
    if (indexes->empty() || !indexes->front()->descriptor.is_id_index()) {
      result.keys_per_index.emplace_back("_id_", result.records);  // the record table's
    }
    for (size_t i = 0; i < indexes->size(); ++i) {
      const IndexEntry& ix = *(*indexes)[i];
      CursorHandle ic(s, ix.table_uri);
      while (ic && ic->next(ic.get()) == 0) {
        WT_ITEM v{};
        ic->get_value(ic.get(), &v);
        std::string_view value(static_cast<const char*>(v.data), v.size);
        ++tallies[i].actual;
        tallies[i].actual_print += print(current_key(ic.get()), value);
      }
      result.keys_per_index.emplace_back(ix.descriptor.name(), tallies[i].actual);
      if (tallies[i].actual != tallies[i].expected) {
        result.errors.push_back("index '" + ix.descriptor.name() + "' has " +
                                std::to_string(tallies[i].actual) + " keys; the documents give " +
                                std::to_string(tallies[i].expected));
      } else if (tallies[i].actual_print != tallies[i].expected_print) {
        result.errors.push_back("index '" + ix.descriptor.name() +
                                "' has entries that do not match the documents");
      }
    }
    return result;
  });
}

}  // namespace mongostore::engine
