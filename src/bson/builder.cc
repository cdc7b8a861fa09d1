#include "mongostore/bson/builder.h"

#include <charconv>
#include <cstring>

#include "mongostore/error.h"

namespace mongostore::bson {

DocumentBuilder::DocumentBuilder() {
  buffer_.reserve(64);
  buffer_.resize(4);  // length prefix, patched on close
  frames_.push_back(Frame{0, 0});
}

void DocumentBuilder::put_bytes(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  buffer_.insert(buffer_.end(), b, b + n);
}

template <class T>
void DocumentBuilder::put(T v) {
  put_bytes(&v, sizeof(T));
}

void DocumentBuilder::begin_element(BsonType type, std::string_view key) {
  if (key.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kBadValue, "a BSON field name cannot contain a NUL byte");
  }
  buffer_.push_back(static_cast<uint8_t>(type));
  put_bytes(key.data(), key.size());
  buffer_.push_back(0);
}

std::string DocumentBuilder::next_index_key() {
  return std::to_string(frames_.back().next_index++);
}

DocumentBuilder& DocumentBuilder::append(std::string_view key, double v) {
  begin_element(BsonType::kDouble, key);
  put(v);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, int32_t v) {
  begin_element(BsonType::kInt32, key);
  put(v);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, int64_t v) {
  begin_element(BsonType::kInt64, key);
  put(v);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, bool v) {
  begin_element(BsonType::kBool, key);
  buffer_.push_back(v ? 1 : 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, std::string_view v) {
  begin_element(BsonType::kString, key);
  put(static_cast<uint32_t>(v.size() + 1));
  put_bytes(v.data(), v.size());
  buffer_.push_back(0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Value v) {
  if (v.is_missing()) {
    throw Error(ErrorCode::kBadValue,
                "cannot append a missing value as '" + std::string(key) + "'");
  }
  begin_element(v.type(), key);
  put_bytes(v.data(), v.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, DocumentView document) {
  begin_element(BsonType::kDocument, key);
  put_bytes(document.data(), document.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, const Array& array) {
  return append_array(key, array.view());
}
DocumentBuilder& DocumentBuilder::append_array(std::string_view key, DocumentView array) {
  begin_element(BsonType::kArray, key);
  put_bytes(array.data(), array.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, const ObjectId& v) {
  begin_element(BsonType::kObjectId, key);
  put_bytes(v.bytes.data(), 12);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, const Decimal128& v) {
  begin_element(BsonType::kDecimal128, key);
  put(v.low);
  put(v.high);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, DateTime v) {
  begin_element(BsonType::kDateTime, key);
  put(v.millis);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Timestamp v) {
  begin_element(BsonType::kTimestamp, key);
  put(v.increment);
  put(v.seconds);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, BinaryView v) {
  begin_element(BsonType::kBinary, key);
  // The old binary subtype 2 nests a second length prefix (as_binary strips it again).
  bool old = v.subtype == 0x02;
  put(static_cast<uint32_t>(v.bytes.size() + (old ? 4 : 0)));
  buffer_.push_back(v.subtype);
  if (old) put(static_cast<uint32_t>(v.bytes.size()));
  put_bytes(v.bytes.data(), v.bytes.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, RegexView v) {
  if (v.pattern.find('\0') != std::string_view::npos ||
      v.options.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kBadValue, "a regular expression cannot contain a NUL byte");
  }
  begin_element(BsonType::kRegex, key);
  put_bytes(v.pattern.data(), v.pattern.size());
  buffer_.push_back(0);
  put_bytes(v.options.data(), v.options.size());
  buffer_.push_back(0);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Null) {
  begin_element(BsonType::kNull, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, Undefined) {
  begin_element(BsonType::kUndefined, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, MinKey) {
  begin_element(BsonType::kMinKey, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::append(std::string_view key, MaxKey) {
  begin_element(BsonType::kMaxKey, key);
  return *this;
}

DocumentBuilder& DocumentBuilder::append_elements(DocumentView document) {
  // Elements are copied verbatim: the bytes between the length prefix and the terminator.
  put_bytes(document.data() + 4, document.size() - 5);
  return *this;
}

bool DocumentBuilder::push_array_elements(DocumentView array) {
  uint32_t index = frames_.back().next_index;
  char expected[16];
  for (const Element& e : array) {
    auto [end, ec] = std::to_chars(expected, expected + sizeof expected, index);
    (void)ec;
    if (e.key != std::string_view(expected, static_cast<size_t>(end - expected))) return false;
    ++index;
  }
  put_bytes(array.data() + 4, array.size() - 5);
  frames_.back().next_index = index;
  return true;
}

DocumentBuilder& DocumentBuilder::open_document(std::string_view key) {
  begin_element(BsonType::kDocument, key);
  frames_.push_back(Frame{buffer_.size(), 0});
  buffer_.resize(buffer_.size() + 4);
  return *this;
}

DocumentBuilder& DocumentBuilder::open_array(std::string_view key) {
  begin_element(BsonType::kArray, key);
  frames_.push_back(Frame{buffer_.size(), 0});
  buffer_.resize(buffer_.size() + 4);
  return *this;
}

DocumentBuilder& DocumentBuilder::close() {
  if (frames_.size() <= 1) {
    throw Error(ErrorCode::kInternalError, "DocumentBuilder::close without an open level");
  }
  buffer_.push_back(0);
  Frame f = frames_.back();
  frames_.pop_back();
  uint32_t len = static_cast<uint32_t>(buffer_.size() - f.start);
  std::memcpy(buffer_.data() + f.start, &len, 4);
  return *this;
}

Document DocumentBuilder::finish() {
  while (frames_.size() > 1) close();
  buffer_.push_back(0);
  uint32_t len = static_cast<uint32_t>(buffer_.size());
  std::memcpy(buffer_.data(), &len, 4);
  Document out = Document::adopt(std::move(buffer_));
  buffer_.clear();
  buffer_.resize(4);
  frames_.assign(1, Frame{0, 0});
  return out;
}

Array DocumentBuilder::finish_array() {
  return Array(finish());
}

}  // namespace mongostore::bson
