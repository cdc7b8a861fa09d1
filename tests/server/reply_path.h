// path_at: a value of a reply by dotted path, through arrays too ("cursor.firstBatch.0._id"),
// which DocumentView::get_path (the query language's path, without array indexes) does not do;
// int_at: the integer there.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
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

/// The integer at `path` (see path_at); a failed expectation naming the path when there is
/// none.
inline int64_t int_at(bson::DocumentView doc, std::string_view path) {
  int64_t out = 0;
  EXPECT_TRUE(path_at(doc, path).number_as_exact_int64(&out)) << path << " in " << doc.to_json();
  return out;
}

}  // namespace mongostore::testing
