#include "mongostore/bson/document.h"

#include <bson/bson.h>

#include <cstring>
#include <optional>
#include <vector>

#include "bson/json_parser.h"
#include "bson/raw.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::bson {
namespace {

const uint8_t kEmptyDocument[5] = {5, 0, 0, 0, 0};

std::string render_json(const uint8_t* data, size_t size, JsonMode mode, bool as_array) {
  bson_t b;
  if (!bson_init_static(&b, data, size)) return "<invalid BSON>";
  size_t len = 0;
  char* s = nullptr;
  if (as_array) {
    s = bson_array_as_json(&b, &len);  // legacy-relaxed rendering of arrays
  } else if (mode == JsonMode::kCanonical) {
    s = bson_as_canonical_extended_json(&b, &len);
  } else {
    s = bson_as_relaxed_extended_json(&b, &len);
  }
  if (s == nullptr) return "<unrenderable BSON>";
  std::string out(s, len);
  bson_free(s);
  return out;
}

// libbson 1.23's bson_validate checks field names but not string values for UTF-8, and does
// not check that embedded documents end in a NUL, so every document is also walked here.
// Every read is bounds-checked: nothing about the bytes is trusted.
bool utf8_ok(const uint8_t* p, size_t n) {
  return bson_utf8_validate(reinterpret_cast<const char*>(p), n, /*allow_null=*/true);
}

// A BSON string (int32 length including the NUL, bytes, NUL) at `v` with `left` bytes
// available; sets *size to its total size.
bool check_string(const uint8_t* v, size_t left, size_t* size, std::string* reason) {
  if (left < 4) {
    *reason = "invalid BSON: truncated string length";
    return false;
  }
  uint32_t n = raw::read_u32(v);
  if (n < 1 || n > left - 4 || v[4 + n - 1] != 0) {
    *reason = "invalid BSON: bad string length";
    return false;
  }
  if (!utf8_ok(v + 4, n - 1)) {
    *reason = "invalid BSON: string is not valid UTF-8";
    return false;
  }
  *size = 4 + size_t(n);
  return true;
}

bool check_cstring(const uint8_t* v, size_t left, size_t* size, std::string* reason) {
  const void* nul = std::memchr(v, 0, left);
  if (nul == nullptr) {
    *reason = "invalid BSON: unterminated C string";
    return false;
  }
  size_t n = static_cast<size_t>(static_cast<const uint8_t*>(nul) - v);
  if (!utf8_ok(v, n)) {
    *reason = "invalid BSON: C string is not valid UTF-8";
    return false;
  }
  *size = n + 1;
  return true;
}

// Checks the header of an embedded document (or array, or code-with-scope scope) at `p` with
// `avail` bytes available: a length that fits and a NUL terminator.
bool check_document_header(const uint8_t* p, size_t avail, std::string* reason) {
  if (avail < 5) {
    *reason = "invalid BSON: truncated embedded document";
    return false;
  }
  uint32_t len = raw::read_u32(p);
  if (len < 5 || len > avail) {
    *reason = "invalid BSON: bad embedded document length";
    return false;
  }
  if (p[len - 1] != 0) {
    *reason = "invalid BSON: document is not NUL-terminated";
    return false;
  }
  return true;
}

// One document being walked: its bytes, the next element's offset and its terminator's offset.
struct Frame {
  const uint8_t* p;
  size_t pos;
  size_t end;
};

// Walks the document at `p` (`avail` bytes) and everything nested in it with an explicit stack,
// never recursing: a hostile document nested many thousands of levels deep costs memory in
// proportion to its size, not stack. Non-empty embedded documents nested more than `max_depth`
// levels below the top fail, with *too_deep set.
bool check_document(const uint8_t* p, size_t avail, size_t max_depth, std::string* reason,
                    bool* too_deep) {
  if (!check_document_header(p, avail, reason)) return false;
  std::vector<Frame> stack;
  stack.push_back(Frame{p, 4, raw::read_u32(p) - size_t(1)});
  // Enters the embedded document at `v` (header already checked): empty ones need no walk.
  auto enter = [&](const uint8_t* v) {
    uint32_t len = raw::read_u32(v);
    if (len == 5) return true;
    if (stack.size() > max_depth) {
      *too_deep = true;
      *reason = "BSON document exceeds the maximum nesting depth of " + std::to_string(max_depth);
      return false;
    }
    stack.push_back(Frame{v, 4, len - size_t(1)});
    return true;
  };
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.pos >= f.end) {
      stack.pop_back();
      continue;
    }
    const uint8_t* d = f.p;
    uint8_t type = d[f.pos++];
    if (type == 0) {
      *reason = "invalid BSON: bytes after a document's terminator";
      return false;
    }
    size_t key_size = 0;
    if (!check_cstring(d + f.pos, f.end - f.pos, &key_size, reason)) return false;
    f.pos += key_size;
    const uint8_t* v = d + f.pos;
    size_t left = f.end - f.pos;
    size_t size = 0;
    const uint8_t* nested = nullptr;  // a document to walk once this element is skipped
    switch (static_cast<BsonType>(type)) {
      case BsonType::kDouble:
      case BsonType::kDateTime:
      case BsonType::kTimestamp:
      case BsonType::kInt64:
        size = 8;
        break;
      case BsonType::kInt32:
        size = 4;
        break;
      case BsonType::kDecimal128:
        size = 16;
        break;
      case BsonType::kObjectId:
        size = 12;
        break;
      case BsonType::kBool:
        size = 1;
        if (left >= 1 && v[0] > 1) {
          *reason = "invalid BSON: boolean is neither 0 nor 1";
          return false;
        }
        break;
      case BsonType::kUndefined:
      case BsonType::kNull:
      case BsonType::kMinKey:
      case BsonType::kMaxKey:
        size = 0;
        break;
      case BsonType::kString:
      case BsonType::kCode:
      case BsonType::kSymbol:
        if (!check_string(v, left, &size, reason)) return false;
        break;
      case BsonType::kDocument:
      case BsonType::kArray:
        if (!check_document_header(v, left, reason)) return false;
        size = raw::read_u32(v);
        nested = v;
        break;
      case BsonType::kBinary: {
        if (left < 5) {
          *reason = "invalid BSON: truncated binary";
          return false;
        }
        uint32_t n = raw::read_u32(v);
        if (n > left - 5 || (v[4] == 0x02 && (n < 4 || raw::read_u32(v + 5) != n - 4))) {
          *reason = "invalid BSON: bad binary length";
          return false;
        }
        size = 5 + size_t(n);
        break;
      }
      case BsonType::kRegex: {
        size_t a = 0, b = 0;
        if (!check_cstring(v, left, &a, reason)) return false;
        if (!check_cstring(v + a, left - a, &b, reason)) return false;
        size = a + b;
        break;
      }
      case BsonType::kDbPointer:
        if (!check_string(v, left, &size, reason)) return false;
        size += 12;
        break;
      case BsonType::kCodeWithScope: {
        if (left < 4) {
          *reason = "invalid BSON: truncated code with scope";
          return false;
        }
        uint32_t total = raw::read_u32(v);
        size_t code = 0;
        if (total < 14 || total > left || !check_string(v + 4, total - 4, &code, reason) ||
            !check_document_header(v + 4 + code, total - 4 - code, reason) ||
            raw::read_u32(v + 4 + code) != total - 4 - code) {
          if (reason->empty()) *reason = "invalid BSON: bad code with scope length";
          return false;
        }
        size = total;
        nested = v + 4 + code;
        break;
      }
      default:
        *reason = "invalid BSON: unknown type " + std::to_string(type);
        return false;
    }
    if (size > left) {
      *reason = "invalid BSON: truncated value";
      return false;
    }
    f.pos += size;
    // `f` may dangle after the push below: it is not used again in this iteration.
    if (nested != nullptr && !enter(nested)) return false;
  }
  return true;
}
}  // namespace

void DocumentView::Iterator::load() {
  if (pos_ == nullptr || pos_ >= end_ || *pos_ == 0) {
    pos_ = end_;
    return;
  }
  auto type = static_cast<BsonType>(*pos_);
  const char* key = reinterpret_cast<const char*>(pos_ + 1);
  size_t key_len = std::strlen(key);
  const uint8_t* payload = pos_ + 2 + key_len;
  uint32_t size = raw::payload_size(type, payload);
  current_ = Element{std::string_view(key, key_len), Value(type, payload, size)};
  next_ = payload + size;
}

DocumentView::DocumentView() : data_(kEmptyDocument), size_(5) {}

DocumentView::Iterator DocumentView::begin() const {
  // The end position is the trailing NUL: iteration stops on it.
  return Iterator(data_ + 4, data_ + size_ - 1);
}

DocumentView::Iterator DocumentView::end() const {
  return Iterator(data_ + size_ - 1, data_ + size_ - 1);
}

Value DocumentView::get(std::string_view key) const {
  for (const Element& e : *this) {
    if (e.key == key) return e.value;
  }
  return Value();
}

Value DocumentView::get_path(std::string_view dotted) const {
  DocumentView current = *this;
  while (true) {
    size_t dot = dotted.find('.');
    Value v = current.get(dotted.substr(0, dot));
    if (dot == std::string_view::npos) return v;
    if (!v.is_document()) return Value();
    current = v.as_document();
    dotted.remove_prefix(dot + 1);
  }
}

size_t DocumentView::count() const {
  size_t n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

std::string DocumentView::to_json(JsonMode mode) const {
  return render_json(data_, size_, mode, false);
}

std::string DocumentView::to_json_array(JsonMode mode) const {
  // Render element values one by one so both dialects work for arrays.
  std::string out = "[";
  bool first = true;
  for (const Element& e : *this) {
    if (!first) out += ", ";
    first = false;
    DocumentBuilder b;
    b.append("v", e.value);
    Document d = b.finish();
    std::string json = d.view().to_json(mode);
    size_t start = json.find(':') + 2;
    out += json.substr(start, json.size() - 2 - start);
  }
  out += "]";
  return out;
}

bool operator==(const DocumentView& a, const DocumentView& b) {
  return a.size_ == b.size_ && std::memcmp(a.data_, b.data_, a.size_) == 0;
}

namespace {

// validate_bson, also saying whether the failure was the nesting limit (Overflow, not
// InvalidBSON).
bool validate(std::span<const uint8_t> bytes, std::string* reason, bool* too_deep) {
  if (bytes.size() < 5) {
    *reason = "BSON document is truncated: " + std::to_string(bytes.size()) + " bytes";
    return false;
  }
  uint32_t declared = raw::read_u32(bytes.data());
  if (declared != bytes.size()) {
    *reason = "BSON length prefix " + std::to_string(declared) + " does not match the " +
              std::to_string(bytes.size()) + " bytes given";
    return false;
  }
  // Our own walk first (it names the problem), then libbson's check as a second opinion.
  reason->clear();
  // libbson's bson_validate below recurses once per level: the depth is bounded first.
  if (!check_document(bytes.data(), bytes.size(), kMaxBsonDepth, reason, too_deep)) return false;
  bson_t b;
  if (!bson_init_static(&b, bytes.data(), bytes.size())) {
    *reason = "BSON document header or terminator is invalid";
    return false;
  }
  bson_error_t error;
  // Strings must be UTF-8; embedded NULs are allowed, as in MongoDB.
  if (!bson_validate_with_error(
          &b,
          static_cast<bson_validate_flags_t>(BSON_VALIDATE_UTF8 | BSON_VALIDATE_UTF8_ALLOW_NULL),
          &error)) {
    *reason = std::string("invalid BSON: ") + error.message;
    return false;
  }
  return true;
}

}  // namespace

bool validate_bson(std::span<const uint8_t> bytes, std::string* reason) {
  bool too_deep = false;
  return validate(bytes, reason, &too_deep);
}

namespace {

// The fewest bytes a chain of k non-empty documents or arrays, each inside the one before, can
// take is 7k: the innermost is its length (4), one element (a type byte, the empty key's NUL,
// a payload that may be empty) and its terminator (1); each one around it adds its length, its
// element's type byte and key NUL, and its terminator. A container of `size` bytes therefore
// holds at most size / 7 - 1 levels of non-empty containers below itself.
constexpr size_t kMinNestingBytes = 7;

// Whether a container of `size` bytes whose elements sit at `level` (the top level's at 1) can
// hold a non-empty container deeper than `max_levels`: most documents are far smaller than the
// limit allows, so their subtrees need no walk at all.
bool can_exceed(size_t level, size_t size, size_t max_levels) {
  const size_t chain = size / kMinNestingBytes;  // itself included
  if (chain < 2) return false;                   // no non-empty container fits inside
  // Its non-empty children sit at `level`, their children one deeper, ...: the deepest at
  // level + chain - 2, which nesting_exceeds reports when it is more than max_levels.
  return level + chain - 2 > max_levels;
}

}  // namespace

bool nesting_exceeds(DocumentView document, size_t max_levels) {
  if (!can_exceed(1, document.size(), max_levels)) return false;
  // The bytes are valid: only the depth is tracked, with one pending iterator per level.
  std::vector<std::pair<DocumentView::Iterator, DocumentView::Iterator>> stack;
  stack.emplace_back(document.begin(), document.end());
  while (!stack.empty()) {
    auto& [it, end] = stack.back();
    if (it == end) {
      stack.pop_back();
      continue;
    }
    Value v = it->value;
    ++it;
    if ((v.is_document() || v.is_array()) && v.size() > 5) {
      if (stack.size() > max_levels) return true;
      // A subtree too small to reach past the limit is not walked.
      if (!can_exceed(stack.size() + 1, v.size(), max_levels)) continue;
      DocumentView child(v.data(), v.size());
      stack.emplace_back(child.begin(), child.end());
    }
  }
  return false;
}

Document::Document() : bytes_(kEmptyDocument, kEmptyDocument + 5) {}

Document Document::adopt(std::vector<uint8_t> bytes) {
  return Document(std::move(bytes));
}

Document Document::from_bytes(std::span<const uint8_t> bytes) {
  std::string reason;
  bool too_deep = false;
  if (!validate(bytes, &reason, &too_deep)) {
    throw Error(too_deep ? ErrorCode::kOverflow : ErrorCode::kInvalidBSON, reason);
  }
  return Document(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

Document Document::copy_of(DocumentView view) {
  return Document(std::vector<uint8_t>(view.data(), view.data() + view.size()));
}

Document Document::from_json(std::string_view json) {
  // Plain JSON (most of what the execution store and the records layer read back) skips
  // libbson's reader, whose setup alone costs more than parsing a small document.
  if (std::optional<Document> plain = parse_plain_json(json)) return std::move(*plain);
  return parse_extended_json(json);
}

Document parse_extended_json(std::string_view json) {
  // What bson_new_from_json does, plus a check that nothing follows the one document (it
  // would silently drop a second one).
  bson_error_t error;
  bson_json_reader_t* reader = bson_json_data_reader_new(false, 0x1000);
  bson_json_data_reader_ingest(reader, reinterpret_cast<const uint8_t*>(json.data()), json.size());
  bson_t b = BSON_INITIALIZER;
  int r = bson_json_reader_read(reader, &b, &error);
  std::string message;
  if (r == 0) {
    message = "Empty JSON string";
  } else if (r < 0) {
    message = error.message;
  } else {
    bson_t extra = BSON_INITIALIZER;
    int more = bson_json_reader_read(reader, &extra, &error);
    bson_destroy(&extra);
    if (more != 0) message = more < 0 ? error.message : "more than one document";
  }
  bson_json_reader_destroy(reader);
  if (!message.empty()) {
    bson_destroy(&b);
    throw Error(ErrorCode::kFailedToParse, "invalid extended JSON: " + message);
  }
  const uint8_t* data = bson_get_data(&b);
  std::vector<uint8_t> bytes(data, data + b.len);
  bson_destroy(&b);
  return Document::adopt(std::move(bytes));
}

std::vector<uint8_t> Document::release() {
  std::vector<uint8_t> out = std::move(bytes_);
  bytes_.assign(kEmptyDocument, kEmptyDocument + 5);
  return out;
}

OwnedValue::OwnedValue() = default;

namespace {
// The holder of an OwnedValue: the one-element document {"": v}, written in one allocation
// (expression evaluation makes one per intermediate value, so a builder's three allocations
// and a parse on every view() were most of the cost of a small arithmetic expression).
Document owned_holder(const Value& v) {
  if (v.is_missing()) return Document();
  const uint32_t size = 4 + 1 + 1 + v.size() + 1;  // length, type, "" key, value, terminator
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), &size, 4);
  bytes[4] = static_cast<uint8_t>(v.type());
  bytes[5] = 0;
  if (v.size() != 0) std::memcpy(bytes.data() + 6, v.data(), v.size());
  bytes[size - 1] = 0;
  return Document::adopt(std::move(bytes));
}
}  // namespace

OwnedValue::OwnedValue(Value v) : holder_(owned_holder(v)) {}

Value OwnedValue::view() const {
  // The holder is always owned_holder's layout (or the empty document: missing), so the
  // value is read in place rather than by iterating.
  if (holder_.size() <= 5) return Value();
  const uint8_t* d = holder_.data();
  return Value(static_cast<BsonType>(d[4]), d + 6, static_cast<uint32_t>(holder_.size() - 7));
}

}  // namespace mongostore::bson
