#include "engine/update/shape_cache.h"

#include <cstdint>
#include <mutex>

namespace mongostore::engine::update_detail {

namespace {

bool known_operator(std::string_view name) {
  static constexpr std::string_view kOperators[] = {
      "$set",         "$unset", "$inc",  "$mul",      "$min", "$max",  "$rename", "$setOnInsert",
      "$currentDate", "$bit",   "$push", "$addToSet", "$pop", "$pull", "$pullAll"};
  for (std::string_view op : kOperators) {
    if (op == name) return true;
  }
  return false;
}

void append_length(std::string& key, size_t n) {
  uint32_t v = static_cast<uint32_t>(n);
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

std::optional<std::string> shape_key(bson::DocumentView update) {
  std::string key;
  key.reserve(256);  // one allocation for a typical shape instead of a doubling series
  for (const bson::Element& e : update) {
    if (!known_operator(e.key) || !e.value.is_document()) return std::nullopt;
    const bool rename = e.key == "$rename";
    bson::DocumentView fields = e.value.as_document();
    key.append(e.key);
    key.push_back('\0');
    size_t count_at = key.size();
    append_length(key, 0);
    size_t count = 0;
    for (const bson::Element& f : fields) {
      ++count;
      // Field names are C strings (no NUL inside): NUL-terminated is unambiguous.
      key.append(f.key);
      key.push_back('\0');
      if (rename) {
        // The target is a path of the shape; compile reports a target that is no string.
        if (!f.value.is_string()) return std::nullopt;
        std::string_view to = f.value.as_string();
        append_length(key, to.size());
        key.append(to);
      }
      if (key.size() > ShapeCache::kMaxKeyBytes) return std::nullopt;
    }
    uint32_t n = static_cast<uint32_t>(count);
    key.replace(count_at, sizeof n, reinterpret_cast<const char*>(&n), sizeof n);
  }
  if (key.empty()) return std::nullopt;  // {}: a replacement
  return key;
}

ShapeCache& ShapeCache::instance() {
  static ShapeCache* cache = new ShapeCache();  // never destroyed: usable during exit
  return *cache;
}

std::shared_ptr<const UpdateShape> ShapeCache::find(const std::string& key) const {
  std::shared_lock lock(mutex_);
  auto it = shapes_.find(key);
  return it == shapes_.end() ? nullptr : it->second;
}

void ShapeCache::insert(const std::string& key, std::shared_ptr<const UpdateShape> shape) {
  if (shape == nullptr || shape->ops.size() > kMaxOps || key.size() > kMaxKeyBytes) return;
  std::unique_lock lock(mutex_);
  if (!shapes_.emplace(key, std::move(shape)).second) return;
  order_.push_back(key);
  while (order_.size() > kMaxEntries) {
    shapes_.erase(order_.front());
    order_.pop_front();
  }
}

size_t ShapeCache::size() const {
  std::shared_lock lock(mutex_);
  return shapes_.size();
}

void ShapeCache::clear() {
  std::unique_lock lock(mutex_);
  shapes_.clear();
  order_.clear();
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace mongostore::engine::update_detail
