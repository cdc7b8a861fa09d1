#include "stored_fields.h"

namespace mongostore::tool {

void append_stored_or_null(bson::DocumentBuilder& b, std::string_view key,
                           bson::DocumentView holder, const std::string& name) {
  bson::Value v = holder.get(name);
  if (v.is_missing()) {
    b.append(key, bson::Null{});
  } else {
    b.append(key, v);
  }
}

void append_stored_list(bson::DocumentBuilder& b, std::string_view key, bson::Value elements,
                        const AppendStoredElement& append_element) {
  if (!elements.is_array()) {
    b.append(key, bson::Null{});
    return;
  }
  b.open_array(key);
  size_t i = 0;
  for (const bson::Element& e : elements.as_array()) {
    std::string index = std::to_string(i++);
    if (e.value.is_document()) {
      append_element(b, index, e.value.as_document());
    } else {
      b.append(index, bson::Null{});
    }
  }
  b.close();
}

}  // namespace mongostore::tool
