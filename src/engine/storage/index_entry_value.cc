#include "engine/storage/index_entry_value.h"

#include "bson/raw_elements.h"

namespace mongostore::engine {

std::string IndexEntryValue::stored_fields_of(const IndexDescriptor& d, bson::DocumentView doc) {
  // In the document's order, so that a projection of the stored fields lists its fields as a
  // projection of the document does; the first of a repeated name (DocumentView::get's). Each
  // kept element's bytes are copied as they are (one walk over the raw bytes, no builder): a
  // commit that changes a stored field pays this for every index entry it rewrites.
  const std::vector<std::string>& names = d.stored_fields();
  static_assert(IndexDescriptor::kMaxStoredFields <= 64);
  uint64_t taken = 0;  // bit i: names[i] was met
  std::string out(4, '\0');
  const uint8_t* p = doc.data() + 4;
  const uint8_t* const end = doc.data() + doc.size() - 1;
  while (p < end && *p != 0) {
    const uint8_t* const start = p;
    bson::Element e;
    p = bson::read_element(p, &e);
    for (size_t i = 0; i < names.size(); ++i) {
      if ((taken >> i & 1) == 0 && e.key == names[i]) {
        taken |= uint64_t{1} << i;
        out.append(reinterpret_cast<const char*>(start), static_cast<size_t>(p - start));
        break;
      }
    }
    if (taken == (uint64_t{1} << names.size()) - 1) break;  // all met
  }
  out.push_back('\0');
  const uint32_t size = static_cast<uint32_t>(out.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(size >> (8 * i));  // little-endian
  return out;
}

}  // namespace mongostore::engine
