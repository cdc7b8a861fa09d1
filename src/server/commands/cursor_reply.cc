#include "server/commands/cursor_reply.h"

#include <utility>

#include "mongostore/error.h"
#include "server/commands/command_arguments.h"

namespace mongostore::server {
namespace {

using bson::Document;

// A cursor over documents already in hand (the listing commands), so they page with
// cursor.batchSize and getMore as mongod's do.
class ListCursor : public engine::Cursor {
 public:
  explicit ListCursor(std::vector<Document> docs) : docs_(std::move(docs)) {}
  std::vector<Document> next_batch() override {
    done_ = true;
    return std::move(docs_);
  }
  bool exhausted() const override { return done_; }

 private:
  std::vector<Document> docs_;
  bool done_ = false;
};

}  // namespace

// Moves up to `batch_size` documents (0: whatever the engine's next batch holds) and at most
// kMaxBatchBytes from the cursor into `batch`.
std::vector<Document> take_batch(OpenCursor& open, int64_t batch_size) {
  std::vector<Document> batch;
  size_t bytes = 0;
  auto room = [&] {
    return (batch_size <= 0 || static_cast<int64_t>(batch.size()) < batch_size) &&
           bytes < kMaxBatchBytes;
  };
  for (;;) {
    while (!open.pending.empty() && room()) {
      bytes += open.pending.front().size();
      batch.push_back(std::move(open.pending.front()));
      open.pending.pop_front();
    }
    if (!room() || open.cursor->exhausted()) break;
    if (batch_size <= 0 && !batch.empty()) break;  // one engine batch is a default batch
    auto more = open.cursor->next_batch();
    if (more.empty()) break;
    for (Document& d : more) open.pending.push_back(std::move(d));
  }
  return batch;
}

// Appends {cursor: {firstBatch|nextBatch, id, ns}} and keeps the cursor (under `id`, new
// when 0) while it may have more.
void reply_with_cursor(CursorRegistry& cursors, bson::DocumentBuilder& b, OpenCursor open,
                       int64_t batch_size, bool single_batch, const char* batch_field, int64_t id) {
  std::vector<Document> batch;
  if (batch_size != 0 || single_batch) batch = take_batch(open, batch_size);
  std::string ns = open.ns;
  if (single_batch || open.exhausted()) {
    id = 0;
  } else {
    id = cursors.keep(std::move(open), id);
  }
  b.open_document("cursor");
  b.open_array(batch_field);
  for (const Document& d : batch) b.push(d.view());
  b.close();
  b.append("id", id);
  b.append("ns", ns);
  b.close();
}

// cursor: {batchSize: n} of a listing command; 0 (the default) is everything at once.
int64_t listing_batch_size(const bson::DocumentView& cmd) {
  bson::Value cursor = cmd.get("cursor");
  if (cursor.is_missing()) return 0;
  if (!cursor.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "BSON field 'cursor' must be an object");
  }
  for (const bson::Element& e : cursor.as_document()) {
    if (e.key != "batchSize") {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'cursor." + std::string(e.key) + "' is an unknown field.");
    }
  }
  int64_t n = integer_or(cursor.as_document(), "batchSize", 0);
  if (n < 0) throw Error(ErrorCode::kBadValue, "batchSize must be non-negative");
  return n;
}

void reply_with_list(CursorRegistry& cursors, bson::DocumentBuilder& b, std::vector<Document> docs,
                     std::string ns, int64_t batch_size, std::vector<std::string> owners) {
  OpenCursor open{std::make_unique<ListCursor>(std::move(docs)), std::move(ns), {}, {}};
  open.owners = std::move(owners);
  // batchSize 0 of a listing command is everything in the first batch (mongod's default);
  // take_batch reads that as "one engine batch", which is all of it.
  reply_with_cursor(cursors, b, std::move(open), batch_size == 0 ? -1 : batch_size, false,
                    "firstBatch");
}

}  // namespace mongostore::server
