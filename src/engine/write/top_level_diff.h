// TopLevelDiff: the top-level fields of the two versions of an updated document, each version
// walked once, and which of the new version's fields are byte for byte the old version's.
//
// update_document asks both versions for `_id` and for the top-level field of each affected
// index (DocumentView::get walks from the first element every time), and checks the nesting
// depth of what the update changed only. Both walks happen here, once, in the constructor,
// over the raw bytes (no iterator call per element); lookups then compare names against the
// remembered elements. The first kRemembered fields of each version are remembered; a lookup
// of a later field walks from the start as DocumentView::get does, and the fields past
// kRemembered all count as changed.
//
// Not thread-safe (one write path owns it); the documents' bytes must outlive it, and must be
// valid BSON (stored documents and an update's result are).
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "bson/raw_elements.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

class TopLevelDiff {
 public:
  TopLevelDiff(bson::DocumentView before, bson::DocumentView after)
      : before_(before), after_(after) {
    load(before_);
    load(after_);
    align();
  }

  /// The value of the first top-level field named `key` in the old version (missing when
  /// there is none), as DocumentView::get returns it.
  bson::Value before(std::string_view key) const { return before_.get(key); }
  /// The same in the new version.
  bson::Value after(std::string_view key) const { return after_.get(key); }

  /// Calls `visit(const bson::Value&)` for each top-level value of the new version that is not
  /// known to be byte-identical to a top-level value of the old version: the values an update
  /// may have changed (a field kept as it was is matched by name at its position, or one
  /// position on when a field before it was removed; anything else counts as changed).
  template <class Visit>
  void for_each_changed(Visit&& visit) const {
    for (size_t i = 0; i < after_.count; ++i) {
      if (!same_[i]) visit(after_.elements[i].value);
    }
    if (after_.complete) return;
    // Past the remembered fields: all of them, walked on from where the first walk stopped.
    const uint8_t* const end = after_.doc.data() + after_.doc.size() - 1;
    for (const uint8_t* p = after_.rest; p < end && *p != 0;) {
      bson::Element e;
      p = bson::read_element(p, &e);
      visit(e.value);
    }
  }

 private:
  static constexpr size_t kRemembered = 32;

  struct Side {
    explicit Side(bson::DocumentView d) : doc(d) {}
    bson::Value get(std::string_view key) const {
      for (size_t i = 0; i < count; ++i) {
        if (elements[i].key == key) return elements[i].value;
      }
      return complete ? bson::Value() : doc.get(key);
    }
    bson::DocumentView doc;
    std::array<bson::Element, kRemembered> elements;
    size_t count = 0;
    bool complete = true;           // every field is remembered
    const uint8_t* rest = nullptr;  // the first field not remembered (when !complete)
  };

  static void load(Side& side) {
    const uint8_t* p = side.doc.data() + 4;
    const uint8_t* const end = side.doc.data() + side.doc.size() - 1;
    while (p < end && *p != 0) {
      if (side.count == kRemembered) {
        side.complete = false;
        side.rest = p;
        return;
      }
      p = bson::read_element(p, &side.elements[side.count++]);
    }
  }

  // same_[i]: the new version's i-th field has the name and the bytes of the old version's
  // field at the matching position.
  void align() {
    size_t j = 0;
    for (size_t i = 0; i < after_.count; ++i) {
      const bson::Element& a = after_.elements[i];
      if (j + 1 < before_.count && before_.elements[j].key != a.key &&
          before_.elements[j + 1].key == a.key) {
        ++j;  // the old field at j was removed ($unset) or moved
      }
      if (j < before_.count && before_.elements[j].key == a.key) {
        same_[i] = before_.elements[j].value.identical(a.value);
        ++j;
      } else {
        same_[i] = false;
      }
    }
  }

  Side before_, after_;
  std::array<bool, kRemembered> same_{};
};

}  // namespace mongostore::engine
