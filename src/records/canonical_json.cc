#include "records/canonical_json.h"

#include "mongostore/records/content_id.h"

namespace mongostore::records {

std::string CanonicalJson::dump() const {
  std::string out;
  append_to(out);
  return out;
}

void CanonicalJson::append_to(std::string& out) const {
  switch (v_.index()) {
    case 0:
      out += "null";
      return;
    case 1:
      out += std::get<bool>(v_) ? "true" : "false";
      return;
    case 2:
      out += std::to_string(std::get<int64_t>(v_));
      return;
    case 3:
      append_json_string(out, std::get<std::string>(v_));
      return;
    case 4: {
      out += '[';
      bool first = true;
      for (const CanonicalJson& item : std::get<Array>(v_)) {
        if (!first) out += ',';
        first = false;
        item.append_to(out);
      }
      out += ']';
      return;
    }
    case 5: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : std::get<Object>(v_)) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, key);
        out += ':';
        value.append_to(out);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace mongostore::records
