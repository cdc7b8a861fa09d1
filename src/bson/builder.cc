#include "mongostore/bson/builder.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>

#include "mongostore/error.h"

namespace mongostore::bson {

// data_ caches buffer_.data(), so copies and moves re-point it at their own buffer.
DocumentBuilder::DocumentBuilder(const DocumentBuilder& other)
    : buffer_(other.buffer_),
      data_(buffer_.data()),
      len_(other.len_),
      cap_(other.cap_),
      depth_(other.depth_),
      deep_frames_(other.deep_frames_) {
  std::copy(std::begin(other.frames_), std::end(other.frames_), std::begin(frames_));
  if (cap_ == 0) data_ = nullptr;
}

DocumentBuilder::DocumentBuilder(DocumentBuilder&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      data_(buffer_.data()),
      len_(other.len_),
      cap_(other.cap_),
      depth_(other.depth_),
      deep_frames_(std::move(other.deep_frames_)) {
  std::copy(std::begin(other.frames_), std::end(other.frames_), std::begin(frames_));
  if (cap_ == 0) data_ = nullptr;
  other.reset();
}

DocumentBuilder& DocumentBuilder::operator=(const DocumentBuilder& other) {
  if (this != &other) *this = DocumentBuilder(other);
  return *this;
}

DocumentBuilder& DocumentBuilder::operator=(DocumentBuilder&& other) noexcept {
  if (this != &other) {
    buffer_ = std::move(other.buffer_);
    len_ = other.len_;
    cap_ = other.cap_;
    data_ = cap_ == 0 ? nullptr : buffer_.data();
    depth_ = other.depth_;
    deep_frames_ = std::move(other.deep_frames_);
    std::copy(std::begin(other.frames_), std::end(other.frames_), std::begin(frames_));
    other.reset();
  }
  return *this;
}

void DocumentBuilder::reset() {
  buffer_ = std::vector<uint8_t>();
  data_ = nullptr;
  len_ = 4;
  cap_ = 0;
  depth_ = 1;
  frames_[0] = Frame{0, 0};
  deep_frames_.clear();
}

void DocumentBuilder::grow_to(size_t bytes) {
  // Doubling keeps appends amortised O(1); the first allocation is a small document's worth.
  size_t cap = std::max({bytes, cap_ * 2, size_t{64}});
  // std::vector zero-fills what it grows by. In steps under glibc's threshold for `rep stosb`
  // (2 KB) that fill stays a short run of vector stores; past it, valgrind counts the string
  // instruction once per byte, overstating this fill in every profile.
  constexpr size_t kFillStep = 2000;
  buffer_.reserve(cap);
  while (buffer_.size() < cap) buffer_.resize(std::min(cap, buffer_.size() + kFillStep));
  data_ = buffer_.data();
  cap_ = cap;
}

void DocumentBuilder::nul_key() {
  throw Error(ErrorCode::kBadValue, "a BSON field name cannot contain a NUL byte");
}

void DocumentBuilder::missing_value(std::string_view key) {
  throw Error(ErrorCode::kBadValue, "cannot append a missing value as '" + std::string(key) + "'");
}

std::string_view DocumentBuilder::next_index_key(char (&digits)[kIndexKeyCapacity]) {
  uint32_t index = top().next_index++;
  auto [end, ec] = std::to_chars(digits, digits + kIndexKeyCapacity, index);
  (void)ec;  // a uint32_t always fits
  return std::string_view(digits, static_cast<size_t>(end - digits));
}

DocumentBuilder& DocumentBuilder::append(std::string_view key, const Array& array) {
  return append_array(key, array.view());
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, const ObjectId& v) {
  return append_raw(BsonType::kObjectId, key, v.bytes.data(), 12);
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, const Decimal128& v) {
  uint8_t* p = begin_element(BsonType::kDecimal128, key, 16);
  std::memcpy(p, &v.low, 8);
  std::memcpy(p + 8, &v.high, 8);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, DateTime v) {
  return append_fixed(BsonType::kDateTime, key, v.millis);
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Timestamp v) {
  uint8_t* p = begin_element(BsonType::kTimestamp, key, 8);
  std::memcpy(p, &v.increment, 4);
  std::memcpy(p + 4, &v.seconds, 4);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, BinaryView v) {
  // The old binary subtype 2 nests a second length prefix (as_binary strips it again).
  bool old = v.subtype == 0x02;
  size_t inner = old ? 4 : 0;
  uint8_t* p = begin_element(BsonType::kBinary, key, 4 + 1 + inner + v.bytes.size());
  uint32_t len = static_cast<uint32_t>(v.bytes.size() + inner);
  std::memcpy(p, &len, 4);
  p[4] = v.subtype;
  if (old) {
    uint32_t n = static_cast<uint32_t>(v.bytes.size());
    std::memcpy(p + 5, &n, 4);
  }
  if (!v.bytes.empty()) std::memcpy(p + 5 + inner, v.bytes.data(), v.bytes.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, RegexView v) {
  if (v.pattern.find('\0') != std::string_view::npos ||
      v.options.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kBadValue, "a regular expression cannot contain a NUL byte");
  }
  uint8_t* p = begin_element(BsonType::kRegex, key, v.pattern.size() + 1 + v.options.size() + 1);
  if (!v.pattern.empty()) std::memcpy(p, v.pattern.data(), v.pattern.size());
  p += v.pattern.size();
  *p++ = 0;
  if (!v.options.empty()) std::memcpy(p, v.options.data(), v.options.size());
  p[v.options.size()] = 0;
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Null) {
  begin_element(BsonType::kNull, key, 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Undefined) {
  begin_element(BsonType::kUndefined, key, 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, MinKey) {
  begin_element(BsonType::kMinKey, key, 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, MaxKey) {
  begin_element(BsonType::kMaxKey, key, 0);
  return *this;
}

DocumentBuilder& DocumentBuilder::append_elements(DocumentView document) {
  // Elements are copied verbatim: the bytes between the length prefix and the terminator.
  size_t n = document.size() - 5;
  if (n != 0) std::memcpy(extend(n), document.data() + 4, n);
  return *this;
}

bool DocumentBuilder::push_array_elements(DocumentView array) {
  uint32_t index = top().next_index;
  char expected[16];
  for (const Element& e : array) {
    auto [end, ec] = std::to_chars(expected, expected + sizeof expected, index);
    (void)ec;
    if (e.key != std::string_view(expected, static_cast<size_t>(end - expected))) return false;
    ++index;
  }
  size_t n = array.size() - 5;
  if (n != 0) std::memcpy(extend(n), array.data() + 4, n);
  top().next_index = index;
  return true;
}

DocumentBuilder& DocumentBuilder::open(BsonType type, std::string_view key) {
  begin_element(type, key, 4);  // the length prefix, patched by close()
  Frame f{len_ - 4, 0};
  if (depth_ < kInlineFrames) {
    frames_[depth_] = f;
  } else {
    deep_frames_.push_back(f);
  }
  ++depth_;
  return *this;
}

DocumentBuilder& DocumentBuilder::close() {
  if (depth_ <= 1) {
    throw Error(ErrorCode::kInternalError, "DocumentBuilder::close without an open level");
  }
  *extend(1) = 0;
  size_t start;
  if (depth_ <= kInlineFrames) {
    start = frames_[depth_ - 1].start;
  } else {
    start = deep_frames_.back().start;
    deep_frames_.pop_back();
  }
  --depth_;
  uint32_t len = static_cast<uint32_t>(len_ - start);
  std::memcpy(data_ + start, &len, 4);
  return *this;
}

Document DocumentBuilder::finish() {
  while (depth_ > 1) close();
  *extend(1) = 0;
  uint32_t len = static_cast<uint32_t>(len_);
  std::memcpy(data_, &len, 4);
  buffer_.resize(len_);  // shrinking: no bytes are written
  Document out = Document::adopt(std::move(buffer_));
  reset();
  return out;
}

Array DocumentBuilder::finish_array() {
  return Array(finish());
}

}  // namespace mongostore::bson
