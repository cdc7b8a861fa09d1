// Walking a stored record's `f` document (stored_form.h's layout) without the record's C++
// type, for the two readers of the tool: `records show` (exact values, references resolved)
// and `mongostore optimade` (OPTIMADE's types). They differ in how a value is rendered, not in
// how the stored keys are found, which is what these share.
//
// A store written by another process may be damaged or older than its schema: what is not
// where the schema says comes back as null, never as an error.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"

namespace mongostore::tool {

/// Appends `holder`'s value under `name` as `key`, or null when `holder` has no key `name`
/// (an optional field that is None stores no keys).
void append_stored_or_null(bson::DocumentBuilder& b, std::string_view key,
                           bson::DocumentView holder, const std::string& name);

/// Renders one element of a child list: `element` is the element's document, `index` the key
/// to append it under.
using AppendStoredElement = std::function<void(bson::DocumentBuilder& b, std::string_view index,
                                               bson::DocumentView element)>;

/// Appends a child field's stored list (`elements`, its value under `f`) as the array `key`,
/// each element through `append_element`; null in place of a list that is not an array and of
/// an element that is not a document.
void append_stored_list(bson::DocumentBuilder& b, std::string_view key, bson::Value elements,
                        const AppendStoredElement& append_element);

}  // namespace mongostore::tool
