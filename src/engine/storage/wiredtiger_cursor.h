// Cursor helpers over WiredTiger: an RAII cursor and accessors for the raw key and value.
//
// Tables here are `key_format=u,value_format=u` (bytes to bytes). Everything is inline: these
// sit on every point operation's path. A CursorHandle belongs to the session it was opened
// on, so it is used by one thread, inside one unit of work.
#pragma once

#include <wiredtiger.h>

#include <string>

#include "engine/storage/write_conflict.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

inline WT_ITEM item_of(const void* data, size_t size) {
  WT_ITEM it{};
  it.data = data;
  it.size = size;
  return it;
}

/// RAII for a WiredTiger cursor. A table that does not exist (dropped) gives a handle that
/// tests false; other open failures throw (WriteConflictException for WT_ROLLBACK).
class CursorHandle {
 public:
  CursorHandle(WT_SESSION* s, const std::string& uri, const char* config = nullptr) {
    int rc = s->open_cursor(s, uri.c_str(), nullptr, config, &c_);
    if (rc == ENOENT) {
      c_ = nullptr;
      return;
    }
    check_in_transaction(rc, "open_cursor", s);
  }
  ~CursorHandle() {
    if (c_ != nullptr) c_->close(c_);
  }
  CursorHandle(const CursorHandle&) = delete;
  CursorHandle& operator=(const CursorHandle&) = delete;
  WT_CURSOR* operator->() const { return c_; }
  WT_CURSOR* get() const { return c_; }
  explicit operator bool() const { return c_ != nullptr; }

 private:
  WT_CURSOR* c_ = nullptr;
};

/// The value under the cursor as a document; valid until the cursor moves.
inline bson::DocumentView current_value(WT_CURSOR* c) {
  WT_ITEM v{};
  c->get_value(c, &v);
  return bson::DocumentView(static_cast<const uint8_t*>(v.data), v.size);
}

/// The key under the cursor, copied.
inline std::string current_key(WT_CURSOR* c) {
  WT_ITEM k{};
  c->get_key(c, &k);
  return std::string(static_cast<const char*>(k.data), k.size);
}

}  // namespace mongostore::engine
