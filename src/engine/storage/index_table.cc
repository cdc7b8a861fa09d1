#include "engine/storage/index_table.h"

#include <cstring>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/error.h"

namespace mongostore::engine {

namespace {

std::string lower_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    out += kDigits[static_cast<uint8_t>(c) >> 4];
    out += kDigits[static_cast<uint8_t>(c) & 0xF];
  }
  return out;
}

// Two byte strings end to end: an entry's key (the index key, then the primary key for a
// non-unique index) or value (the stored fields, if any, then the primary key). WiredTiger
// copies what it stores, so the bytes are put together on the stack when they fit (an index
// key and a record key are each a few dozen bytes at most, usually): no allocation per entry
// written.
class JoinedBytes {
 public:
  JoinedBytes(std::string_view first, std::string_view second) {
    size_ = first.size() + second.size();
    char* out = small_;
    if (size_ > sizeof(small_)) {
      large_.resize(size_);
      out = large_.data();
    }
    // An empty view may hold a null pointer (a unique index's key has no primary key part, an
    // ordinary index's value no stored fields), and memcpy's arguments must not be null even for 0
    // bytes.
    if (!first.empty()) std::memcpy(out, first.data(), first.size());
    if (!second.empty()) {
      std::memcpy(out + first.size(), second.data(), second.size());
    }
    data_ = out;
  }
  JoinedBytes(const JoinedBytes&) = delete;
  JoinedBytes& operator=(const JoinedBytes&) = delete;

  WT_ITEM item() const { return item_of(data_, size_); }

 private:
  char small_[128];
  std::string large_;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

void throw_duplicate_key(const std::string& ns, const IndexDescriptor& d,
                         const std::vector<bson::Value>& values) {
  const Collation* collation = d.collation();
  if (collation == nullptr) {
    bson::DocumentBuilder kv;
    for (size_t i = 0; i < d.fields().size() && i < values.size(); ++i) {
      kv.append(d.fields()[i].path, values[i]);
    }
    throw DuplicateKeyError("E11000 duplicate key error collection: " + ns + " index: " + d.name() +
                                " dup key: " + describe_key(d, values),
                            bson::Document::copy_of(d.key_pattern()), kv.finish());
  }
  // As mongod: under a collation the key holds ICU sort keys, not the strings, and it reports
  // a string part as the sort key's lowercase hex (keyValue) and "0x" + that (the message).
  bson::DocumentBuilder kv;
  std::string described = "{ ";
  for (size_t i = 0; i < d.fields().size() && i < values.size(); ++i) {
    const std::string& path = d.fields()[i].path;
    if (i > 0) described += ", ";
    bson::OwnedValue key = collation->comparison_key(values[i]);
    if (key.view().is_string()) {
      std::string hex = lower_hex(key.view().as_string());
      kv.append(path, hex);
      described += path + ": \"0x" + hex + "\"";
    } else {
      kv.append(path, key.view());
      described += path + ": " + key.view().to_json();
    }
  }
  described += " }";
  throw DuplicateKeyError("E11000 duplicate key error collection: " + ns + " index: " + d.name() +
                              " collation: " + collation->spec().to_json() +
                              " dup key: " + described,
                          bson::Document::copy_of(d.key_pattern()), kv.finish(),
                          bson::Document::copy_of(collation->spec().view()));
}

template <class Write>
int IndexTable::write_entry(std::string_view index_key, const std::string& primary_key,
                            std::string_view stored, Write&& write) {
  WT_CURSOR* c = cursor();
  if (c == nullptr) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "index " + d_.name() + " was dropped during the write");
  }
  const JoinedBytes key(index_key,
                        d_.unique() ? std::string_view() : std::string_view(primary_key));
  WT_ITEM k = key.item();
  // The value is the stored fields then the record id: the same joining as a key's.
  const JoinedBytes value(stored, primary_key);
  WT_ITEM v = value.item();
  c->set_key(c, &k);
  c->set_value(c, &v);
  return write(c);  // while the bytes the cursor points at are still here
}

void IndexTable::insert(std::string_view db, std::string_view coll, const GeneratedKey& g,
                        const std::string& primary_key, std::string_view stored) {
  int rc = write_entry(g.bytes, primary_key, stored, [](WT_CURSOR* c) { return c->insert(c); });
  if (rc == WT_DUPLICATE_KEY && d_.unique()) {
    std::string ns;
    ns.append(db).append(".").append(coll);
    throw_duplicate_key(ns, d_, g.values);
  }
  if (rc == WT_DUPLICATE_KEY) return;
  check_in_transaction(rc, "index insert", s_);
}

void IndexTable::rewrite(const std::string& index_key, const std::string& primary_key,
                         std::string_view stored) {
  // A unique index's cursor (overwrite=false) requires the entry to be there; another's
  // writes it either way.
  int rc = write_entry(index_key, primary_key, stored, [](WT_CURSOR* c) { return c->update(c); });
  if (rc == WT_NOTFOUND) {
    throw Error(ErrorCode::kInternalError,
                "index " + d_.name() + " lacks the entry of a document being updated");
  }
  check_in_transaction(rc, "index update", s_);
}

void IndexTable::remove(const std::string& index_key, const std::string& primary_key) {
  WT_CURSOR* c = cursor();
  if (c == nullptr) return;
  const JoinedBytes key(index_key,
                        d_.unique() ? std::string_view() : std::string_view(primary_key));
  WT_ITEM k = key.item();
  c->set_key(c, &k);
  int rc = c->remove(c);
  if (rc == WT_NOTFOUND) return;
  check_in_transaction(rc, "index remove", s_);
}

}  // namespace mongostore::engine
