// path_at: a value of a reply by dotted path, through arrays too ("cursor.firstBatch.0._id"),
// which DocumentView::get_path (the query language's path, without array indexes) does not do.
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

inline bson::Value path_at(bson::DocumentView doc, std::string_view path) {
  for (;;) {
    size_t dot = path.find('.');
    bson::Value v = doc.get(path.substr(0, dot));
    if (dot == std::string_view::npos) return v;
    if (v.is_document()) {
      doc = v.as_document();
    } else if (v.is_array()) {
      doc = v.as_array();
    } else {
      return bson::Value();
    }
    path = path.substr(dot + 1);
  }
}

}  // namespace mongostore::testing
